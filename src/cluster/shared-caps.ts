/**
 * The per-user and per-key caps (src/bot/caps.ts: key checks, lookups, inline searches, filter
 * writes) counted once for every front of a cluster, so N fronts do not allow N times the cap.
 * Each bucket is a sliding-window log in Redis, a sorted set of uses scored by when they happened;
 * ONE Lua script per take trims, checks and records both buckets of a use (the user's and the
 * key's) on Redis's clock (REDIS_NOW_LUA; tests shift it with `clockOffsetMs`), so two fronts
 * taking at the same moment cannot both take the last use. A refused use is not counted, as in
 * memory. Each bucket expires (PX) one window after its last use.
 *
 * Keys, under REDIS_PREFIX: `cap:u:ACTION:USER` and `cap:k:ACTION:HASH`, where HASH is a digest
 * of the access key (the key itself is not written into a key name).
 *
 * Redis out of reach: the take rejects with StateUnavailableError and the use is refused (fail
 * closed): a cap nobody can check is no cap.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CAP_RULES, type CapAction, type CapRule, type CapsPort } from '../bot/caps.js';
import { defineScript, offsetArg, REDIS_NOW_LUA, type ScriptCall } from './redis-calls.js';
import { stateCall, type SharedStateOptions } from './state-calls.js';

/**
 * KEYS user bucket, key bucket; ARGV offset, perUser, perKey (-1: no key bucket), windowMs, member
 * → 0 when taken, else ms until the next use is allowed.
 */
const TAKE = `${REDIS_NOW_LUA}
local window = tonumber(ARGV[4])
local limits = {tonumber(ARGV[2]), tonumber(ARGV[3])}
local wait = 0
for i = 1, 2 do
  if limits[i] >= 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
    local used = redis.call('ZCARD', KEYS[i])
    if used >= limits[i] then
      local w = window
      local at = redis.call('ZRANGE', KEYS[i], used - limits[i], used - limits[i], 'WITHSCORES')
      if at[2] then w = tonumber(at[2]) + window - now end
      if w > wait then wait = w end
    end
  end
end
if wait > 0 then return math.ceil(wait) end
for i = 1, 2 do
  if limits[i] >= 0 then
    redis.call('ZADD', KEYS[i], now, ARGV[5])
    redis.call('PEXPIRE', KEYS[i], window)
  end
end
return 0
`;

export interface SharedCapsOptions extends SharedStateOptions {
  rules?: Readonly<Record<CapAction, CapRule>>;
}

/** The caps of every front, on one ioredis connection (its script is registered on it). */
export function createSharedCaps(redis: Redis, opts: SharedCapsOptions): CapsPort {
  const rules = opts.rules ?? CAP_RULES;
  const takeScript: ScriptCall = defineScript(redis, 'bbCapsTake', 2, TAKE);
  // Members unique among fronts (random) and among this front's uses (a counter).
  const instance = randomBytes(6).toString('base64url');
  let sequence = 0;
  const keyDigest = (accessKey: string) => createHash('sha256').update(accessKey).digest('base64url').slice(0, 22);

  return {
    async take(action, userId, accessKey) {
      const rule = rules[action];
      const userBucket = `${opts.prefix}cap:u:${action}:${userId}`;
      const keyBucket = accessKey === undefined ? userBucket : `${opts.prefix}cap:k:${action}:${keyDigest(accessKey)}`;
      sequence += 1;
      const args = [offsetArg(opts.clockOffsetMs), rule.perUser, accessKey === undefined ? -1 : rule.perKey, rule.windowMs, `${instance}:${sequence.toString(36)}`];
      const raw = await stateCall(`checking the ${action} cap`, takeScript([userBucket, keyBucket], args), opts.timeoutMs);
      return z.number().int().min(0).parse(raw);
    },
  };
}
