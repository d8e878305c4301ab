/**
 * Helpers for the Redis store's tests: stores opened on the suite's Redis (test/support/redis.ts),
 * each test under a prefix of its own, a plain client to look at (and tamper with) what is stored,
 * and clean-up that closes the stores and removes the suite's keys (never anything else: REDIS_URL
 * may be a shared server).
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/port.js';
import { openRedisStore, type OpenRedisStoreOptions, type RedisStore } from '../../src/store/redis-store.js';
import { redisKeys, type RedisKeys } from '../../src/store/redis-layout.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

export interface RedisStores {
  /** A prefix no other test uses. */
  freshPrefix(): string;
  /** Opens a store on `prefix` (default: a fresh one); closed by `cleanup`. */
  open(opts?: Partial<OpenRedisStoreOptions>): Promise<RedisStore>;
  /** The prefix a store was opened on. */
  prefixOf(store: Store): string;
  keys(prefixOrStore: string | Store): RedisKeys;
  /** A plain client (connected on first use). */
  raw(): Redis;
  /** Closes the stores opened since the last call. */
  closeAll(): Promise<void>;
  /** Closes everything and removes every key under the suite's prefix. */
  dispose(): Promise<void>;
}

export function redisStores(redis: TestRedis): RedisStores {
  let n = 0;
  let client: Redis | undefined;
  const opened: RedisStore[] = [];
  const prefixes = new Map<Store, string>();
  const raw = () => (client ??= new Redis(redis.url, { maxRetriesPerRequest: 3 }));
  const prefixOf = (store: Store) => prefixes.get(store) ?? '';
  return {
    freshPrefix: () => `${redis.prefix}${++n}:`,
    async open(opts = {}) {
      const prefix = opts.prefix ?? `${redis.prefix}${++n}:`;
      const store = await openRedisStore({ url: redis.url, logger: silentLogger, ...opts, prefix });
      opened.push(store);
      prefixes.set(store, prefix);
      return store;
    },
    prefixOf,
    keys: (p) => redisKeys(typeof p === 'string' ? p : prefixOf(p)),
    raw,
    async closeAll() {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
      if (!redis.available) return;
      const c = raw();
      let cursor = '0';
      do {
        const [next, found] = await c.scan(cursor, 'MATCH', `${redis.prefix}*`, 'COUNT', 1000);
        if (found.length > 0) await c.del(...found);
        cursor = next;
      } while (cursor !== '0');
      c.disconnect();
      client = undefined;
    },
  };
}

/**
 * Redis for one test file (see `redisForTests`) with its stores, closed after each test; the
 * suite's keys and a private server are removed after all.
 */
export async function redisStoreSuite(suite: string, opts: { privateOnly?: boolean } = {}): Promise<{ redis: TestRedis; stores: RedisStores }> {
  const redis = await redisForTests(suite, opts);
  const stores = redisStores(redis);
  afterEach(() => stores.closeAll());
  afterAll(async () => {
    await stores.dispose();
    await redis.dispose();
  });
  return { redis, stores };
}
