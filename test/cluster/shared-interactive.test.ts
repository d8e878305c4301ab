/**
 * Interactive use's share of the shared limit windows (issue 24 items 3 and 6): each process's
 * own limiter keeps interactive calls to their cap of what it sends, but three processes (fronts
 * behind a webhook) would each take that cap, so the shared window in Redis counts interactive
 * sends, and whose, itself. Three processes' lookups and key checks together get one cap, polls
 * are not held back by it, and under the address scopes one user's junk key checks or lookups
 * leave the rest of the bot's interactive budget to the other users, whichever process they reach.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ServiceError } from '../../src/service/errors.js';
import type { LimitScope } from '../../src/service/limits.js';
import { settle } from '../service/helpers.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { TestCluster, refOf, type TestProcess } from './shared-fixtures.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('shared-interactive');
});
afterAll(async () => {
  await redis.dispose();
});

const lookup = (userId?: number) => ({ priority: 'interactive', wait: false, ...(userId !== undefined && { userId }) }) as const;
const refusedLocally = (e: unknown) => e instanceof ServiceError && e.kind === 'rate_limited' && e.details.local === true;

describe('interactive use’s share across processes', () => {
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

  const three = async (limits: { scope: 'key' | 'address'; tokenScope?: 'key' | 'address' }, overrides: Parameters<TestCluster['start']>[0] = {}) => {
    sandbox = await startSandbox({ clock, seed: 5, limits });
    cluster = new TestCluster({ url: redis.url, prefix: `${redis.prefix}${++run}:`, clock, sandbox });
    const procs: TestProcess[] = [];
    for (let i = 0; i < 3; i++) procs.push(await cluster.start(overrides));
    return { sb: sandbox, procs };
  };

  /** How many of `n` acquires of `scope` in `proc` were admitted (each released at once). */
  const admitted = async (proc: TestProcess, scope: LimitScope, n: number, opts: ReturnType<typeof lookup>) => {
    let ok = 0;
    for (let i = 0; i < n; i++) {
      const permit = await proc.client.limits.acquire(scope, opts).catch((e: unknown) => {
        expect(refusedLocally(e)).toBe(true);
        return undefined;
      });
      if (!permit) continue;
      permit.release();
      ok += 1;
    }
    return ok;
  };

  it('three processes’ lookups on one key hold the 6 interactive reads a minute between them, not 18; polls still get the other 24', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, procs } = await three({ scope: 'key' });
    const scope = { kind: 'items', accessKey: sb.demoKey.accessKey, service: 'arbs_live' } as const;
    let lookups = 0;
    for (const p of procs) lookups += await admitted(p, scope, 6, lookup());
    expect(lookups).toBe(6);
    const last = await procs[2]!.client.limits.acquire(scope, lookup()).catch((e: unknown) => e);
    expect(refusedLocally(last) && String((last as Error).message)).toMatch(/left to interactive use by the bot's processes/);
    // The refusal held back interactive use only: polling's 24 go through, from any process.
    let polls = 0;
    for (let i = 0; i < 24; i++) polls += await admitted(procs[i % 3]!, scope, 1, { wait: false } as never);
    expect(polls).toBe(24);
    // A minute on, the interactive share is back.
    await clock.advance(61_000);
    expect(await admitted(procs[1]!, scope, 1, lookup())).toBe(1);
  });

  it('an interactive caller that waits, refused by the shared cap, waits for the cap’s oldest send to leave, and is admitted then', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, procs } = await three({ scope: 'key' });
    const scope = { kind: 'items', accessKey: sb.demoKey.accessKey, service: 'arbs_live' } as const;
    expect(await admitted(procs[0]!, scope, 6, lookup())).toBe(6);
    const startedAt = clock.now();
    let admittedAt: number | undefined;
    const waiting = procs[1]!.client.limits.acquire(scope, { priority: 'interactive' }).then((p) => {
      admittedAt = clock.now();
      p.release();
    });
    await settle(clock, waiting, 1_000);
    // Not before the first lookup left the shared window (a minute and its margins).
    expect(admittedAt! - startedAt).toBeGreaterThanOrEqual(60_000);
    expect(admittedAt! - startedAt).toBeLessThanOrEqual(62_000);
  });

  it('three processes’ /connect checks of one key together take the key’s interactive token share (8 an hour before its plan is known), not three times it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, procs } = await three({ scope: 'key' });
    const key = refOf(sb.demoKey);
    let checked = 0;
    for (let i = 0; i < 12; i++) {
      const p = procs[i % 3]!;
      const outcome = await settle(clock, p.client.checkKey(key, 'arbs_live', lookup()).then(() => 'ok', (e: unknown) => e), 50);
      if (outcome === 'ok') checked += 1;
      else expect(refusedLocally(outcome)).toBe(true);
    }
    expect(checked).toBe(8);
    expect(sb.counters().status['429']).toBeUndefined();
  });

  it('LIMIT_SCOPE_TOKENS=address: user X’s two junk /connects on two fronts take only X’s share; user Y’s /connect still goes through', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { sb, procs } = await three({ scope: 'key', tokenScope: 'address' }, { LIMIT_SCOPE_TOKENS: 'address' });
    const junk = (n: number) => ({ accessKey: `junk-key-${n}`, revealSecret: () => `junk-secret-${n}` });
    const check = (p: TestProcess, key: ReturnType<typeof junk>, userId: number) =>
      settle(clock, p.client.checkKey(key, 'arbs_live', lookup(userId)).then(() => 'ok', (e: unknown) => e), 50);
    // The first junk pair is sent and refused by the service (it counts the request all the same).
    expect(await check(procs[0]!, junk(1), 111)).toMatchObject({ kind: 'auth' });
    // The second, on another front, is refused before it is sent: X holds their share.
    const second = await check(procs[1]!, junk(2), 111);
    expect(second).toMatchObject({ kind: 'rate_limited', details: { local: true, share: 'user', limit: 'tokens' } });
    expect((second as ServiceError).details.retryAfterMs).toBeGreaterThan(3_500_000);
    // Y's real key, on the third front, goes through.
    expect(await check(procs[2]!, refOf(sb.demoKey), 222)).toBe('ok');
    expect(sb.counters().status['429']).toBeUndefined();
  });

  it('LIMIT_SCOPE=address: one user’s lookups across the fronts hold 3 of the host’s 6 interactive reads; another user’s lookups take the rest', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { procs } = await three({ scope: 'address' }, { LIMIT_SCOPE: 'address' });
    const scope = (accessKey: string) => ({ kind: 'items', accessKey, service: 'arbs_live' }) as const;
    let x = 0;
    for (const p of procs) x += await admitted(p, scope(`x-key`), 2, lookup(111));
    expect(x).toBe(3);
    const over = await procs[0]!.client.limits.acquire(scope('x-key'), lookup(111)).catch((e: unknown) => e);
    expect(over).toMatchObject({ kind: 'rate_limited', details: { local: true, share: 'user' } });
    let y = 0;
    for (const p of procs) y += await admitted(p, scope(`y-key`), 1, lookup(222));
    expect(y).toBe(3);
  });
});
