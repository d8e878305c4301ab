/**
 * This process's connection to the cluster's Redis, opened before anything else so that a Redis
 * out of reach ends the start with one line naming REDIS_URL (host and port only: a password in
 * the URL is never printed). Later trouble is logged once per outage, not once per retry.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { describeNetworkCause } from '../operator/causes.js';
import { OperatorError } from '../operator/data-dir.js';

/** host:port of a redis:// URL, without user or password. */
export function redisAddress(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '6379'}`;
}

export async function connectRedis(url: string, name: string, logger: Logger): Promise<Redis> {
  const log = logger.child({ module: 'redis', connection: name });
  // Auto-pipelining: the limit checks of the reads a worker starts on one tick of its grid leave
  // in one write and come back in one read, instead of a system call and a wake each.
  const redis = new Redis(url, { lazyConnect: true, connectionName: name, maxRetriesPerRequest: 2, enableAutoPipelining: true });
  let up = false;
  let down = false;
  let lastError: unknown;
  redis.on('error', (err) => {
    lastError = err;
    // Before the first connection the start itself fails with one line; afterwards, once per outage.
    if (!up || down) return;
    down = true;
    log.warn({ cause: describeNetworkCause(err), address: redisAddress(url) }, 'lost the connection to Redis: retrying');
  });
  redis.on('ready', () => {
    if (down) log.info('connected to Redis again');
    up = true;
    down = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    // ioredis rejects with "Connection is closed"; the socket's own error says why.
    throw new OperatorError('REDIS_URL', `REDIS_URL: cannot reach Redis at ${redisAddress(url)}: ${describeNetworkCause(lastError ?? err)}; start it, or check the address`);
  }
  return redis;
}
