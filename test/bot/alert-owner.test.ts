/**
 * Who may press the buttons under an alert in a group, in a cluster: the front holds the alert
 * state it loaded at its start while a worker keeps alerting, so the owner of an alert sent since
 * must still be recognised (the front reads that user's state again on a miss), and nobody else is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownsAlert, ownsAlertNow } from '../../src/bot/features/alert-actions.js';
import { silentLogger } from '../../src/logger.js';
import { openRedisStore, type RedisStore } from '../../src/store/redis-store.js';
import { subscriptionKey, type AlertEntry } from '../../src/store/schema.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('alert-owner');
});
afterAll(async () => {
  await redis.dispose();
});

const OWNER = 501;
const STRANGER = 502;
const GROUP = -100_777;
const action = { type: 'mute', service: 'arbs_live', eventId: 'ev-1' } as const;

const entry = (messageId: number): AlertEntry => ({
  eventId: 'ev-1',
  chatId: GROUP,
  messageId,
  firstSeenAt: 1,
  lastSeenAt: 1,
  goneAt: null,
  profit: 2.5,
  odds: [2.1, 2.0],
  lastEditAt: 0,
});

describe('alert buttons in a group, front and worker apart', () => {
  it('the owner of an alert a worker sent after the front started may press its buttons; a stranger may not', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const stores: RedisStore[] = [];
    try {
      const worker = await openRedisStore({ url: redis.url, prefix: redis.prefix, logger: silentLogger, loadAllAlerts: false });
      stores.push(worker);
      worker.updateUser(OWNER, (u) => void (u.alertChatId = GROUP), { chatId: OWNER });
      worker.updateUser(STRANGER, () => undefined, { chatId: STRANGER });
      await worker.flush();
      const front = await openRedisStore({ url: redis.url, prefix: redis.prefix, logger: silentLogger, loadAllAlerts: true });
      stores.push(front);
      // The worker alerts the group after the front loaded its state.
      await worker.loadAlerts([OWNER]);
      worker.alerts.set(subscriptionKey(OWNER, 'arbs_live'), 'item-1', entry(42));
      await worker.flush();

      const rt = { store: front };
      expect(ownsAlert(rt, OWNER, GROUP, 42, action)).toBe(false);
      expect(await ownsAlertNow(rt, OWNER, GROUP, 42, action)).toBe(true);
      expect(await ownsAlertNow(rt, OWNER, GROUP, 43, action)).toBe(false);
      expect(await ownsAlertNow(rt, STRANGER, GROUP, 42, action)).toBe(false);
      // In the owner's private chat every alert is theirs, without a reload.
      expect(await ownsAlertNow(rt, OWNER, OWNER, 7, action)).toBe(true);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
