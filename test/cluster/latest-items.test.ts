/**
 * The latest items asked of the worker that owns the user, over Redis pub/sub: the owner answers
 * (fields that may be undefined survive the trip), a worker that does not own the user stays
 * silent, nobody listening or nobody answering gives no items (at once, or after the timeout), and
 * an ask naming a reply channel outside the cluster's prefix or an answer that is not a list of
 * items is ignored.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { createLatestItemsAnswerer, createLatestItemsAsker } from '../../src/cluster/latest-items.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { opp } from '../scheduler/fixtures.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
let conn: Redis;
beforeAll(async () => {
  redis = await redisForTests('latest-items');
  if (redis.available) conn = new Redis(redis.url);
});
afterAll(async () => {
  conn?.disconnect();
  await redis.dispose();
});

const item: Opportunity = { ...opp('i1'), createdAt: undefined, event: { ...opp('i1').event, sportId: undefined } };

describe('latest items over pub/sub', () => {
  it('the owner answers with what its scheduler holds; another worker stays silent', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}a:`;
    const asked: number[] = [];
    const owner = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, owns: (id) => id === 7, latestItems: (id, service) => (asked.push(id), service === 'arbs_live' ? [] : [item]) });
    const bystander = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, owns: () => false, latestItems: () => [opp('wrong')] });
    const asker = await createLatestItemsAsker({ redis: conn, prefix, logger: silentLogger, timeoutMs: 2_000 });
    try {
      expect(await asker.ask(7)).toEqual([item]);
      expect(await asker.ask(7, 'arbs_live')).toEqual([]);
      expect(asked).toEqual([7, 7]);
      // Nobody owns user 8: no answer, the ask times out empty.
      const started = Date.now();
      expect(await asker.ask(8)).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    } finally {
      await Promise.all([owner.close(), bystander.close(), asker.close()]);
    }
  });

  it('gives no items at once when no worker listens', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const asker = await createLatestItemsAsker({ redis: conn, prefix: `${redis.prefix}b:`, logger: silentLogger, timeoutMs: 5_000 });
    const started = Date.now();
    expect(await asker.ask(1)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await asker.close();
  });

  it('ignores an ask whose reply channel is not the cluster’s, and an answer that is not a list of items', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}c:`;
    const answerer = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, owns: () => true, latestItems: () => [item] });
    const spy = conn.duplicate();
    const heard: string[] = [];
    spy.on('message', (channel: string) => heard.push(channel));
    await spy.subscribe('elsewhere');
    const asker = await createLatestItemsAsker({ redis: conn, prefix, logger: silentLogger, timeoutMs: 500 });
    try {
      await conn.publish(`${prefix}latest:ask`, JSON.stringify({ id: 'x', reply: 'elsewhere', userId: 1 }));
      await conn.publish(`${prefix}latest:ask`, 'not json');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);
      // A forged answer to a pending ask is not taken for items.
      const pending = asker.ask(1);
      const replies = await conn.pubsub('CHANNELS', `${prefix}latest:reply:*`);
      await conn.publish(String(replies[0]), JSON.stringify({ id: 'nope', items: 'x' }));
      expect(await pending).toEqual([item]);
    } finally {
      spy.disconnect();
      await Promise.all([answerer.close(), asker.close()]);
    }
  });
});
