/**
 * The poll allotments in Redis (poll-allotments.ts keeps them in each process): the part of a
 * shared limit window that the one process polling the scope admits locally, without a script a
 * read. Beside the window (limit-window.ts) a scope may have:
 *
 * - `limit-own:<scope>`, its holder: `<instance> <share>`. It counts only while the holder is alive
 *   (`limit-alive:<instance>`, one key a process, renewed every few seconds whatever the number of
 *   scopes it holds); the key itself lives an hour from its last keeping. While it counts, the
 *   window admits only `limit - share` (the lookups' part and the holder's polls beyond its share);
 *   the holder admits at most `share` polls a window on its own.
 * - `limit-given:<scope>`, the sends a holder gave back when it let go (scores: when they count
 *   from): the window counts them until they leave, held or not.
 *
 * A holder that dies gives nothing back: its alive key outlives its last local send by a window (it
 * admits only while its last renewal is fresh), so nobody can take its share too early. A process
 * whose poll meets another's allotment says so on the channel, and the holder lets go.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { defineScript, defineVariadicScript, offsetArg, REDIS_NOW_LUA, type ScriptCall } from './redis-calls.js';

/** How long a holder key lives after its last keeping (ALLOTMENT_KEEP_MS): only to clear keys of scopes nobody holds. */
export const ALLOTMENT_KEY_TTL_MS = 3_600_000;

/** The keys and channel of the allotments under REDIS_PREFIX (the window's script reads them too). */
export function allotmentKeysOf(prefix: string) {
  return {
    held: (scope: string) => `${prefix}limit-own:${scope}`,
    /** A holder's liveness; the scripts name it from the holder key's instance, after this prefix. */
    alivePrefix: `${prefix}limit-alive:`,
    givenBack: (scope: string) => `${prefix}limit-given:${scope}`,
    /** The window's mark of a lookup waiting (limit-window.ts sets it). */
    lookupMark: (scope: string) => `${prefix}limit-lookup:${scope}`,
    /** `want <scope>` (another process polls it), `lookup <scope>` (a lookup waits for a slot), `pause <scope> <ms>` (a 429 paused it). */
    channel: `${prefix}limit-allotments`,
  };
}

/**
 * KEYS[1] window, KEYS[2] holder, KEYS[3] given back; ARGV offset, instance, share, holdMs,
 * windowMs, limit, channel, scope, alive prefix → {0} held by another live process (who is told), {-1} another process polled
 * the scope within the window (it is not one process's), or {1, ages…}: the ages (ms) of the oldest
 * sends in the window and given back beyond `limit - share`, which the new holder counts against
 * its share while they stay counted where they are, so that the window's part (which counts what
 * was given back too) and the holder's never add up to more than the limit.
 */
const CLAIM = `${REDIS_NOW_LUA}
local me = ARGV[2] .. ' '
local held = redis.call('GET', KEYS[2])
local holder = held and string.match(held, '^(%S+) ')
if holder and holder .. ' ' ~= me and redis.call('EXISTS', ARGV[9] .. holder) == 1 then
  redis.call('PUBLISH', ARGV[7], 'want ' .. ARGV[8])
  return {0}
end
local window = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local mine = ARGV[2] .. ':'
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, #mine) ~= mine and not string.find(member, '|i', 1, true) then return {-1} end
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
local excess = redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[3]) - (tonumber(ARGV[6]) - tonumber(ARGV[3]))
local out = {1}
if excess > 0 then
  local scores = {}
  for _, key in ipairs({KEYS[1], KEYS[3]}) do
    local oldest = redis.call('ZRANGE', key, 0, excess - 1, 'WITHSCORES')
    for i = 2, #oldest, 2 do scores[#scores + 1] = tonumber(oldest[i]) end
  end
  table.sort(scores)
  for i = 1, excess do out[#out + 1] = now - scores[i] end
end
redis.call('SET', KEYS[2], me .. ARGV[3], 'PX', ${ALLOTMENT_KEY_TTL_MS})
redis.call('SET', ARGV[9] .. ARGV[2], '1', 'PX', ARGV[4])
return out
`;

/** KEYS[1] the process's alive key; ARGV holdMs. One command a round, whatever the number of scopes held. */
const ALIVE = `
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return 1
`;

/**
 * KEYS holders; ARGV instance, ttlMs, shares (one a key) → 1 kept, 0 held by another. A holder key
 * gone from Redis (restarted without its data) is set again: its sends still count, in this process.
 */
const KEEP = `
local me = ARGV[1] .. ' '
local out = {}
for i, key in ipairs(KEYS) do
  local held = redis.call('GET', key)
  if not held then
    redis.call('SET', key, me .. ARGV[i + 2], 'PX', ARGV[2])
    out[i] = 1
  elseif string.sub(held, 1, #me) == me then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
`;

/**
 * KEYS[1] holder, KEYS[2] given back, KEYS[3] window; ARGV offset, instance, windowMs, release id,
 * ages… → 1 let go, 0 not held. The sends the holder still counts are given back, with its polls in
 * the window (so that the next holder finds no other process's polls there), then the holder goes.
 */
const RELEASE = `${REDIS_NOW_LUA}
local me = ARGV[2] .. ' '
local held = redis.call('GET', KEYS[1])
if not held or string.sub(held, 1, #me) ~= me then return 0 end
local moved = 0
for i = 5, #ARGV do
  redis.call('ZADD', KEYS[2], now - tonumber(ARGV[i]), ARGV[4] .. ':' .. i)
  moved = moved + 1
end
local mine = ARGV[2] .. ':'
local polls = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
for i = 1, #polls, 2 do
  if string.sub(polls[i], 1, #mine) == mine and not string.find(polls[i], '|i', 1, true) then
    redis.call('ZADD', KEYS[2], polls[i + 1], polls[i])
    redis.call('ZREM', KEYS[3], polls[i])
    moved = moved + 1
  end
end
if moved > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * KEYS[1] holder; ARGV instance, share → 1 set, 0 not held. A holder lowers its share for a lookup
 * waiting in the window (never below what it counts: it asks only once its own sends fit).
 */
const LEND = `
local me = ARGV[1] .. ' '
local held = redis.call('GET', KEYS[1])
if not held or string.sub(held, 1, #me) ~= me then return 0 end
redis.call('SET', KEYS[1], me .. ARGV[2], 'KEEPTTL')
return 1
`;

/**
 * KEYS[1] window, KEYS[2] holder, KEYS[3] given back, KEYS[4] the lookup mark; ARGV offset,
 * instance, share, limit, windowMs → 1 raised, 0 not now. A holder takes back a slot it lent once
 * no lookup waits and the window's sends fit in the smaller part it leaves.
 */
const RAISE = `${REDIS_NOW_LUA}
local me = ARGV[2] .. ' '
local held = redis.call('GET', KEYS[2])
if not held or string.sub(held, 1, #me) ~= me then return 0 end
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
local window = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[4]) - tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[2], me .. ARGV[3], 'KEEPTTL')
return 1
`;

const claimReply = z.array(z.number().int()).min(1);
const keepReply = z.array(z.number().int());


export interface AllotmentStoreOptions {
  prefix: string;
  /** The process's name in the window's members (`LimitWindows.instance`): names it as a holder too. */
  instance: string;
  /** Tests only: added to Redis's clock inside the scripts. */
  clockOffsetMs?: number | (() => number);
}

export interface AllotmentClaim {
  /** The scope's window, as limit-window.ts names it. */
  windowKey: string;
  scope: string;
  share: number;
  limit: number;
  windowMs: number;
  holdMs: number;
}

export interface AllotmentStore {
  /**
   * Takes the allotment, with the ages (ms) of the sends beyond the window's part that it counts
   * against its share (they stay counted in Redis too). Or not: held by another process (who is
   * told), or shared (another process polls the scope).
   */
  claim(c: AllotmentClaim): Promise<{ ok: true; ages: number[] } | { ok: false; why: 'held' | 'shared' }>;
  /** Says this process is alive for `holdMs` more: every allotment it holds counts that long. */
  alive(holdMs: number): Promise<void>;
  /** Keeps each held allotment's key another ALLOTMENT_KEY_TTL_MS; false where another process holds it now. */
  keep(held: readonly { scope: string; share: number }[]): Promise<boolean[]>;
  /** Lowers the held share to `share` (a lookup waits); false when not held. */
  lend(scope: string, share: number): Promise<boolean>;
  /** Raises the held share to `share` when no lookup waits and the window's sends fit what it leaves. */
  raise(c: Omit<AllotmentClaim, 'holdMs'>): Promise<boolean>;
  /** Lets go, giving back the sends still counted (their ages, ms). */
  release(scope: string, windowKey: string, windowMs: number, ages: readonly number[]): Promise<void>;
  readonly channel: string;
}

export function createAllotmentStore(redis: Redis, opts: AllotmentStoreOptions): AllotmentStore {
  const keys = allotmentKeysOf(opts.prefix);
  const claimScript: ScriptCall = defineScript(redis, 'bbAllotmentClaim', 3, CLAIM);
  const releaseScript: ScriptCall = defineScript(redis, 'bbAllotmentRelease', 3, RELEASE);
  const aliveScript: ScriptCall = defineScript(redis, 'bbAllotmentAlive', 1, ALIVE);
  const keepScript: ScriptCall = defineVariadicScript(redis, 'bbAllotmentKeep', KEEP);
  const lendScript: ScriptCall = defineScript(redis, 'bbAllotmentLend', 1, LEND);
  const raiseScript: ScriptCall = defineScript(redis, 'bbAllotmentRaise', 4, RAISE);
  let releases = 0;

  return {
    channel: keys.channel,

    async claim(c) {
      const args = [offsetArg(opts.clockOffsetMs), opts.instance, c.share, c.holdMs, c.windowMs, c.limit, keys.channel, c.scope, keys.alivePrefix];
      const [ok, ...ages] = claimReply.parse(await claimScript([c.windowKey, keys.held(c.scope), keys.givenBack(c.scope)], args));
      return ok === 1 ? { ok: true, ages } : { ok: false, why: ok === 0 ? 'held' : 'shared' };
    },

    async alive(holdMs) {
      await aliveScript([`${keys.alivePrefix}${opts.instance}`], [holdMs]);
    },

    async keep(held) {
      if (held.length === 0) return [];
      const reply = keepReply.parse(await keepScript(held.map((h) => keys.held(h.scope)), [opts.instance, ALLOTMENT_KEY_TTL_MS, ...held.map((h) => h.share)]));
      return held.map((_, i) => reply[i] === 1);
    },

    async lend(scope, share) {
      return (await lendScript([keys.held(scope)], [opts.instance, share])) === 1;
    },

    async raise(c) {
      const args = [offsetArg(opts.clockOffsetMs), opts.instance, c.share, c.limit, c.windowMs];
      return (await raiseScript([c.windowKey, keys.held(c.scope), keys.givenBack(c.scope), keys.lookupMark(c.scope)], args)) === 1;
    },

    async release(scope, windowKey, windowMs, ages) {
      releases += 1;
      const id = `${opts.instance}-given:${releases.toString(36)}`;
      await releaseScript([keys.held(scope), keys.givenBack(scope), windowKey], [offsetArg(opts.clockOffsetMs), opts.instance, windowMs, id, ...ages.map((a) => Math.max(0, Math.round(a)))]);
    },
  };
}
