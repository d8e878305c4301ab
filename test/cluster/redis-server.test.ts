import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('redis-server', { privateOnly: true });
});
afterAll(async () => {
  await redis.dispose();
});

describe('a private redis-server', () => {
  it('keeps what was written across a restart (AOF)', async (ctx) => {
    if (!redis.available || !redis.server) return ctx.skip();
    const before = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await before.connect();
    expect(await before.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    await before.set('kept', 'yes');
    // appendfsync everysec: a clean stop (SIGTERM) writes the AOF out first.
    before.disconnect();
    await redis.server.restart();
    const after = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await after.connect();
    expect(await after.get('kept')).toBe('yes');
    after.disconnect();
  });
});
