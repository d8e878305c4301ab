/**
 * The latest items asked of the worker that owns the user, over Redis pub/sub: the owner answers
 * (fields that may be undefined survive the trip), a worker that does not own the user stays
 * silent, nobody listening or nobody answering gives no items (at once, or after the timeout), and
 * an ask naming a reply channel outside the cluster's prefix or an answer that is not a list of
 * items is ignored.
 */
import { createSecretKey } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { createLatestItemsAnswerer, createLatestItemsAsker } from '../../src/cluster/latest-items.js';
import { createMessageSeal } from '../../src/cluster/message-seal.js';
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

// With its odds groups: the front's copy keeps them (the market filter reads them; issue 31 item 5).
const item: Opportunity = { ...opp('i1'), createdAt: undefined, event: { ...opp('i1').event, sportId: undefined }, groupIds: [1, 7] };
const seal = createMessageSeal({ mac: createSecretKey(Buffer.alloc(32, 1)), box: createSecretKey(Buffer.alloc(32, 2)) });
/** What someone with the Redis password but not the encryption key can make. */
const theirs = createMessageSeal({ mac: createSecretKey(Buffer.alloc(32, 3)), box: createSecretKey(Buffer.alloc(32, 4)) });

describe('latest items over pub/sub', () => {
  it('the owner answers with what its scheduler holds; another worker stays silent', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}a:`;
    const asked: number[] = [];
    const owner = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, seal, owns: (id) => id === 7, latestItems: (id, service) => (asked.push(id), service === 'arbs_live' ? [] : [item]) });
    const bystander = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, seal, owns: () => false, latestItems: () => [opp('wrong')] });
    const asker = await createLatestItemsAsker({ redis: conn, prefix, logger: silentLogger, seal, timeoutMs: 2_000 });
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
    const asker = await createLatestItemsAsker({ redis: conn, prefix: `${redis.prefix}b:`, logger: silentLogger, seal, timeoutMs: 5_000 });
    const started = Date.now();
    expect(await asker.ask(1)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await asker.close();
  });

  it('ignores an ask whose reply channel is not the cluster’s, and an answer that is not a list of items', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}c:`;
    const answerer = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, seal, owns: (id) => id !== 8, latestItems: () => [item] });
    const spy = conn.duplicate();
    const heard: string[] = [];
    spy.on('message', (channel: string) => heard.push(channel));
    await spy.subscribe('elsewhere');
    const asker = await createLatestItemsAsker({ redis: conn, prefix, logger: silentLogger, seal, timeoutMs: 500 });
    try {
      await conn.publish(`${prefix}latest:ask`, JSON.stringify({ id: 'x', reply: 'elsewhere', userId: 1 }));
      await conn.publish(`${prefix}latest:ask`, 'not json');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([]);
      // A forged answer to a pending ask is not taken for items.
      const pending = asker.ask(1);
      const replies = await conn.pubsub('CHANNELS', `${prefix}latest:reply:*`);
      await conn.publish(String(replies[0]), JSON.stringify({ id: 'nope', box: 'x' }));
      expect(await pending).toEqual([item]);
    } finally {
      spy.disconnect();
      await Promise.all([answerer.close(), asker.close()]);
    }
  });

  it('audit 3, M3: an answer written by someone with the Redis password is not taken, nor is their question answered', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}d:`;
    const planted = { ...item, id: 'evil', event: { ...item.event, team1: 'Your key expired: reconnect at https://evil.example' } };
    // The attacker answers every question first, in the clear and sealed with a key of their own.
    const attacker = conn.duplicate();
    const publisher = conn.duplicate();
    attacker.on('message', (_channel: string, message: string) => {
      const ask = JSON.parse(message) as { id: string; reply: string; userId: number };
      void publisher.publish(ask.reply, JSON.stringify({ id: ask.id, items: [planted] }));
      void publisher.publish(ask.reply, JSON.stringify({ id: ask.id, box: theirs.seal(JSON.stringify([planted]), `latest-items:${ask.id}:${ask.userId}`) }));
    });
    await attacker.subscribe(`${prefix}latest:ask`);
    const answerer = await createLatestItemsAnswerer({ redis: conn, prefix, logger: silentLogger, seal, owns: (id) => id !== 8, latestItems: () => [item] });
    const asker = await createLatestItemsAsker({ redis: conn, prefix, logger: silentLogger, seal, timeoutMs: 2_000 });
    // And asks for user 777's items on a reply channel of their own.
    const spy = conn.duplicate();
    const heard: string[] = [];
    spy.on('message', (_channel: string, message: string) => heard.push(message));
    await spy.subscribe(`${prefix}latest:reply:attacker`);
    try {
      expect(await asker.ask(7)).toEqual([item]);
      // Nobody of the cluster owns user 8: only the attacker answers, and is not believed.
      expect(await asker.ask(8)).toEqual([]);
      for (const mac of [undefined, 'x', theirs.mac('{"id":"q","reply":"' + prefix + 'latest:reply:attacker","userId":777}')]) {
        await conn.publish(`${prefix}latest:ask`, JSON.stringify({ id: 'q', reply: `${prefix}latest:reply:attacker`, userId: 777, ...(mac !== undefined && { mac }) }));
      }
      await new Promise((r) => setTimeout(r, 300));
      // Only the attacker's own plants arrived there: no worker answered, in the clear or sealed.
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.filter((m) => m.includes('"i1"'))).toEqual([]);
      const boxes = heard.map((m) => (JSON.parse(m) as { box?: string }).box).filter((b): b is string => b !== undefined);
      expect(boxes.filter((b) => seal.open(b, 'latest-items:q:777') !== undefined)).toEqual([]);
    } finally {
      attacker.disconnect();
      publisher.disconnect();
      spy.disconnect();
      await Promise.all([answerer.close(), asker.close()]);
    }
  });
});
