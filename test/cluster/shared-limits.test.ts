/**
 * The shared limits (src/cluster/shared-limits.ts) with two and three "processes" — clients on
 * their own Redis connections, bound to their own loopback addresses — against one sandbox that
 * answers 429 to anything over its limits: not one request refused, and the budget used to at
 * least 0.9 of what a sliding window allows, under LIMIT_SCOPE=key (one budget per key, whatever
 * the address) and LIMIT_SCOPE=address (one budget per egress address, shared by the processes on it).
 * Also: a refusal to a caller that does not wait, its abort while waiting, and skewed local clocks.
 */
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SHARED_MARGIN_MS, SHARED_RELEASE_SLACK_MS, sharedScopeId, sharedWindowName } from '../../src/cluster/shared-limits.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { ServiceClientWithLimits } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import type { Permit } from '../../src/service/limits.js';
import { configFor, settle } from '../service/helpers.js';
import { createServiceClient } from '../../src/service/client.js';
import { silentLogger } from '../../src/logger.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { TestCluster, refOf } from './shared-fixtures.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('shared-limits');
});
afterAll(async () => {
  await redis.dispose();
});

const WINDOW = 60_000;
const LIMIT = 30;

/** What a sliding window of LIMIT per WINDOW allows at most in `elapsed` ms: LIMIT per started window. */
const budgetUse = (reads: number, elapsed: number) => reads / (LIMIT * (elapsed / WINDOW + 1));

describe('limits shared by processes through Redis', () => {
  let clock: ManualClock;
  let sandbox: Sandbox | undefined;
  let cluster: TestCluster | undefined;
  let run = 0;

  beforeEach(() => {
    clock = new ManualClock();
  });
  afterEach(async () => {
    await cluster?.stop();
    await sandbox?.close();
    cluster = undefined;
    sandbox = undefined;
  });

  const startAll = async (scope: 'key' | 'address') => {
    sandbox = await startSandbox({ clock, seed: 3, limits: { scope, itemsPerMinute: LIMIT } });
    cluster = new TestCluster({ url: redis.url, prefix: `${redis.prefix}${++run}:`, clock, sandbox });
    return { sb: sandbox, cl: cluster };
  };

  /** Two processes under LIMIT_SCOPE=key, the sandbox's demo key, and its arbs_live read scope. */
  const twoProcesses = async () => {
    const { sb, cl } = await startAll('key');
    const a = await cl.start();
    const b = await cl.start();
    const key = refOf(sb.demoKey);
    return { sb, a, b, key, scope: { kind: 'items', accessKey: key.accessKey, service: 'arbs_live' } as const };
  };

  /** Nothing in flight in any process (HTTP or the shared window's answer): the clock may move. */
  const idle = (clients: ServiceClientWithLimits[], accessKeys: string[]) => () =>
    clients.every((c) =>
      accessKeys.every(
        (accessKey) =>
          c.limits.budget({ kind: 'items', accessKey, service: 'arbs_live' }).inFlight === 0 &&
          c.limits.budget({ kind: 'tokens', accessKey }).inFlight === 0,
      ),
    );

  /** Reads `n` times from each of `parts` at once; resolves with when the last read of each part settled. */
  const burst = async (parts: { client: ServiceClientWithLimits; key: ReturnType<typeof refOf>; n: number }[]) => {
    const started = clock.now();
    const done = parts.map(() => started);
    const all = parts.flatMap((p, i) =>
      Array.from({ length: p.n }, () =>
        p.client.readItems(p.key, 'arbs_live', { priority: 'poll' }).finally(() => {
          done[i] = Math.max(done[i] ?? 0, clock.now());
        }),
      ),
    );
    const keys = [...new Set(parts.map((p) => p.key.accessKey))];
    const results = await settle(clock, Promise.allSettled(all), 250, idle([...new Set(parts.map((p) => p.client))], keys));
    return { results, elapsed: done.map((d) => d - started) };
  };

  it('LIMIT_SCOPE=key: two processes on two addresses share the key’s budget, 0 refused, ≥ 0.9 used', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, cl } = await startAll('key');
    const a = await cl.start({ LIMIT_SCOPE: 'key', BB_LOCAL_ADDRESS: '127.0.0.2' });
    const b = await cl.start({ LIMIT_SCOPE: 'key', BB_LOCAL_ADDRESS: '127.0.0.3' });
    const key = refOf(sb.demoKey);
    const { results, elapsed } = await burst([
      { client: a.client, key, n: 150 },
      { client: b.client, key, n: 150 },
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const counters = sb.counters();
    expect(counters.status['429']).toBeUndefined();
    expect(counters.breaches).toBe(0);
    expect(counters.byKeyHost['demo-key|/arbs-live|items']).toBe(300);
    const total = Math.max(...elapsed);
    // 300 reads at 30 a minute: nine windows at the least.
    expect(total).toBeGreaterThanOrEqual(9 * WINDOW);
    expect(budgetUse(300, total)).toBeGreaterThanOrEqual(0.9);
    // The two shared it: neither was starved.
    expect(Math.min(...elapsed)).toBeGreaterThan(4 * WINDOW);
  }, 120_000);

  it('LIMIT_SCOPE=address: each egress address has its own budget, shared by the processes on it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, cl } = await startAll('address');
    const second = { accessKey: 'second-key', secret: 'second-secret-0123456789' };
    sb.addKey(second);
    const a = await cl.start({ LIMIT_SCOPE: 'address', BB_LOCAL_ADDRESS: '127.0.0.2' });
    const b = await cl.start({ LIMIT_SCOPE: 'address', BB_LOCAL_ADDRESS: '127.0.0.2' });
    const c = await cl.start({ LIMIT_SCOPE: 'address', BB_LOCAL_ADDRESS: '127.0.0.3' });
    // Under the address scope all keys share an address's budget; a key per address lets the
    // sandbox's per-key counters show each address's reads.
    const first = refOf(sb.demoKey);
    const { results, elapsed } = await burst([
      { client: a.client, key: first, n: 105 },
      { client: b.client, key: first, n: 105 },
      { client: c.client, key: refOf(second), n: 120 },
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const counters = sb.counters();
    expect(counters.status['429']).toBeUndefined();
    expect(counters.breaches).toBe(0);
    expect(counters.byKeyHost['demo-key|/arbs-live|items']).toBe(210);
    expect(counters.byKeyHost['second-key|/arbs-live|items']).toBe(120);
    const onSecond = Math.max(elapsed[0] ?? 0, elapsed[1] ?? 0);
    const onThird = elapsed[2] ?? 0;
    // 127.0.0.2: 210 reads, seven windows' worth; 127.0.0.3: 120, four — side by side, not one after the other.
    expect(onSecond).toBeGreaterThanOrEqual(6 * WINDOW);
    expect(onThird).toBeGreaterThanOrEqual(3 * WINDOW);
    expect(onThird).toBeLessThan(4 * WINDOW);
    expect(budgetUse(210, onSecond)).toBeGreaterThanOrEqual(0.9);
    expect(budgetUse(120, onThird)).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  it('tells the scheduler how long a read counts: the shared window’s margin and slack on top of the minute', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a } = await twoProcesses();
    // The scheduler paces each scope by it (read-pace.ts): 30 reads in 60.1 s would meet this window full.
    expect(a.client.itemWindowMs).toBe(60_000 + SHARED_MARGIN_MS + SHARED_RELEASE_SLACK_MS);
    expect(a.client.limits.itemWindowMs).toBe(a.client.itemWindowMs);
    const alone = createServiceClient({ config: configFor(sandbox!.origin, { DATA_DIR: tmpdir() }), logger: silentLogger, clock });
    expect(alone.itemWindowMs).toBe(60_100);
    await alone.close();
  });

  it('names the egress address in address-counted scopes only', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { cl } = await startAll('address');
    const byAddress = await cl.start({ LIMIT_SCOPE: 'address', LIMIT_SCOPE_TOKENS: 'key' });
    const limits = byAddress.client.limits;
    const items = { kind: 'items', accessKey: 'k', service: 'arbs_live' } as const;
    expect(sharedScopeId(limits, items, '127.0.0.2')).not.toBe(sharedScopeId(limits, items, '127.0.0.3'));
    expect(sharedScopeId(limits, { kind: 'tokens', accessKey: 'k' }, '127.0.0.2')).toBe(
      sharedScopeId(limits, { kind: 'tokens', accessKey: 'k' }, '127.0.0.3'),
    );
    // Dictionaries: one budget for the whole bot.
    expect(sharedScopeId(limits, { kind: 'dicts' }, '127.0.0.2')).toBe(sharedScopeId(limits, { kind: 'dicts' }, '127.0.0.3'));
    const byKey = await cl.start({ LIMIT_SCOPE: 'key' });
    expect(sharedScopeId(byKey.client.limits, items, '127.0.0.2')).toBe(sharedScopeId(byKey.client.limits, items, '127.0.0.3'));
  });

  it('refuses a caller that does not wait at once (nothing sent), pauses the scope, and lets a waiting caller abort', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, a, b, key, scope } = await twoProcesses();
    // A fills the shared window.
    const permits = [];
    for (let i = 0; i < LIMIT; i++) permits.push(await a.client.limits.acquire(scope));
    for (const p of permits) p.release();
    await clock.advance(10_000);
    // B's own window is empty, but the shared one is full.
    expect(b.client.limits.budget(scope).used).toBe(0);
    const refused = await b.client.limits.acquire(scope, { wait: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true, limit: 'items' } });
    const retryAfter = (refused as ServiceError).details.retryAfterMs ?? 0;
    // The window, its margin and its slack, less the 10 s since.
    expect(retryAfter).toBeGreaterThan(49_000);
    expect(retryAfter).toBeLessThanOrEqual(50_000 + SHARED_MARGIN_MS + SHARED_RELEASE_SLACK_MS);
    // The permit went back and the scope is paused: the scheduler's plan sees it.
    expect(b.client.limits.budget(scope).used).toBe(0);
    expect(b.client.limits.budget(scope).left).toBe(0);
    expect(b.client.limits.readsLeft(key.accessKey, 'arbs_live')).toBe(0);
    expect(b.client.pollFreeInMs?.(key.accessKey, 'arbs_live')).toBeGreaterThan(49_000);
    // A waiting caller waits out the pause, and may give up meanwhile.
    const abort = new AbortController();
    const waiting = b.client.limits.acquire(scope, { signal: abort.signal });
    await clock.advance(5_000);
    abort.abort(new Error('the user left'));
    await expect(waiting).rejects.toThrow('the user left');
    // After the pause, it fits.
    await clock.advance(retryAfter);
    const permit = await b.client.limits.acquire(scope, { wait: false });
    permit.release();
    expect(sb.counters().status['429']).toBeUndefined();
  });

  it('a lookup in one process gets the next slot of a scope that another process polls at full pace', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, cl } = await startAll('key');
    const worker = await cl.start();
    // The front's own clock, so that the race below is decided by the order the test gives it.
    const frontClock = new ManualClock(clock.now());
    const front = await cl.start({}, { localClock: frontClock });
    const key = refOf(sb.demoKey);
    const scope = { kind: 'items', accessKey: key.accessKey, service: 'arbs_live' } as const;
    // The worker's polls fill the shared window, a second apart.
    for (let i = 0; i < LIMIT; i++) {
      (await worker.client.limits.acquire(scope, { wait: false })).release();
      await clock.advance(1_000);
    }
    // A second before the oldest poll leaves, a user's /item on the front (as lookups ask: not
    // waiting, but for one slot at most): the window is full, so it waits for that slot.
    await clock.advance(WINDOW - LIMIT * 1_000 - 1_000);
    await frontClock.advance(clock.now() - frontClock.now());
    let permit: Permit | undefined;
    const lookup = front.client.limits.acquire(scope, { priority: 'interactive', wait: false }).then((p) => (permit = p));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(permit).toBeUndefined();
    // The oldest poll leaves the window: the worker, polling at full pace, asks first, and is told to wait.
    // (500 ms past it, within the lookup's mark of LOOKUP_MARK_SLACK_MS: each poll was written on
    // Redis's clock the real ms of its round trip after it asked, which a busy machine makes hundreds.)
    await clock.advance(1_000 + SHARED_MARGIN_MS + SHARED_RELEASE_SLACK_MS + 500);
    const poll = await worker.client.limits.acquire(scope, { wait: false }).catch((e: unknown) => e);
    expect(poll).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    // The lookup, back from its wait, takes the slot. Its clock never runs past the shared one: a busy
    // machine's slow Redis round trip must not count as the lookup's own wait.
    await settle(frontClock, lookup, 50, () => frontClock.now() + 50 <= clock.now());
    expect(permit).toBeDefined();
    permit?.release();
    expect(sb.counters().status['429']).toBeUndefined();
  });

  it('a 429 from the service pauses the scope in every process: the others send nothing until it ends', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, a, b, key, scope } = await twoProcesses();
    // Someone else with the same key (another bot, a script) uses up the service's window behind our backs.
    const outsider = createServiceClient({ config: configFor(sb.origin, { DATA_DIR: tmpdir() }), logger: silentLogger, clock, random: () => 0.5 });
    try {
      const outsiderReads = Array.from({ length: LIMIT }, () => outsider.readItems(key, 'arbs_live', { priority: 'poll' }));
      await settle(clock, Promise.allSettled(outsiderReads), 250, () => outsider.limits.budget(scope).inFlight === 0);
    } finally {
      await outsider.close();
    }
    const before = sb.counters().status['429'] ?? 0;
    // A reads: the service says 429 with its Retry-After; A pauses.
    const first = await settle(clock, a.client.readItems(key, 'arbs_live', { priority: 'poll', wait: false }).catch((e: unknown) => e), 50, idle([a.client], [key.accessKey]));
    expect(first).toMatchObject({ kind: 'rate_limited' });
    expect(sb.counters().status['429']).toBe(before + 1);
    // The pause is written in the background: wait until Redis has it.
    for (let i = 0; i < 200 && (await a.redis.keys(`${cluster!.prefix}limit-pause:*`)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // B has sent nothing in this scope and its own window is empty; the shared pause refuses it anyway, locally.
    expect(b.client.limits.budget(scope).used).toBe(0);
    const refused = await b.client.limits.acquire(scope, { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    const pauseMs = (refused as ServiceError).details.retryAfterMs ?? 0;
    expect(pauseMs).toBeGreaterThan(1_000);
    expect(b.client.pollFreeInMs?.(key.accessKey, 'arbs_live')).toBeGreaterThan(1_000);
    expect(sb.counters().status['429']).toBe(before + 1);
    // Once the pause is over, B may send again. Redis's clock here is the ManualClock plus the real
    // latency of each script call (the offset is taken before the call, TIME read during it), so
    // the refusal's pauseMs is short by that call's latency: a busy machine's tens of ms, not 1.
    await clock.advance(pauseMs + 250);
    const permit = await b.client.limits.acquire(scope, { wait: false });
    permit.cancel();
  });

  it('counts a slow answer’s send from the answer; a fast one from its admission, without a second round trip', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await startAll('key');
    const a = await cluster!.start();
    const b = await cluster!.start();
    const scope = { kind: 'items', accessKey: 'slow-key', service: 'arbs_live' } as const;
    const windowKey = `${redis.prefix}${run}:limit:${sharedWindowName('items', sharedScopeId(a.client.limits, scope, undefined))}`;
    const started = clock.now();
    for (let i = 0; i < LIMIT / 2; i++) (await a.client.limits.acquire(scope)).release();
    const slow = [];
    for (let i = 0; i < LIMIT / 2; i++) slow.push(await a.client.limits.acquire(scope));
    await clock.advance(5_000);
    for (const p of slow) p.release();
    // The releases go out on a's connection, in order: they have landed when a ping answers.
    await a.redis.ping();
    const scores = (await a.redis.zrange(windowKey, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map((t) => Number(t) - started);
    expect(scores.filter((t) => t < 1_000)).toHaveLength(LIMIT / 2);
    expect(scores.filter((t) => t >= 5_000 && t < 6_000)).toHaveLength(LIMIT / 2);
    // A window (with its margin and slack) after the start, the fast half has left; the slow half stays 5 s more.
    await clock.advance(WINDOW - 5_000 + SHARED_MARGIN_MS + SHARED_RELEASE_SLACK_MS + 50);
    for (let i = 0; i < LIMIT / 2; i++) (await b.client.limits.acquire(scope, { wait: false })).release();
    const refused = await b.client.limits.acquire(scope, { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    expect((refused as ServiceError).details.retryAfterMs).toBeGreaterThan(4_800);
    expect((refused as ServiceError).details.retryAfterMs).toBeLessThanOrEqual(5_000);
  });

  it('processes whose clocks are an hour apart keep one window: only Redis’s clock counts', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb } = await startAll('key');
    // A second "machine" an hour ahead: its own clock, the same Redis.
    const ahead = new ManualClock(clock.now() + 3_600_000);
    const a = await cluster!.start();
    const b = await cluster!.start({}, { localClock: ahead });
    const scope = { kind: 'items', accessKey: 'skew-key', service: 'arbs_live' } as const;
    for (let i = 0; i < LIMIT / 2; i++) (await a.client.limits.acquire(scope)).release();
    for (let i = 0; i < LIMIT / 2; i++) (await b.client.limits.acquire(scope)).release();
    expect(sb.counters().status['429']).toBeUndefined();
    // Both see the one window full, and agree on when its oldest send leaves.
    const refusals = await Promise.all([a, b].map((p) => p.client.limits.acquire(scope, { wait: false }).catch((e: unknown) => e)));
    for (const r of refusals) {
      expect(r).toMatchObject({ kind: 'rate_limited', details: { local: true } });
      expect((r as ServiceError).details.retryAfterMs).toBeGreaterThan(WINDOW - 1_000);
      expect((r as ServiceError).details.retryAfterMs).toBeLessThanOrEqual(WINDOW + SHARED_MARGIN_MS + SHARED_RELEASE_SLACK_MS);
    }
    // A minute later (on either clock), both fit again.
    await clock.advance(WINDOW + 400);
    await ahead.advance(WINDOW + 400);
    (await a.client.limits.acquire(scope, { wait: false })).release();
    (await b.client.limits.acquire(scope, { wait: false })).release();
  });
});
