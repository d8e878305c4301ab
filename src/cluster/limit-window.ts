/**
 * The limits every bot process shares (issue 13): one sliding-window log per limit scope, a Redis
 * sorted set whose members are sends and whose scores are when they count from, checked and
 * recorded by ONE Lua script. The script reads Redis's own clock (`TIME`), never the caller's, so
 * processes on machines with skewed clocks agree; tests shift that clock with `clockOffsetMs`.
 *
 * A send counts from its admission until one window after its answer, as in the in-process log
 * (src/service/sliding-window.ts): `acquire` records it at the admission time, `release` moves it
 * to the answer's time, `cancel` takes it out (nothing was sent). A process that dies with a send
 * in flight leaves it counted from its admission, which the caller's margin covers for ordinary
 * latencies. Members are unique per process and send, so two sends in one millisecond both count.
 * The key expires one window after its last write: an idle scope leaves nothing behind.
 *
 * Interactive sends (a user waiting) are marked in their member (`|i`, and `|i|<user>` for a
 * user's), so the script counts them across processes: an interactive send over the scope's
 * interactive cap, or over its user's share of it, is refused however many processes ask —
 * each process's own limiter only sees its own. The window holds at most `limit` members, so
 * counting them in the script is cheap.
 *
 * A scope can also be paused for every process (`pause`): the service answered one of them 429,
 * and the others, sending in the same scope, would only be refused too. The pause is a key beside
 * the window holding when it ends on Redis's clock; `acquire` refuses until then.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { defineScript, offsetArg, REDIS_NOW_LUA, type ScriptCall } from './redis-calls.js';

/** One send recorded in a scope's window. */
export interface WindowEntry {
  /** The scope's sorted set. */
  readonly key: string;
  readonly member: string;
  readonly windowMs: number;
}

/**
 * Why the shared window refused: the scope is paused (a 429), full, its interactive cap is
 * taken, or the asking user holds their share of that cap.
 */
export type WindowRefusal = 'paused' | 'full' | 'interactive' | 'user';

/** The shared window's answer: admitted (and recorded), or when the send that blocks it leaves. */
export type WindowVerdict =
  | { ok: true; entry: WindowEntry; /** Sends in the window, this one included. */ used: number }
  | { ok: false; retryAfterMs: number; used: number; why: WindowRefusal };

/** An interactive send's limits within the window: the scope's interactive cap, and one user's share of it. */
export interface InteractiveShare {
  /** Interactive sends the window may hold, from all processes. */
  cap: number;
  /** The user the send is for, with `userShare`: the sends of theirs the window may hold. */
  user?: number;
  userShare?: number;
}

/**
 * Who asks: a user waiting (a lookup) or a background poll. A lookup refused because the window is
 * full leaves a mark for a moment; while it is there, polls leave the last free slot to it, as
 * each process's own limiter does (a lookup waits at most for the next slot, whichever process
 * polls the scope).
 */
export type WindowPriority = 'interactive' | 'poll';

/** The sliding-window logs of all scopes, in one Redis. */
export interface LimitWindows {
  /**
   * Admits and records one send in `scope` when fewer than `limit` sends are in its last
   * `windowMs`; otherwise says in how many ms the oldest one leaves (nothing recorded).
   */
  acquire(scope: string, limit: number, windowMs: number, priority?: WindowPriority, share?: InteractiveShare): Promise<WindowVerdict>;
  /** The answer arrived (or the send failed): the send counts until one window from now. */
  release(entry: WindowEntry): Promise<void>;
  /** Nothing was sent after all: the send is taken out of the window. */
  cancel(entry: WindowEntry): Promise<void>;
  /** The service refused a send of the scope (429): every process's `acquire` refuses for `ms` (a longer pause already set stays). */
  pause(scope: string, ms: number): Promise<void>;
  /** Sends in the scope's window now, and ms until the oldest leaves (0 when empty); records nothing. */
  peek(scope: string, windowMs: number): Promise<{ used: number; nextFreeInMs: number }>;
  /** The Redis key of a scope's window. */
  keyOf(scope: string): string;
}

/** How long a lookup's mark outlives the moment its slot frees: time for it to come back and take the slot. */
export const LOOKUP_MARK_SLACK_MS = 1_000;

export interface LimitWindowsOptions {
  /** REDIS_PREFIX: every key starts with it. */
  prefix: string;
  /** Tests only: added to Redis's clock inside the scripts (a number, or asked before every call). */
  clockOffsetMs?: number | (() => number);
}

/**
 * KEYS[1] window, KEYS[2] its pause, KEYS[3] its lookup mark; ARGV offset, limit, windowMs, member,
 * interactive (1|0), interactive cap ('' none), user ('' none), user's share ('' none)
 * → {admitted 0|1, retryAfterMs, used, why}. An interactive member ends in `|i` or `|i|<user>`.
 */
const ACQUIRE = `${REDIS_NOW_LUA}
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local interactive = ARGV[5] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local pausedUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
if pausedUntil > now then return {0, pausedUntil - now, used, 'paused'} end
local cap = tonumber(ARGV[6])
local share = tonumber(ARGV[8])
if interactive and (cap or share) then
  local mine = '|i|' .. ARGV[7]
  local n, own, firstAll, firstOwn = 0, 0, nil, nil
  local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    local at = string.find(all[i], '|i', 1, true)
    if at then
      n = n + 1
      firstAll = firstAll or tonumber(all[i + 1])
      if ARGV[7] ~= '' and string.sub(all[i], at) == mine then
        own = own + 1
        firstOwn = firstOwn or tonumber(all[i + 1])
      end
    end
  end
  if cap and n >= cap then return {0, math.max(1, firstAll + window - now), used, 'interactive'} end
  if share and own >= share then return {0, math.max(1, firstOwn + window - now), used, 'user'} end
end
local room = limit
if not interactive and redis.call('EXISTS', KEYS[3]) == 1 then room = limit - 1 end
if used < room then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  if interactive then redis.call('DEL', KEYS[3]) end
  return {1, 0, used + 1, ''}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local retry = window
if oldest[2] then retry = tonumber(oldest[2]) + window - now end
if retry < 1 then retry = 1 end
if interactive then redis.call('SET', KEYS[3], '1', 'PX', retry + ${LOOKUP_MARK_SLACK_MS}) end
return {0, retry, used, 'full'}
`;

/**
 * KEYS[1] window; ARGV offset, windowMs, member. The send counts from now on (GT: never earlier
 * than it did); one gone from the set (a Redis that lost it) is recorded again, which only counts more.
 */
const RELEASE = `${REDIS_NOW_LUA}
redis.call('ZADD', KEYS[1], 'GT', now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** KEYS[1] pause; ARGV offset, ms. Sets when it ends unless a later end is set; expires with it. */
const PAUSE = `${REDIS_NOW_LUA}
local ms = tonumber(ARGV[2])
local ends = now + ms
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= ends then return 0 end
redis.call('SET', KEYS[1], ends, 'PX', ms)
return 1
`;

/** KEYS[1] window; ARGV offset, windowMs → {used, nextFreeInMs}. */
const PEEK = `${REDIS_NOW_LUA}
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local free = 0
if oldest[2] then free = tonumber(oldest[2]) + window - now end
if free < 0 then free = 0 end
return {used, free}
`;

const verdictReply = z.tuple([z.number().int(), z.number().int(), z.number().int(), z.enum(['', 'paused', 'full', 'interactive', 'user'])]);
const peekReply = z.tuple([z.number().int(), z.number().int()]);

/** The windows on one ioredis connection (its scripts are registered on it). */
export function createLimitWindows(redis: Redis, opts: LimitWindowsOptions): LimitWindows {
  const acquireScript: ScriptCall = defineScript(redis, 'bbLimitWindowAcquire', 3, ACQUIRE);
  const releaseScript: ScriptCall = defineScript(redis, 'bbLimitWindowRelease', 1, RELEASE);
  const peekScript: ScriptCall = defineScript(redis, 'bbLimitWindowPeek', 1, PEEK);
  const pauseScript: ScriptCall = defineScript(redis, 'bbLimitWindowPause', 1, PAUSE);
  const offsetNow = () => offsetArg(opts.clockOffsetMs);
  // Unique among processes (random) and among this process's sends (a counter).
  const instance = randomBytes(6).toString('base64url');
  let sequence = 0;
  const keyOf = (scope: string) => `${opts.prefix}limit:${scope}`;
  const pauseKeyOf = (scope: string) => `${opts.prefix}limit-pause:${scope}`;
  const lookupKeyOf = (scope: string) => `${opts.prefix}limit-lookup:${scope}`;
  const positive = (name: string, n: number) => {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive whole number of ms, not ${n}`);
  };

  return {
    keyOf,

    async acquire(scope, limit, windowMs, priority = 'poll', share) {
      positive('windowMs', windowMs);
      const key = keyOf(scope);
      sequence += 1;
      const interactive = priority === 'interactive';
      const user = interactive && share?.user !== undefined && share.userShare !== undefined ? String(share.user) : '';
      // Interactive sends are marked so the script can count them (and a user's) across processes.
      const member = `${instance}:${sequence.toString(36)}${interactive ? (user ? `|i|${user}` : '|i') : ''}`;
      const args = [offsetNow(), limit, windowMs, member, interactive ? 1 : 0, interactive && share ? share.cap : '', user, user ? (share?.userShare ?? '') : ''];
      const [admitted, retryAfterMs, used, why] = verdictReply.parse(await acquireScript([key, pauseKeyOf(scope), lookupKeyOf(scope)], args));
      if (admitted === 1) return { ok: true, entry: { key, member, windowMs }, used };
      return { ok: false, retryAfterMs, used, why: why === '' ? 'full' : why };
    },

    async release(entry) {
      await releaseScript([entry.key], [offsetNow(), entry.windowMs, entry.member]);
    },

    async cancel(entry) {
      await redis.zrem(entry.key, entry.member);
    },

    async pause(scope, ms) {
      positive('ms', ms);
      await pauseScript([pauseKeyOf(scope)], [offsetNow(), ms]);
    },

    async peek(scope, windowMs) {
      positive('windowMs', windowMs);
      const [used, nextFreeInMs] = peekReply.parse(await peekScript([keyOf(scope)], [offsetNow(), windowMs]));
      return { used, nextFreeInMs };
    },
  };
}
