/**
 * In a cluster the workers' status writes (last good read, last alert, last error) are not
 * announced to the other processes: a front shows statuses only after reading the user again.
 * Here the bot runs on one Redis store (the front) while another (a worker) writes a status.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { defaultFilter } from '../../src/service/filter-model.js';
import { openRedisStore, REFRESH_WAIT_MS, type RedisStore } from '../../src/store/redis-store.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { ALICE, createHarness, type Harness } from './harness.js';

let redis: TestRedis;
let h: Harness | undefined;
let worker: RedisStore | undefined;
beforeAll(async () => {
  redis = await redisForTests('status-fresh');
});
afterEach(async () => {
  await h?.close();
  await worker?.close();
  h = undefined;
  worker = undefined;
});
afterAll(async () => {
  await redis.dispose();
});

describe('/status on a front', () => {
  it("shows the status a worker wrote, though no process was told of it", async (ctx) => {
    if (!redis.available) return ctx.skip();
    h = await createHarness({ openStore: () => openRedisStore({ url: redis.url, prefix: redis.prefix, logger: silentLogger, loadAllAlerts: false }) });
    await h.connect();
    h.store.updateUser(ALICE.id, (u) => void (u.filters.arbs_prematch = { settings: defaultFilter(), paused: false, pausedReason: null, savedAt: h!.clock.now() }));
    await h.store.flush();
    worker = await openRedisStore({ url: redis.url, prefix: redis.prefix, logger: silentLogger, loadAllAlerts: false });
    worker.updateStatus(ALICE.id, 'arbs_prematch', { lastError: { kind: 'malformed', at: h.clock.now() } });
    await worker.flush();
    await h.say(ALICE, '/status');
    expect(h.last(ALICE.id).text).toContain('Last error: the service sent an answer I could not read');
  });

  it('answers from what it holds, soon, when Redis does not answer', async (ctx) => {
    const own = await redisForTests('status-fresh-down', { privateOnly: true });
    if (!own.available) return ctx.skip();
    try {
      h = await createHarness({ openStore: () => openRedisStore({ url: own.url, prefix: own.prefix, logger: silentLogger, loadAllAlerts: false }) });
      await h.connect();
      h.store.updateUser(ALICE.id, (u) => void (u.filters.arbs_prematch = { settings: defaultFilter(), paused: false, pausedReason: null, savedAt: h!.clock.now() }));
      await h.store.flush();
      await own.server!.stop({ hard: true });
      const started = Date.now();
      await h.say(ALICE, '/status');
      expect(Date.now() - started).toBeLessThan(REFRESH_WAIT_MS + 2_000);
      expect(h.last(ALICE.id).text).toContain('Arbs · prematch');
      expect(h.logs.join('\n')).toContain('could not read the user again before showing statuses');
      // Back, so that the store closes without waiting out its retries.
      await own.server!.restart();
    } finally {
      await h?.close().catch(() => undefined);
      h = undefined;
      await own.dispose();
    }
  }, 20_000);
});
