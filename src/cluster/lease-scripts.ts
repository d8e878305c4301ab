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
 * Keys: `{prefix}workers` (the heartbeat set), `{prefix}bucket-map` (the bucket map in force:
 * absent or 1, or 2; buckets.ts), `{prefix}lease:{b}` = worker id under map 1 and
 * `{prefix}lease2:{b}` under map 2, with a PX TTL. Every key a script touches is passed in KEYS.
 *
 * The move from map 1 to map 2, with no user read by two workers and none moved twice: a worker
 * that knows map 2 beats its heartbeat as `<id>|m2`. While any live worker does not (an older
 * version), the map stays 1 and everyone leases map 1's buckets. The first tick that finds every
 * live worker knowing map 2 publishes it. A worker whose tick answers map 2 drops its map-1 buckets
 * locally, then releases them; nobody takes a map-2 bucket while any map-1 lease is still held by a
 * worker (released, or lapsed after its TTL: a worker's local validity always ends first), so each
 * user goes from their map-1 worker to their map-2 worker once, after a gap of at most a TTL and a
 * round. From then on every map-1 lease is held by the marker `retired:2` (an hour, renewed each half hour), so an older
 * worker started by mistake finds no free bucket and reads nobody (the last worker to stop cleanly
 * deletes the markers; an older worker that then starts alone holds map-1 leases, and the workers
 * that know map 2 take none until it stops: a stall, never a user read twice).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { LATEST_BUCKET_MAP, LEASE_BUCKETS, type BucketMap } from './buckets.js';

/** What holds every map-1 lease once map 2 is in force: no worker id, so no older worker can take one. */
const RETIRED = 'retired:2';
/**
 * How long the markers on map 1's leases live. A round renews them only when the key
 * `{prefix}bucket-map-retired` (set with them, for half as long) is gone: a lease round under map 2
 * costs 64 GET and 64 SET only every half hour, not every 3 s.
 */
const RETIRED_TTL_MS = 3_600_000;

const TICK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local ttl = tonumber(ARGV[2])
local member = ARGV[5]
local maxMap = tonumber(ARGV[6])
local n = tonumber(ARGV[7])
redis.call('ZADD', KEYS[1], now, member)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
local live = redis.call('ZCARD', KEYS[1])
local share = math.ceil(n / live)
local map = tonumber(redis.call('GET', KEYS[2]) or '1')
if map == 1 and maxMap >= 2 then
  local ready = true
  for _, w in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(w, -3) ~= '|m2' then ready = false break end
  end
  if ready then
    redis.call('SET', KEYS[2], '2')
    map = 2
  end
end
if map > maxMap then return {live, share, map} end
local base = 2 + (map - 1) * n
local takeOk = ARGV[3] == '1'
if map == 2 and redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  local blocked = false
  for i = 3, n + 2 do
    local v = redis.call('GET', KEYS[i])
    if v and v ~= '${RETIRED}' then blocked = true break end
  end
  if blocked then
    takeOk = false
  else
    for i = 3, n + 2 do redis.call('SET', KEYS[i], '${RETIRED}', 'PX', ${RETIRED_TTL_MS}) end
    redis.call('SET', KEYS[#KEYS], '${RETIRED}', 'PX', ${RETIRED_TTL_MS / 2})
  end
end
local held = {}
local free = {}
for b = 0, n - 1 do
  local k = KEYS[base + b + 1]
  local v = redis.call('GET', k)
  if v == me then
    redis.call('PEXPIRE', k, ttl)
    held[#held + 1] = b
  elseif not v then
    free[#free + 1] = b
  end
end
if takeOk and #free > 0 then
  local offset = tonumber(ARGV[4]) % #free
  local i = 0
  while #held < share and i < #free do
    local b = free[((offset + i) % #free) + 1]
    if redis.call('SET', KEYS[base + b + 1], me, 'PX', ttl, 'NX') then held[#held + 1] = b end
    i = i + 1
  end
end
local out = {live, share, map}
for _, b in ipairs(held) do out[#out + 1] = b end
return out
`;

const RELEASE = `
local retired = tonumber(ARGV[4])
local n = 0
for i = 2, #KEYS - retired do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    n = n + 1
  end
end
if ARGV[2] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[3])
  if retired > 0 and redis.call('ZCARD', KEYS[1]) == 0 then
    for i = #KEYS - retired + 1, #KEYS do
      if redis.call('GET', KEYS[i]) == '${RETIRED}' then redis.call('DEL', KEYS[i]) end
    end
  end
end
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

const tickReply = z.array(z.number().int().nonnegative()).min(3);
const releaseReply = z.number().int().nonnegative();

export interface TickAnswer {
  /** Workers whose heartbeat is younger than the lease TTL, this one included. */
  live: number;
  /** This worker's fair share: ceil(buckets / live). */
  share: number;
  /** The bucket map in force (`held` are its buckets); above the worker's `maxMap`, it holds nothing. */
  map: number;
  /** The buckets it holds now (renewed or just taken), each for one more TTL. */
  held: number[];
}

export interface LeaseScripts {
  /** `maxMap`: the newest bucket map this worker may use (default the latest; 1 stands in for an older worker). */
  tick(opts: { workerId: string; ttlMs: number; take: boolean; offset: number; maxMap?: BucketMap }): Promise<TickAnswer>;
  /** Deletes those of `buckets` (of `map`) still held by `workerId`; `leave` also drops its heartbeat. Returns how many were deleted. */
  release(opts: { workerId: string; buckets: readonly number[]; leave: boolean; map: number; maxMap?: BucketMap }): Promise<number>;
}

/** The heartbeat's member: a worker that knows map 2 says so (an older one beats its bare id). */
const memberOf = (workerId: string, maxMap: BucketMap) => (maxMap >= 2 ? `${workerId}|m2` : workerId);

export function createLeaseScripts(redis: Redis, prefix: string, buckets = LEASE_BUCKETS): LeaseScripts {
  const workersKey = `${prefix}workers`;
  const leaseKey = (map: number, b: number) => (map === 1 ? `${prefix}lease:${b}` : `${prefix}lease${map}:${b}`);
  const mapKeys = (map: number) => Array.from({ length: buckets }, (_, b) => leaseKey(map, b));
  const retiredKey = `${prefix}bucket-map-retired`;
  const allKeys = [workersKey, `${prefix}bucket-map`, ...mapKeys(1), ...mapKeys(2), retiredKey];
  return {
    async tick({ workerId, ttlMs, take, offset, maxMap = LATEST_BUCKET_MAP }) {
      const args = [workerId, ttlMs, take ? '1' : '0', offset, memberOf(workerId, maxMap), maxMap, buckets];
      const [live, share, map, ...held] = tickReply.parse(await run(redis, tickScript, allKeys, args));
      return { live: live!, share: share!, map: map!, held: held.filter((b) => b < buckets) };
    },
    async release({ workerId, buckets: which, leave, map, maxMap = LATEST_BUCKET_MAP }) {
      if (which.length === 0 && !leave) return 0;
      // The last worker to leave under map 2 also clears the markers on map 1's leases: nothing is left behind.
      const retired = leave && map === 2 ? [...mapKeys(1), retiredKey] : [];
      const keys = [workersKey, ...which.map((b) => leaseKey(map, b)), ...retired];
      return releaseReply.parse(await run(redis, releaseScript, keys, [workerId, leave ? '1' : '0', memberOf(workerId, maxMap), retired.length]));
    },
  };
}
