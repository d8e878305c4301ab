/**
 * A Redis out of reach ends a cluster role's start with one line naming REDIS_URL, and never its
 * password; a connection that is up sends what one turn of the event loop asked for in one write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, redisAddress } from '../../src/cluster/connect.js';
import { createLimitWindows } from '../../src/cluster/limit-window.js';
import { silentLogger } from '../../src/logger.js';
import { describeStartupError } from '../../src/operator/startup-errors.js';
import { freePort } from '../support/ports.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('connect');
});
afterAll(async () => {
  await redis.dispose();
});

describe('the connection to the cluster’s Redis', () => {
  it('refuses the start with one line naming REDIS_URL, host and port only', async () => {
    const port = await freePort();
    const url = `redis://:s3cret-pass@127.0.0.1:${port}`;
    const err = await connectRedis(url, 'bb-test', silentLogger).then(
      () => undefined,
      (e: unknown) => e,
    );
    const line = describeStartupError(err, { TELEGRAM_API_ROOT: 'x', DATA_DIR: 'x', TELEGRAM_WEBHOOK_URL: undefined });
    expect(line).toBe(`REDIS_URL: cannot reach Redis at 127.0.0.1:${port}: the connection was refused (ECONNREFUSED); start it, or check the address`);
    expect(line).not.toContain('s3cret');
  });

  it('names the address without user or password, with the default port', () => {
    expect(redisAddress('rediss://user:pw@redis.example:6380/2')).toBe('redis.example:6380');
    expect(redisAddress('redis://10.0.0.5')).toBe('10.0.0.5:6379');
  });

  it('sends the limit checks of reads started on one tick in one write, and each gets its own answer', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const conn = await connectRedis(redis.url, 'bb-test', silentLogger);
    try {
      const windows = createLimitWindows(conn, { prefix: redis.prefix });
      // The first call loads the script on the connection (EVAL); what is measured is the steady state.
      await windows.acquire('warm', 10, 60_000);
      let writes = 0;
      const write = conn.stream.write.bind(conn.stream);
      conn.stream.write = ((...args: Parameters<typeof write>) => {
        writes += 1;
        return write(...args);
      }) as typeof conn.stream.write;
      const verdicts = await Promise.all(Array.from({ length: 6 }, () => windows.acquire('tick', 4, 60_000)));
      expect(writes).toBe(1);
      expect(verdicts.map((v) => v.ok)).toEqual([true, true, true, true, false, false]);
      expect(verdicts.map((v) => v.used)).toEqual([1, 2, 3, 4, 4, 4]);
    } finally {
      conn.disconnect();
    }
  });
});
