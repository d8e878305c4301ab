/**
 * Poll allotments (src/cluster/poll-allotments.ts, poll-allotment-store.ts): the process that alone
 * polls a scope admits most of its reads without a script, and whatever moves — a holder that lets
 * go when its users move, one that dies, Redis that loses the claim, another process's 429, a
 * claim made over the claimant's own earlier reads — the sandbox, which answers 429 to anything
 * over its limit, never has to.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Redis } from 'ioredis';
import { createLimitWindows } from '../../src/cluster/limit-window.js';
import { createAllotmentStore } from '../../src/cluster/poll-allotment-store.js';
import { ALLOTMENT_CLAIM_RETRY_MS, ALLOTMENT_KEEP_MS, ALLOTMENT_LOCAL_MS, ALLOTMENT_RENEW_MS } from '../../src/cluster/poll-allotments.js';
import { sharedScopeId, sharedWindowName } from '../../src/cluster/shared-limits.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { ServiceClientWithLimits } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import { settle } from '../service/helpers.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { TestCluster, refOf, type TestProcess } from './shared-fixtures.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('poll-allotments');
});
afterAll(async () => {
  await redis.dispose();
});

const WINDOW = 60_000;
const LIMIT = 30;
/** The lookups' part of a minute's 30 reads (a fifth): the rest is the poller's to keep. */
const SHARE = 24;

describe('poll allotments', () => {
  let clock: ManualClock;
  let sandbox: Sandbox;
  let cluster: TestCluster;
  let run = 0;

  beforeEach(async () => {
    clock = new ManualClock();
    sandbox = await startSandbox({ clock, seed: 5, limits: { scope: 'key', itemsPerMinute: LIMIT } });
    cluster = new TestCluster({ url: redis.url, prefix: `${redis.prefix}${++run}:`, clock, sandbox });
  });
  afterEach(async () => {
    await cluster.stop();
    await sandbox.close();
  });

  const key = () => refOf(sandbox.demoKey);
  const scope = () => ({ kind: 'items', accessKey: sandbox.demoKey.accessKey, service: 'arbs_live' }) as const;
  const name = (p: TestProcess) => sharedWindowName('items', sharedScopeId(p.client.limits, scope(), undefined));
  const holderKey = (p: TestProcess) => `${cluster.prefix}limit-own:${name(p)}`;
  const windowKey = (p: TestProcess) => `${cluster.prefix}limit:${name(p)}`;
  const idle = (clients: ServiceClientWithLimits[]) => () => clients.every((c) => c.limits.budget(scope()).inFlight === 0);
  const noRefusals = () => {
    const counters = sandbox.counters();
    expect(counters.status['429']).toBeUndefined();
    expect(counters.breaches).toBe(0);
  };

  /** `n` polls of the demo key, waiting for room as the scheduler's reads do; resolves with when the last settled. */
  const poll = async (p: TestProcess, n: number, others: TestProcess[] = []) => {
    const started = clock.now();
    const reads = Array.from({ length: n }, () => p.client.readItems(key(), 'arbs_live', { priority: 'poll' }));
    const results = await settle(clock, Promise.allSettled(reads), 250, idle([p, ...others].map((x) => x.client)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    return clock.now() - started;
  };

  /** Real time for what is on its way to Redis and back (a claim's answer, a channel's message). */
  const until = async (what: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 300 && !(await what()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await what()).toBe(true);
  };

  it('the one process polling a scope admits most reads on its own, leaving the lookups’ part to the window', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const worker = await cluster.start();
    const front = await cluster.start();
    const elapsed = await poll(worker, 120, [front]);
    noRefusals();
    expect(sandbox.counters().byKeyHost['demo-key|/arbs-live|items']).toBe(120);
    // Four windows' reads in about four windows: the allotment costs no pace.
    expect(elapsed).toBeLessThan(4 * WINDOW + 5_000);
    const stats = worker.client.limits.allotments?.();
    expect(stats?.held).toBe(1);
    // The first reads asked the window before the claim came back; then 24 of each 30 were local.
    expect(stats?.local).toBeGreaterThanOrEqual(85);
    expect(await worker.redis.get(holderKey(worker))).toMatch(/ 24$/);
    // The window holds only what the worker read beyond its share, so a user's lookups on the front still fit.
    expect(await worker.redis.zcard(windowKey(worker))).toBeLessThanOrEqual(LIMIT - SHARE);
    noRefusals();
  }, 60_000);

  it('a lookup on another process gets a slot within two of the poller’s reads: the holder lends it one of its share', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const worker = await cluster.start();
    const front = await cluster.start();
    // The worker polls at the limit's pace, as the scheduler does (one read every 60.35 s / 30, not
    // waiting when refused); users ask on the front meanwhile, a minute and more into it.
    const started = clock.now();
    const paceMs = Math.ceil(worker.client.limits.itemWindowMs / LIMIT);
    const polls: Promise<unknown>[] = [];
    let refusedPolls = 0;
    const waits: number[] = [];
    const shares: (string | null)[] = [];
    const asked: Promise<unknown>[] = [];
    let nextPoll = started;
    let nextLookup = started + 100_000;
    while (clock.now() < started + 200_000) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (clock.now() >= nextPoll) {
        nextPoll += paceMs;
        polls.push(worker.client.readItems(key(), 'arbs_live', { priority: 'poll', wait: false }).catch(() => (refusedPolls += 1)));
      }
      if (clock.now() >= nextLookup && asked.length < 3) {
        nextLookup += 31_000;
        const at = clock.now();
        asked.push(
          front.client
            .readItems(key(), 'arbs_live', { priority: 'interactive', wait: false, userId: 7 })
            .then(async () => {
              waits.push(clock.now() - at);
              shares.push(await front.redis.get(holderKey(front)));
            }),
        );
      }
      // Small steps while a lookup waits: the holder hears of it and lends in real time, while the test's clock moves.
      if (idle([worker.client, front.client])()) await clock.advance(waits.length < asked.length ? 20 : 250);
    }
    await Promise.all(polls);
    await Promise.all(asked);
    noRefusals();
    expect(waits).toHaveLength(3);
    // Without the loan a lookup would wait for the window's part, up to most of a minute (and be refused).
    for (const w of waits) expect(w).toBeLessThanOrEqual(4_500);
    // The polls kept their pace, less the slots the lookups took.
    expect(polls.length - refusedPolls).toBeGreaterThanOrEqual(polls.length - 6);
    expect(worker.client.limits.allotments?.().held).toBe(1);
    expect(worker.client.limits.allotments?.().local).toBeGreaterThan(polls.length / 2);
    // The slots lent are taken back once no lookup waits: the window's part is the lookups' cap again.
    // A lookup that found the window's part full took a slot the worker lent: its share in Redis was one less just after.
    expect(shares.some((share) => / 23$/.test(share ?? ''))).toBe(true);
    const restored = async () => (await worker.redis.get(holderKey(worker)))?.endsWith(' 24') === true;
    for (let i = 0; i < 60 && !(await restored()); i++) {
      await clock.advance(ALLOTMENT_RENEW_MS);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await restored()).toBe(true);
  }, 120_000);

  it('hands the share over when the users move: the new poller is told nothing is left only for a few seconds', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const before = await cluster.start();
    const after = await cluster.start();
    await poll(before, 45);
    expect(before.client.limits.allotments?.().held).toBe(1);
    // The bucket moves: `before` polls no more, `after` polls at the limit's pace.
    const elapsed = await poll(after, 90, [before]);
    noRefusals();
    expect(sandbox.counters().byKeyHost['demo-key|/arbs-live|items']).toBe(135);
    // 90 reads at 30 a window take three windows; a share held on by the old poller would take nine.
    expect(elapsed).toBeLessThan(3.5 * WINDOW);
    expect(before.client.limits.allotments?.().held).toBe(0);
    expect(after.client.limits.allotments?.().held).toBe(1);
  }, 60_000);

  it('a holder that died keeps its share until its claim lapses: the next poller reads the window’s part meanwhile, then takes it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const p = await cluster.start();
    // A holder that renews no more (killed): it stays alive in Redis a window after its last renewal.
    const alive = `${cluster.prefix}limit-alive:gone-worker`;
    await p.redis.set(holderKey(p), 'gone-worker 24', 'PX', 3_600_000);
    await p.redis.set(alive, '1', 'PX', ALLOTMENT_LOCAL_MS + WINDOW + 350);
    const started = clock.now();
    const reads = Array.from({ length: 12 }, () => p.client.readItems(key(), 'arbs_live', { priority: 'poll' }));
    await settle(clock, Promise.allSettled(reads), 250, idle([p.client]));
    noRefusals();
    // Six reads a window while the dead holder's share may still count: the first window gets six only.
    expect(clock.now() - started).toBeGreaterThan(WINDOW);
    expect(p.client.limits.allotments?.().held).toBe(0);
    // It is alive no more (Redis expires the key on its real clock, which the test's does not move), and the poller takes the share.
    await p.redis.del(alive);
    await clock.advance(ALLOTMENT_CLAIM_RETRY_MS);
    await poll(p, 30);
    noRefusals();
    expect(p.client.limits.allotments?.().held).toBe(1);
    expect(await p.redis.get(holderKey(p))).not.toMatch(/^gone-worker/);
  }, 60_000);

  it('a claim counts the claimant’s own reads beyond the window’s part as its share’s; another process’s polls keep it from claiming', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const conn = new Redis(redis.url);
    try {
      const prefix = `${cluster.prefix}store:`;
      const windows = createLimitWindows(conn, { prefix, clockOffsetMs: () => clock.now() - Date.now() });
      const store = createAllotmentStore(conn, { prefix, instance: windows.instance, clockOffsetMs: () => clock.now() - Date.now() });
      const claim = { windowKey: windows.keyOf('s1'), scope: 's1', share: SHARE, limit: LIMIT, windowMs: WINDOW, holdMs: 70_000 };
      for (let i = 0; i < LIMIT; i++) {
        expect((await windows.acquire('s1', LIMIT, WINDOW)).ok).toBe(true);
        await clock.advance(1_000);
      }
      const taken = await store.claim(claim);
      // 30 reads in the window, 6 of them the window's part: the 24 oldest count against the share.
      expect(taken.ok).toBe(true);
      const ages = taken.ok ? taken.ages : [];
      expect(ages).toHaveLength(SHARE);
      expect(Math.min(...ages)).toBeGreaterThanOrEqual(6_000);
      expect(Math.max(...ages)).toBeLessThanOrEqual(LIMIT * 1_000 + 100);
      // The window now admits only its part, already used: nothing fits anywhere.
      expect((await windows.acquire('s1', LIMIT, WINDOW)).ok).toBe(false);
      // Let go (nothing sent on its own since): its 30 polls leave the window for the sends given back, once each.
      await store.release('s1', claim.windowKey, WINDOW, []);
      expect(await conn.zcard(`${prefix}limit-given:s1`)).toBe(LIMIT);
      expect(await conn.zcard(windows.keyOf('s1'))).toBe(0);
      expect(await conn.get(`${prefix}limit-own:s1`)).toBeNull();
      // Not held, the window counts them: still full.
      expect((await windows.acquire('s1', LIMIT, WINDOW)).ok).toBe(false);
      // The next holder counts 24 of them against its share, and the window's part still counts all 30.
      const next = await store.claim(claim);
      expect(next.ok && next.ages.length).toBe(SHARE);
      expect((await windows.acquire('s1', LIMIT, WINDOW)).ok).toBe(false);
      // A scope another process polls is not claimed (its polls stay in the window).
      const other = createLimitWindows(conn, { prefix, clockOffsetMs: () => clock.now() - Date.now() });
      expect((await other.acquire('s2', LIMIT, WINDOW)).ok).toBe(true);
      expect(await store.claim({ ...claim, windowKey: windows.keyOf('s2'), scope: 's2' })).toEqual({ ok: false, why: 'shared' });
    } finally {
      conn.disconnect();
    }
  });

  it('a 429 another process got pauses the holder’s own admissions too', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const worker = await cluster.start();
    const front = await cluster.start();
    await poll(worker, 10);
    expect(worker.client.limits.allotments?.().held).toBe(1);
    // Listening from its first claim on (a pause told before that is missed: the holder then meets the 429 itself).
    await until(async () => ((await worker.redis.pubsub('NUMSUB', `${cluster.prefix}limit-allotments`)) as [string, number])[1] === 1);
    // The front's lookup got a 429 (someone outside the bot used the key): it shares the pause.
    front.client.limits.failed(scope(), new ServiceError('rate_limited', 'HTTP 429', { status: 429, retryAfterMs: 20_000 }));
    await until(() => worker.client.limits.budget(scope()).pausedForMs > 15_000);
    const refused = await worker.client.limits.acquire(scope(), { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    await clock.advance(20_000);
    (await worker.client.limits.acquire(scope(), { wait: false })).release();
  });

  it('renews one key a round whatever it holds; a claim Redis lost is set again when the keys are kept', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const p = await cluster.start();
    await poll(p, 10);
    expect(p.client.limits.allotments?.().held).toBe(1);
    const alive = `${cluster.prefix}limit-alive:`;
    expect(await p.redis.keys(`${alive}*`)).toHaveLength(1);
    await p.redis.del(holderKey(p));
    // Each round renews the alive key; every ALLOTMENT_KEEP_MS they keep the holder keys too.
    for (let i = 0; i < 2 * (ALLOTMENT_KEEP_MS / ALLOTMENT_RENEW_MS) && (await p.redis.get(holderKey(p))) === null; i++) {
      await clock.advance(ALLOTMENT_RENEW_MS);
      await p.redis.ping();
      // A poll now and then, as a worker's reads come: an idle scope is let go.
      if (i % 10 === 0) (await p.client.limits.acquire(scope(), { wait: false }).catch(() => undefined))?.release();
    }
    expect(await p.redis.get(holderKey(p))).toMatch(/ 24$/);
  });

  it('lets go when closed, giving back the reads it still counts', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const p = await cluster.start();
    await poll(p, 20);
    const local = p.client.limits.allotments?.().local ?? 0;
    expect(local).toBeGreaterThan(10);
    const q = await cluster.start();
    await p.client.close();
    expect(await q.redis.get(holderKey(q))).toBeNull();
    // Every read p made in this window is counted again, outside any share.
    expect(await q.redis.zcard(`${cluster.prefix}limit-given:${name(q)}`)).toBe(20);
    expect(await q.redis.zcard(windowKey(q))).toBe(0);
  });
});
