/**
 * The lease scripts, each one atomic round trip to Redis (Lua), on Redis's own clock:
 *
 * - `tick`: the worker's heartbeat (a sorted set scored with Redis's TIME in ms; workers whose
 *   heartbeat is older than the lease TTL are dropped from it), then every bucket lease it holds
 *   renewed by compare-and-pexpire, then free buckets taken (SET NX PX) up to its fair share,
 *   ceil(buckets / live workers). It answers the live count, the share and the buckets it holds.
 * - `release`: compare-and-delete of some leases (surplus buckets, or all of them at a clean stop,
 *   with the heartbeat removed too), so a lease is only ever deleted by its holder.
 *
 * Keys: `{prefix}workers` (the heartbeat set) and `{prefix}lease:{b}` = worker id, with a PX TTL.
 * Every key a script touches is passed in KEYS.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { LEASE_BUCKETS } from './buckets.js';

const TICK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, me)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
local live = redis.call('ZCARD', KEYS[1])
local n = #KEYS - 1
local share = math.ceil(n / live)
local held = {}
local free = {}
for i = 2, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if v == me then
    redis.call('PEXPIRE', KEYS[i], ttl)
    held[#held + 1] = i - 2
  elseif not v then
    free[#free + 1] = i - 2
  end
end
if ARGV[3] == '1' and #free > 0 then
  local offset = tonumber(ARGV[4]) % #free
  local i = 0
  while #held < share and i < #free do
    local b = free[((offset + i) % #free) + 1]
    if redis.call('SET', KEYS[b + 2], me, 'PX', ttl, 'NX') then held[#held + 1] = b end
    i = i + 1
  end
end
local out = {live, share}
for _, b in ipairs(held) do out[#out + 1] = b end
return out
`;

const RELEASE = `
local n = 0
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    n = n + 1
  end
end
if ARGV[2] == '1' then redis.call('ZREM', KEYS[1], ARGV[1]) end
return n
`;

interface Script {
  body: string;
  sha: string;
}
const script = (body: string): Script => ({ body, sha: createHash('sha1').update(body).digest('hex') });
const tickScript = script(TICK);
const releaseScript = script(RELEASE);

/** EVALSHA, and EVAL once when Redis does not know the script yet (after a restart, say). */
async function run(redis: Redis, s: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(s.body, keys.length, ...keys, ...args);
  }
}

const tickReply = z.array(z.number().int().nonnegative()).min(2);
const releaseReply = z.number().int().nonnegative();

export interface TickAnswer {
  /** Workers whose heartbeat is younger than the lease TTL, this one included. */
  live: number;
  /** This worker's fair share: ceil(buckets / live). */
  share: number;
  /** The buckets it holds now (renewed or just taken), each for one more TTL. */
  held: number[];
}

export interface LeaseScripts {
  tick(opts: { workerId: string; ttlMs: number; take: boolean; offset: number }): Promise<TickAnswer>;
  /** Deletes those of `buckets` still held by `workerId`; `leave` also drops its heartbeat. Returns how many were deleted. */
  release(opts: { workerId: string; buckets: readonly number[]; leave: boolean }): Promise<number>;
}

export function createLeaseScripts(redis: Redis, prefix: string, buckets = LEASE_BUCKETS): LeaseScripts {
  const workersKey = `${prefix}workers`;
  const leaseKey = (b: number) => `${prefix}lease:${b}`;
  const allKeys = [workersKey, ...Array.from({ length: buckets }, (_, b) => leaseKey(b))];
  return {
    async tick({ workerId, ttlMs, take, offset }) {
      const [live, share, ...held] = tickReply.parse(await run(redis, tickScript, allKeys, [workerId, ttlMs, take ? '1' : '0', offset]));
      return { live: live!, share: share!, held: held.filter((b) => b < buckets) };
    },
    async release({ workerId, buckets: which, leave }) {
      if (which.length === 0 && !leave) return 0;
      return releaseReply.parse(await run(redis, releaseScript, [workersKey, ...which.map(leaseKey)], [workerId, leave ? '1' : '0']));
    },
  };
}
