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
  const redis = new Redis(url, { lazyConnect: true, connectionName: name, maxRetriesPerRequest: 2 });
  let down = false;
  redis.on('error', (err) => {
    if (down) return;
    down = true;
    log.warn({ cause: describeNetworkCause(err), address: redisAddress(url) }, 'lost the connection to Redis: retrying');
  });
  redis.on('ready', () => {
    if (down) log.info('connected to Redis again');
    down = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new OperatorError('REDIS_URL', `REDIS_URL: cannot reach Redis at ${redisAddress(url)}: ${describeNetworkCause(err)}; start it, or check the address`);
  }
  return redis;
}
