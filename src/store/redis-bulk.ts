/**
 * Whole-database operations on the Redis layout (`redis-layout.ts`), for opening and for
 * `npm run migrate`: the schema version in `{p}meta` (a newer one is refused, as the file store
 * refuses a newer file), counting what is stored, removing it all, and writing a whole database
 * (users with their statuses, the access-key index, alert state, ledgers, prints) in pipelined chunks.
 */
import type { Redis } from 'ioredis';
import { StoreError } from './errors.js';
import { encodeProfile, statusField } from './redis-codec.js';
import { execPipeline, type RedisKeys } from './redis-layout.js';
import { writeBookCommands } from './redis-ledger.js';
import { printSchema } from '../ledger/prints.js';
import { scanKeys, writePrintCommand } from './redis-prints.js';
import { SCHEMA_VERSION, type Database } from './schema.js';
import type { Service } from '../service/services.js';

/** Commands per pipeline in bulk writes. */
const CHUNK = 1_000;

/** Where the data is, for messages: the URL without user name or password. */
export function describeRedis(url: string, prefix: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}:${u.port || '6379'}${u.pathname.length > 1 ? u.pathname : ''} (prefix ${prefix})`;
  } catch {
    return `Redis (prefix ${prefix})`;
  }
}

/** Users and subscriptions with alert state stored under the prefix. */
export async function countStored(redis: Redis, keys: RedisKeys): Promise<{ users: number; alertSubscriptions: number }> {
  const [users, alertSubscriptions] = await Promise.all([redis.scard(keys.users), redis.scard(keys.alertSubs)]);
  return { users, alertSubscriptions };
}

/**
 * Checks `{p}meta`'s schema version: writes this build's when there is none yet, refuses a newer
 * one (StoreError 'newer-version') and one it cannot read ('unknown-version'), naming REDIS_URL.
 */
export async function checkSchemaVersion(redis: Redis, keys: RedisKeys, where: string): Promise<void> {
  await redis.hsetnx(keys.meta, 'version', SCHEMA_VERSION);
  const stored = await redis.hget(keys.meta, 'version');
  const version = Number(stored);
  if (version === SCHEMA_VERSION) return;
  if (Number.isInteger(version) && version > SCHEMA_VERSION) {
    throw new StoreError(
      'newer-version',
      `REDIS_URL: the data at ${where} has schema version ${version}, but this build reads up to ${SCHEMA_VERSION}: run a newer build (nothing was changed)`,
      'REDIS_URL',
    );
  }
  throw new StoreError(
    'unknown-version',
    `REDIS_URL: the data at ${where} has schema version ${stored ?? '(none)'} in ${keys.meta}, which this build cannot read: check REDIS_PREFIX, or move the data out with the build that wrote it (npm run migrate -- --to lowdb) and in again with this one`,
    'REDIS_URL',
  );
}

/** Removes every key of the store under the prefix (users, their index, alert state, ledgers, meta). */
export async function clearStored(redis: Redis, keys: RedisKeys): Promise<void> {
  const [ids, subKeys, ledgerIds] = await Promise.all([redis.smembers(keys.users), redis.smembers(keys.alertSubs), redis.smembers(keys.ledgerUsers)]);
  const doomed = [
    ...ledgerIds.flatMap((id) => [keys.ledger(Number(id)), keys.ledgerOpen(Number(id)), keys.ledgerLog(Number(id))]),
    keys.ledgerUsers,
    ...ids.map((id) => keys.user(Number(id))),
    ...subKeys.map((subKey) => keys.alerts(subKey)),
    keys.users,
    keys.alertSubs,
    keys.accessKeys,
    keys.meta,
  ];
  for (let i = 0; i < doomed.length; i += CHUNK) await redis.del(...doomed.slice(i, i + CHUNK));
  await scanKeys(redis, `${keys.prints}*`, async (page) => void (await redis.del(...page)));
}

/**
 * Writes `data` (validated) under the prefix, assumed empty: each user as version 1 with its
 * statuses in their own fields, the access-key index (of two users with one key, the first keeps
 * it, as lookups in the embedded store find the first), every subscription's entries, and meta.
 */
export async function writeDatabase(redis: Redis, keys: RedisKeys, data: Database, now: number): Promise<void> {
  let pipeline = redis.pipeline();
  const send = async (force = false) => {
    if (!force && pipeline.length < CHUNK) return;
    const failed = (await execPipeline(pipeline)).find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
    pipeline = redis.pipeline();
  };
  for (const user of Object.values(data.users)) {
    const fields: string[] = ['v', '1', 'rec', encodeProfile(user)];
    for (const [service, status] of Object.entries(user.status)) fields.push(statusField(service as Service), JSON.stringify(status));
    const accessKey = user.key?.accessKey;
    if (accessKey !== undefined) {
      fields.push('ak', accessKey);
      pipeline.hsetnx(keys.accessKeys, accessKey, String(user.id));
    }
    pipeline.hset(keys.user(user.id), ...fields);
    pipeline.sadd(keys.users, String(user.id));
    await send();
  }
  for (const [subKey, items] of Object.entries(data.alerts)) {
    const fields = Object.entries(items).flatMap(([itemId, entry]) => [itemId, JSON.stringify(entry)]);
    if (fields.length === 0) continue;
    pipeline.hset(keys.alerts(subKey), ...fields);
    pipeline.sadd(keys.alertSubs, subKey);
    await send();
  }
  for (const [id, book] of Object.entries(data.ledger)) {
    writeBookCommands(pipeline, keys, Number(id), book);
    await send();
  }
  // Prints keep the expiry they had (a week from their last send), or are not written when past it.
  for (const [key, raw] of Object.entries(data.prints)) {
    const print = printSchema.safeParse(raw);
    if (!print.success) continue;
    writePrintCommand(pipeline, `${keys.prints}${key}`, print.data, now);
    await send();
  }
  pipeline.hset(keys.meta, 'version', String(SCHEMA_VERSION));
  await send(true);
}
