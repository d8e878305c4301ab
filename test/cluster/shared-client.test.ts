/**
 * The clustered client as the roles build it (createSharedServiceClient), on a private Redis that
 * the test stops and starts: two processes asking for one key's token at once send one request;
 * the hour of token requests outlives a process (it is the tokens window in Redis); with Redis down every call fails as a transient error the scheduler backs off from (nothing
 * sent, no slot kept, no crash), and after the restart (scripts gone from Redis's cache, windows
 * back from the AOF) the same clients carry on.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { classifyFailure, tokenAttempt } from '../../src/scheduler/read-outcome.js';
import { ServiceError } from '../../src/service/errors.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { TestCluster, refOf } from './shared-fixtures.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('shared-client', { privateOnly: true });
});
afterAll(async () => {
  await redis.dispose();
});

describe('the clustered service client', () => {
  let clock: ManualClock;
  let sandbox: Sandbox;
  let cluster: TestCluster;
  let run = 0;

  beforeEach(async () => {
    clock = new ManualClock();
    sandbox = await startSandbox({ clock, seed: 9, limits: { itemsPerMinute: 1_000 } });
    cluster = new TestCluster({ url: redis.url, prefix: `${redis.prefix}${++run}:`, clock, sandbox });
  });
  afterEach(async () => {
    await cluster.stop();
    await sandbox.close();
  });

  it('two processes reading with one key at once send one token request', async (ctx) => {
    if (!redis.available) return ctx.skip();
    sandbox.setFaults({ latencyMs: 100 });
    const [a, b] = [await cluster.start(), await cluster.start()];
    const key = refOf(sandbox.demoKey);
    const reads = await Promise.all([a, b, a, b].map((p) => p.client.readItems(key, 'arbs_live')));
    expect(reads).toHaveLength(4);
    expect(sandbox.counters().requests['token']).toBe(1);
    expect(a.client.hasValidToken(key.accessKey, 'arbs_live') && b.client.hasValidToken(key.accessKey, 'arbs_live')).toBe(true);
  });

  it('keeps the hour of token requests across a process restart: the tokens window lives in Redis', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const settings = { LIMIT_TOKENS_PER_HOUR: 3 };
    const key = refOf(sandbox.demoKey);
    const first = await cluster.start(settings);
    for (let i = 0; i < 3; i++) await first.client.checkKey(key, 'arbs_live', { wait: false });
    await first.client.close();
    // A new process (a restart, or another worker) an hour's third later: no fresh hour for it.
    await clock.advance(20 * 60_000);
    const second = await cluster.start(settings);
    expect(second.client.budget(key.accessKey, 'arbs_live').tokensLeft).toBe(3);
    const refused = await second.client.checkKey(key, 'arbs_live', { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true, limit: 'tokens' } });
    expect((refused as ServiceError).details.retryAfterMs).toBeGreaterThan(39 * 60_000);
    expect(second.client.budget(key.accessKey, 'arbs_live').tokensLeft).toBe(0);
    expect(sandbox.counters().requests['token']).toBe(3);
  });

  it('fails as transient while Redis is down, and carries on after it restarts', async (ctx) => {
    if (!redis.available || !redis.server) return ctx.skip();
    const options = { LIMIT_ITEMS_PER_MINUTE: 1_000 };
    // ioredis's own defaults (reconnecting, commands queued meanwhile): the bound is the client's.
    const [a, b] = [
      await cluster.start(options, { redis: { maxRetriesPerRequest: 20 }, redisTimeoutMs: 300 }),
      await cluster.start(options, { redis: { maxRetriesPerRequest: 20 }, redisTimeoutMs: 300 }),
    ];
    const key = refOf(sandbox.demoKey);
    const poll = { wait: false, priority: 'poll' } as const;
    await a.client.readItems(key, 'arbs_live', poll);
    await b.client.readItems(key, 'valuebets_live', poll);
    const scope = { kind: 'items', accessKey: key.accessKey, service: 'arbs_live' } as const;
    const usedBefore = a.client.limits.budget(scope).used;

    await redis.server.stop();
    const failures = await Promise.all(
      [a, b, a, b].map((p, i) => p.client.readItems(key, i % 2 ? 'valuebets_live' : 'arbs_live', poll).then(() => 'read', (err: unknown) => err)),
    );
    for (const err of failures) {
      expect(err).toBeInstanceOf(ServiceError);
      const e = err as ServiceError;
      expect(e.kind).toBe('timeout');
      expect(e.transient).toBe(true);
      expect(e.message).toMatch(/Redis is unavailable .*nothing was sent/);
      // What the scheduler makes of it: this subscription backs off, as after any network failure.
      expect(classifyFailure(e, { failures: 0, floorMs: 2_000, backoffBaseMs: 1_000, backoffMaxMs: 60_000, random: () => 0.5 })).toMatchObject({
        kind: 'backoff',
        errorKind: 'timeout',
        unexpected: false,
      });
      expect(tokenAttempt(e, false, true)).toBe('kept');
    }
    // No slot is held by the calls that failed.
    expect(a.client.limits.budget(scope)).toMatchObject({ used: usedBefore, inFlight: 0 });
    // A call that needs a token fails the same way.
    const fresh = await a.client.readItems(key, 'middles_live', poll).catch((err: unknown) => err);
    expect(fresh).toMatchObject({ kind: 'timeout' });

    await redis.server.restart();
    const after = await Promise.all([a, b].map((p) => p.client.readItems(key, 'arbs_live', poll)));
    expect(after).toHaveLength(2);
    expect(await a.client.readItems(key, 'middles_live', poll)).toBeDefined();
    // The window written before the restart came back from the AOF.
    const windows = await a.redis.keys(`${redis.prefix}${run}:limit:items:*`);
    expect(windows.length).toBeGreaterThan(0);
    expect(sandbox.counters().status['429']).toBeUndefined();
  }, 30_000);
});
