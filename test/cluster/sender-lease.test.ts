/**
 * The sender lease (src/cluster/sender-lease.ts) on a real Redis, with short timings: one front
 * sends at a time; a front that stops hands over at once; one cut off from Redis stops counting
 * itself the sender before another may start, and never do two count themselves the sender at once.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSenderLease, type SenderLease } from '../../src/cluster/sender-lease.js';
import { silentLogger } from '../../src/logger.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
const connections: Redis[] = [];
beforeAll(async () => {
  redis = await redisForTests('sender-lease');
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await redis.dispose();
});

async function connect(): Promise<Redis> {
  const c = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  c.on('error', () => undefined);
  await c.connect();
  connections.push(c);
  return c;
}

const TIMINGS = { ttlMs: 600, everyMs: 100, safetyMs: 150 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let run = 0;
async function front(prefix: string, name: string, changes: boolean[]): Promise<SenderLease> {
  return startSenderLease({ redis: await connect(), prefix, holder: name, logger: silentLogger, onChange: (held) => changes.push(held), timings: TIMINGS });
}

async function until(check: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!check() && Date.now() - started < ms) await sleep(5);
  return Date.now() - started;
}

describe('the sender lease', () => {
  it('one front at a time; a front that stops hands over at its peer’s next try', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}${++run}:`;
    const aChanges: boolean[] = [];
    const bChanges: boolean[] = [];
    const a = await front(prefix, 'a', aChanges);
    await until(() => a.held(), 1_000);
    const b = await front(prefix, 'b', bChanges);
    await sleep(300);
    expect(a.held()).toBe(true);
    expect(b.held()).toBe(false);
    expect(aChanges).toEqual([true]);
    expect(bChanges).toEqual([]);
    await a.stop();
    expect(aChanges).toEqual([true, false]);
    expect(await until(() => b.held(), 1_000)).toBeLessThan(TIMINGS.everyMs + 150);
    expect(bChanges).toEqual([true]);
    await b.stop();
  });

  it('a front cut off from Redis stops sending before another starts: never two at once', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}${++run}:`;
    const aConn = await connect();
    const aChanges: boolean[] = [];
    const a = startSenderLease({ redis: aConn, prefix, holder: 'a', logger: silentLogger, onChange: (held) => aChanges.push(held), timings: TIMINGS });
    await until(() => a.held(), 1_000);
    const b = await front(prefix, 'b', []);
    let both = 0;
    const sampler = setInterval(() => {
      if (a.held() && b.held()) both += 1;
    }, 5);
    try {
      aConn.disconnect();
      expect(await until(() => !a.held(), 2_000)).toBeLessThanOrEqual(TIMINGS.ttlMs);
      await until(() => b.held(), 2_000);
      expect(b.held()).toBe(true);
      expect(aChanges).toEqual([true, false]);
      expect(both).toBe(0);
    } finally {
      clearInterval(sampler);
      await a.stop();
      await b.stop();
    }
  });
});
