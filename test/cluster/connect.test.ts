/** A Redis out of reach ends a cluster role's start with one line naming REDIS_URL, and never its password. */
import { describe, expect, it } from 'vitest';
import { connectRedis, redisAddress } from '../../src/cluster/connect.js';
import { silentLogger } from '../../src/logger.js';
import { describeStartupError } from '../../src/operator/startup-errors.js';
import { freePort } from '../support/ports.js';

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
});
