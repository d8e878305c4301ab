/**
 * What the cluster's store keeps in Redis (every key under REDIS_PREFIX, `{p}` below), and the Lua
 * scripts that change a user atomically. The Redis store sits beside the embedded one in
 * src/store/ (not in src/cluster/): it is the same seam, and shares its schema and in-memory parts.
 *
 *   {p}meta                 hash: `version` = the schema version the data was written with;
 *                           `currency-repaired` = when the users' currencies were repaired (currency-repair.ts)
 *   {p}users                set of user ids
 *   {p}user:{id}            hash: `v` (the record's version, +1 per write of `rec`), `rec` (the
 *                           record as JSON without `status`: the secret only as the vault's
 *                           ciphertext), `ak` (its access key, for the index), and one
 *                           `s:{service}` per subscription status (JSON), written on its own
 *   {p}access-keys          hash: access key → user id (one user per key, as in the embedded store)
 *   {p}alert-subs           set of subscription keys that have alert state
 *   {p}alerts:{uid}:{svc}   hash: item id → alert entry (JSON)
 *   {p}users:changed        pub/sub channel: `{"from":…,"ids":[…],"subs":[…],"ledger":[…],"st":{…}}` after writes (`st`: the statuses written)
 *   {p}ledger-users, {p}ledger:{id}, {p}ledger-open:{id}, {p}ledger-log:{id}   the bettor's ledger (`redis-ledger.ts`)
 *   {p}print:{id}:{print}   what a sent message printed, expiring after a week (`redis-prints.ts`)
 *
 * Why statuses have fields of their own: the worker that reads a subscription writes its status
 * after every read, while a front writes the user's filters, keys and settings. A status write
 * touches only its field (no version check, one writer per subscription), and a record write is
 * a compare-and-set on `v` (`WRITE_USER`): a writer that lost the race re-applies its mutation to
 * the newer record, so neither change is lost.
 */
import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';

/** The store's keys under one prefix. */
export interface RedisKeys {
  readonly meta: string;
  readonly users: string;
  user(id: number): string;
  readonly accessKeys: string;
  readonly alertSubs: string;
  alerts(subKey: string): string;
  readonly changes: string;
  readonly ledgerUsers: string;
  ledger(id: number): string;
  ledgerOpen(id: number): string;
  ledgerLog(id: number): string;
  /** Every print's key starts with this (`{p}print:`). */
  readonly prints: string;
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    meta: `${prefix}meta`,
    users: `${prefix}users`,
    user: (id) => `${prefix}user:${id}`,
    accessKeys: `${prefix}access-keys`,
    alertSubs: `${prefix}alert-subs`,
    alerts: (subKey) => `${prefix}alerts:${subKey}`,
    changes: `${prefix}users:changed`,
    ledgerUsers: `${prefix}ledger-users`,
    ledger: (id) => `${prefix}ledger:${id}`,
    ledgerOpen: (id) => `${prefix}ledger-open:${id}`,
    ledgerLog: (id) => `${prefix}ledger-log:${id}`,
    prints: `${prefix}print:`,
  };
}

/** A Lua script run by its SHA1 (EVALSHA); `ensureScripts` loads it after a Redis restart emptied the script cache. */
export interface Script {
  readonly lua: string;
  readonly sha: string;
  readonly keys: number;
}

function script(lua: string, keys: number): Script {
  return { lua, sha: createHash('sha1').update(lua).digest('hex'), keys };
}

/**
 * Writes a user's record if its version is still ARGV[1] (0: absent): KEYS user hash, users set,
 * access-key index; ARGV expected version, id, record JSON, access key ('' for none), then pairs
 * of status field and value ('' deletes the field). Returns {1, new version}; {0, the hash as it
 * is} when another writer came first; {-1, owner id} when another user holds the access key.
 */
export const WRITE_USER = script(
  `
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {0, redis.call('HGETALL', KEYS[1])} end
local id = ARGV[2]
local old = redis.call('HGET', KEYS[1], 'ak')
local new = ARGV[4]
local owner = false
if new ~= '' then owner = redis.call('HGET', KEYS[3], new) end
-- A key another user holds is refused; one both held before (an old duplicate) stays with its owner.
if owner and owner ~= id and new ~= old then return {-1, owner} end
if old and old ~= new and redis.call('HGET', KEYS[3], old) == id then redis.call('HDEL', KEYS[3], old) end
if new ~= '' then
  if not owner then redis.call('HSET', KEYS[3], new, id) end
  redis.call('HSET', KEYS[1], 'ak', new)
elseif old then
  redis.call('HDEL', KEYS[1], 'ak')
end
redis.call('HSET', KEYS[1], 'v', v + 1, 'rec', ARGV[3])
for i = 5, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('SADD', KEYS[2], id)
return {1, v + 1}
`,
  3,
);

/**
 * Writes status fields of a user that exists (a status write must not bring a deleted user back as
 * a hash without a record): KEYS user hash; ARGV pairs of field and value ('' deletes the field).
 * Returns 1, or 0 when the user is not stored.
 */
export const WRITE_STATUS = script(
  `
if redis.call('HEXISTS', KEYS[1], 'rec') == 0 then return 0 end
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`,
  1,
);

/** Deletes a user: KEYS user hash, users set, access-key index; ARGV id. Returns 1, or 0 when there was none. */
export const DELETE_USER = script(
  `
local ak = redis.call('HGET', KEYS[1], 'ak')
if ak and redis.call('HGET', KEYS[3], ak) == ARGV[1] then redis.call('HDEL', KEYS[3], ak) end
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`,
  3,
);

const SCRIPTS = [WRITE_USER, WRITE_STATUS, DELETE_USER];

/** Queues one script call on a pipeline. */
export function runScript(pipeline: ChainableCommander, s: Script, keys: readonly string[], args: readonly (string | number)[]): void {
  pipeline.call('EVALSHA', s.sha, s.keys, ...keys, ...args);
}

/** Loads the scripts into Redis's cache (at open, and after a NOSCRIPT reply: a restarted Redis has forgotten them). */
export async function ensureScripts(redis: Redis): Promise<void> {
  const pipeline = redis.pipeline();
  for (const s of SCRIPTS) pipeline.call('SCRIPT', 'LOAD', s.lua);
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([err]) => err !== null);
  if (failed?.[0]) throw failed[0];
}

/** Whether a reply error says the script cache lost a script. */
export const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOSCRIPT');

/** The results of a pipeline, each as an error or a value; a pipeline that could not run at all rejects. */
export async function execPipeline(pipeline: ChainableCommander): Promise<[Error | null, unknown][]> {
  const results = await pipeline.exec();
  if (results === null) throw new Error('the Redis pipeline was discarded');
  return results;
}

/** Whether a reply is a hash as ioredis hands HGETALL's (an object of strings). */
export const isHash = (value: unknown): value is Record<string, string> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the hashes `names` in pipelines of `chunk`, handing each to `each` in order (a missing one as {}); rejects on the first error. */
export async function readHashes(redis: Redis, names: readonly string[], each: (index: number, hash: Record<string, string>) => void, chunk = 1_000): Promise<void> {
  for (let i = 0; i < names.length; i += chunk) {
    const pipeline = redis.pipeline();
    for (const name of names.slice(i, i + chunk)) pipeline.hgetall(name);
    const results = await execPipeline(pipeline);
    results.forEach(([err, hash], n) => {
      if (err) throw err;
      each(i + n, isHash(hash) ? hash : {});
    });
  }
}
