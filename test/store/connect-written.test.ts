/**
 * Audit 2, N13: "connected" is said only once the record is written. In a cluster a front's copy of
 * the store may not yet know that another front gave the same access key to someone else; the
 * write finds out (the key's owner in Redis), the change is dropped, and the answer must say the key
 * is taken rather than "connected".
 */
import { describe, expect, it } from 'vitest';
import { connectKey } from '../../src/bot/actions/connect.js';
import type { BotRuntime } from '../../src/bot/deps.js';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Vault } from '../../src/store/vault.js';
import { redisStoreSuite } from './redis-fixtures.js';
import { removeTempDirs, tempDir } from './fixtures.js';

const { redis, stores } = await redisStoreSuite('connect-written');

describe('a connect told only once written', () => {
  it('answers "taken" when another front gave the key away before this write', async (ctx) => {
    if (!redis.available) return ctx.skip();
    try {
      const store = await stores.open();
      store.updateUser(2, () => undefined, { chatId: 2 });
      await store.flush();
      // Another front connected ak-shared for user 1 a moment ago; this front has not heard of it.
      await stores.raw().hset(stores.keys(store).accessKeys, 'ak-shared', '1');
      const vault = await Vault.open({ dataDir: await tempDir(), envKey: 'b2'.repeat(32), logger: silentLogger });
      const rt = {
        store,
        vault,
        clock: new ManualClock(),
        logger: silentLogger,
        caps: { take: async () => 0 },
        client: { checkKey: async () => undefined, forgetKey: () => undefined, writeFilter: async () => undefined },
        scheduler: { refreshUser: () => undefined },
      } as unknown as BotRuntime;
      const outcome = await connectKey(rt, { userId: 2, chatId: 2, lang: 'en', accessKey: 'ak-shared', secret: 'a-secret-of-twenty-chars', service: 'arbs_prematch' });
      expect(outcome.kind).toBe('taken');
      expect(store.getUser(2)?.key).toBeNull();
    } finally {
      await removeTempDirs();
    }
  });
});
