/**
 * How the fronts' shared state (open questions, guided flows, caps: shared-pending.ts,
 * shared-conversations.ts, shared-caps.ts) waits for Redis: bounded like the shared limits'
 * calls (redis-calls.ts), and a failure (named by its code only: an ioredis error may carry the URL) becomes the bot's StateUnavailableError, on which the bot
 * fails safe (src/bot/state-unavailable.ts). A Redis that is down or slow costs a user a "try
 * again in a moment", never a hung update or a secret taken for something else.
 */
import { StateUnavailableError } from '../bot/state-unavailable.js';
import { networkCause } from '../service/http.js';
import { REDIS_CALL_TIMEOUT_MS } from './redis-calls.js';

/** Options every shared-state module takes. */
export interface SharedStateOptions {
  /** REDIS_PREFIX: every key starts with it. */
  prefix: string;
  /** Tests only: added to Redis's clock inside the scripts (a number, or asked before every call). */
  clockOffsetMs?: number | (() => number);
  /** How long a call may wait for Redis (default: redis-calls.ts's bound). */
  timeoutMs?: number;
}

/** `call`'s answer, or StateUnavailableError when Redis fails or does not answer in time. */
export function stateCall<T>(what: string, call: Promise<T>, timeoutMs = REDIS_CALL_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Real time: Redis is I/O, not the injected clock. The call goes on; a late answer is dropped.
    const timer = setTimeout(() => reject(new StateUnavailableError(what, `no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(new StateUnavailableError(what, networkCause(err)));
      },
    );
  });
}

/** A value read back from Redis as JSON, or undefined when it is not JSON (the caller's zod schema decides the rest). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
