/**
 * Audit 2, N10: a worker that loses a bucket writes what it holds of those users' alert state, then
 * no longer keeps it (another worker polls them now, and its entries would grow stale here); a user
 * whose bucket came back meanwhile keeps theirs.
 */
import { describe, expect, it } from 'vitest';
import { subscriptionKey, type AlertEntry } from '../../src/store/schema.js';
import { redisStoreSuite } from '../store/redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('forget-alerts');

const entry: AlertEntry = { eventId: 'ev-1', chatId: 1, messageId: 42, firstSeenAt: 1, lastSeenAt: 1, goneAt: null, profit: 2.5, odds: [2.1, 2.0], lastEditAt: 0 };

describe('the alert state of a lost bucket', () => {
  it('is written, then forgotten here; a user gained back keeps it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const worker = await stores.open({ loadAllAlerts: false });
    for (const id of [1, 2]) worker.updateUser(id, () => undefined, { chatId: id });
    await worker.loadAlerts([1, 2]);
    for (const id of [1, 2]) worker.alerts.set(subscriptionKey(id, 'arbs_live'), 'item-1', { ...entry, chatId: id });
    // Lost both; user 2's bucket came back before the write finished.
    await worker.forgetAlerts([1, 2], (id) => id === 1);
    expect(worker.alerts.entries(subscriptionKey(1, 'arbs_live'))).toEqual([]);
    expect(worker.alerts.entries(subscriptionKey(2, 'arbs_live')).map(([id]) => id)).toEqual(['item-1']);
    // Written before it was forgotten: the worker that polls user 1 now reads it.
    const other = await stores.open({ prefix: stores.prefixOf(worker), loadAllAlerts: false });
    await other.loadAlerts([1]);
    expect(other.alerts.entries(subscriptionKey(1, 'arbs_live')).map(([id, e]) => [id, e.messageId])).toEqual([['item-1', 42]]);
  });
});
