import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { existsSync, readFileSync } from 'node:fs';
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

  it('never runs without a password: a client without it is refused; the password is in the URL, not on the command line', async (ctx) => {
    if (!redis.available || !redis.server) return ctx.skip();
    const url = new URL(redis.server.url);
    expect(url.password).toMatch(/^[0-9a-f]{48}$/);
    const anonymous = new Redis(`redis://127.0.0.1:${redis.server.port}`, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    anonymous.on('error', () => {});
    await anonymous.connect().catch(() => undefined);
    await expect(anonymous.get('kept')).rejects.toThrow(/NOAUTH|Authentication required/);
    anonymous.disconnect();
    const wrong = new Redis(`redis://:not-the-password@127.0.0.1:${redis.server.port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    wrong.on('error', () => {});
    await expect(wrong.connect().then(() => wrong.get('kept'))).rejects.toThrow();
    wrong.disconnect();
    const pid = redis.server.pid();
    if (pid !== undefined && existsSync(`/proc/${pid}/cmdline`)) {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(url.password);
    }
  });
});
