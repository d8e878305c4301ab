/**
 * How the cluster's shared limits and token cache talk to Redis: Lua scripts registered on an
 * ioredis connection (`defineCommand`, which sends EVALSHA and falls back to EVAL when Redis
 * answers NOSCRIPT, as it does after a restart), and a bound on how long a caller waits for an
 * answer. A Redis that is down or slow must become an error the client and the scheduler already
 * treat as transient (a ServiceError 'timeout' that says nothing was sent), never a hang of the
 * read loop or a crash; ioredis alone would queue the command until it reconnects.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { ServiceError } from '../service/errors.js';
import { networkCause } from '../service/http.js';

export type ScriptArg = string | number;
/** One registered script: its keys, then its arguments. */
export type ScriptCall = (keys: readonly string[], args: readonly ScriptArg[]) => Promise<unknown>;
/** One registered script queued on a pipeline of its connection: its keys, then its arguments. */
export type ScriptQueue = (pipe: ChainableCommander, keys: readonly string[], args: readonly ScriptArg[]) => void;

/** A method ioredis added to the connection (and its pipelines) for a script. */
type DefinedCommand = (...keysAndArgs: ScriptArg[]) => unknown;

/** The method ioredis added to `target` for script `name`. */
function definedOn(target: Redis | ChainableCommander, name: string): DefinedCommand {
  const command = (target as unknown as Record<string, DefinedCommand | undefined>)[name];
  if (typeof command !== 'function') throw new Error(`ioredis did not define the script ${name}`);
  return command;
}

/**
 * Registers `lua` on the connection under `name` (names are global to the connection: prefix them
 * with the module's) and returns a typed way to call it.
 */
export function defineScript(redis: Redis, name: string, numberOfKeys: number, lua: string): ScriptCall {
  redis.defineCommand(name, { numberOfKeys, lua });
  const command = definedOn(redis, name);
  return (keys, args) => command.call(redis, ...keys, ...args) as Promise<unknown>;
}

/**
 * Registers `lua` as `defineScript` does and returns how to queue it on the connection's pipelines
 * (a pipeline of another connection does not know it).
 */
export function definePipelineScript(redis: Redis, name: string, numberOfKeys: number, lua: string): ScriptQueue {
  redis.defineCommand(name, { numberOfKeys, lua });
  definedOn(redis, name);
  return (pipe, keys, args) => void definedOn(pipe, name).call(pipe, ...keys, ...args);
}

/**
 * Lua that sets `now` to Redis's clock in ms plus ARGV[1] (an offset only tests set): the one
 * clock of every script that keeps time, so processes with skewed clocks agree.
 */
export const REDIS_NOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
`;

/** An offset option (a number, or asked before every call) as the number to pass. */
export function offsetArg(offset: number | (() => number) | undefined): number {
  return Math.round(typeof offset === 'function' ? offset() : (offset ?? 0));
}

/** How long a caller waits for Redis by default before its call fails as transient. */
export const REDIS_CALL_TIMEOUT_MS = 2_000;

export interface BoundOptions {
  /** What the call was for, in words, for the error message ("the shared item read limit"). */
  what: string;
  timeoutMs?: number;
  /** The caller's cancellation: its reason is rethrown as is. */
  signal?: AbortSignal;
}

/**
 * `call`'s answer, or ServiceError('timeout') when Redis fails or does not answer within the
 * bound (real time: Redis is I/O, not the injected clock), or the signal's reason on an abort.
 * The call itself goes on: whatever it still does in Redis must be safe to happen late.
 */
export function bounded<T>(call: Promise<T>, opts: BoundOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? REDIS_CALL_TIMEOUT_MS;
  const { signal } = opts;
  if (signal?.aborted) {
    // The caller has left: a late failure of the call has nobody to tell (and must not be unhandled).
    call.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => finish(() => reject(signal?.reason as Error));
    const timer = setTimeout(() => finish(() => reject(unavailable(opts.what, `no answer within ${timeoutMs} ms`))), timeoutMs);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
    call.then(
      (value) => finish(() => resolve(value)),
      (err: unknown) => finish(() => reject(unavailable(opts.what, networkCause(err)))),
    );
  });
}

/** The error of a shared-state call that failed: transient, and nothing went to the service. */
export function unavailable(what: string, cause: string): ServiceError {
  return new ServiceError('timeout', `${what}: the bot's shared state in Redis is unavailable (${cause}); nothing was sent`);
}
