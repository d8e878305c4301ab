/**
 * Redis for the tests that need a real one. `REDIS_URL` wins (each suite then works under its own
 * key prefix); otherwise a private `redis-server` is started on a free port in a temporary
 * directory. With neither, the suite is skipped with one printed line saying how to run it, except
 * when `REQUIRE_REDIS=1` (CI sets it), which turns the skip into a failure.
 *
 *   const redis = await redisForTests('limiter');
 *   describe.skipIf(!redis.available)('…', () => { … });
 */
import { randomBytes } from 'node:crypto';
import { redisServerAvailable, startPrivateRedis, type PrivateRedis } from '../../src/cluster/redis-server.js';

export interface TestRedis {
  readonly available: boolean;
  /** The server's URL ('' when not available). */
  readonly url: string;
  /** A key prefix unique to this suite, for a shared REDIS_URL. */
  readonly prefix: string;
  /** The private server (undefined with REDIS_URL): restart it, kill it. */
  readonly server: PrivateRedis | undefined;
  /** Stops a private server and removes its directory. */
  dispose(): Promise<void>;
}

const HOW_TO = 'install redis-server (Debian: apt-get install redis-server) or set REDIS_URL=redis://host:port';

/**
 * Redis for one suite. `privateOnly` asks for a server of its own even when REDIS_URL is set
 * (suites that stop or restart it).
 */
export async function redisForTests(suite: string, opts: { privateOnly?: boolean } = {}): Promise<TestRedis> {
  const prefix = `bbtest:${suite}:${randomBytes(4).toString('hex')}:`;
  const sharedUrl = process.env.REDIS_URL;
  if (sharedUrl && !opts.privateOnly) {
    return { available: true, url: sharedUrl, prefix, server: undefined, dispose: async () => undefined };
  }
  if (!redisServerAvailable()) {
    const line = `[${suite}] skipped: no Redis for the tests — ${HOW_TO}`;
    if (process.env.REQUIRE_REDIS === '1') throw new Error(`${line} (REQUIRE_REDIS=1 makes this a failure)`);
    console.warn(line);
    return { available: false, url: '', prefix, server: undefined, dispose: async () => undefined };
  }
  const server = await startPrivateRedis();
  return { available: true, url: server.url, prefix, server, dispose: () => server.dispose() };
}
