/**
 * The shared sliding-window log (src/cluster/limit-window.ts) on a real Redis, its clock moved by
 * the scripts' offset argument: a limit reached exactly, the refusal's retryAfter to the
 * millisecond, the window sliding, release and cancel, the key's expiry, two connections racing,
 * and two callers whose own clocks disagree by hours.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLimitWindows, type LimitWindows } from '../../src/cluster/limit-window.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
const connections: Redis[] = [];
beforeAll(async () => {
  redis = await redisForTests('limit-window');
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await redis.dispose();
});

async function connect(): Promise<Redis> {
  const c = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await c.connect();
  connections.push(c);
  return c;
}

/** Redis's own clock in ms. */
async function redisNow(c: Redis): Promise<number> {
  const [s, us] = await c.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

let scopeSeq = 0;
const freshScope = () => `test-${++scopeSeq}`;

describe('the shared sliding-window log', () => {
  let conn: Redis;
  let offset: number;
  let windows: LimitWindows;
  const WINDOW = 60_000;

  beforeAll(async () => {
    conn = await connect();
  });
  afterEach(() => vi.useRealTimers());

  const make = async () => {
    offset = 0;
    windows = createLimitWindows(await connect(), { prefix: redis.prefix, clockOffsetMs: () => offset });
    return windows;
  };

  it('admits exactly `limit` sends, then refuses until the oldest has left, to the millisecond', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const scope = freshScope();
    const verdicts = [];
    // A second apart on Redis's clock.
    for (let i = 0; i < 3; i++) {
      offset = i * 1_000;
      verdicts.push(await w.acquire(scope, 3, WINDOW));
    }
    expect(verdicts.map((v) => [v.ok, v.used])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
    ]);
    const [oldestMember, oldestScore] = await conn.zrange(w.keyOf(scope), 0, 0, 'WITHSCORES');
    expect(oldestMember).toBeDefined();
    // Most of a window later (Redis's clock moved by the offset), the fourth is refused.
    offset = WINDOW - 700;
    const before = (await redisNow(conn)) + offset;
    const refused = await w.acquire(scope, 3, WINDOW);
    const after = (await redisNow(conn)) + offset;
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.used).toBe(3);
    // retryAfter is when the oldest leaves, measured on Redis's clock at the script's run.
    expect(refused.retryAfterMs).toBeLessThanOrEqual(Number(oldestScore) + WINDOW - before);
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(Number(oldestScore) + WINDOW - after);
    expect(refused.retryAfterMs).toBeGreaterThan(600);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(700);
    // The refusal recorded nothing.
    expect(await conn.zcard(w.keyOf(scope))).toBe(3);
    // Once that much more has passed, one send fits again, and only one (the next leaves a second later).
    offset += refused.retryAfterMs;
    expect((await w.acquire(scope, 3, WINDOW)).ok).toBe(true);
    expect((await w.acquire(scope, 3, WINDOW)).ok).toBe(false);
  });

  it('slides: each send leaves exactly one window after it counted from', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const scope = freshScope();
    // One send now, one 20 s later, limit 2.
    expect((await w.acquire(scope, 2, WINDOW)).ok).toBe(true);
    offset = 20_000;
    expect((await w.acquire(scope, 2, WINDOW)).ok).toBe(true);
    offset = 59_000;
    const full = await w.acquire(scope, 2, WINDOW);
    expect(full.ok).toBe(false);
    offset = 60_050;
    expect((await w.acquire(scope, 2, WINDOW)).ok).toBe(true);
    const second = await w.acquire(scope, 2, WINDOW);
    expect(second.ok).toBe(false);
    // The one sent at 20 s is the oldest now: it leaves at 80 s.
    if (!second.ok) expect(second.retryAfterMs).toBeGreaterThan(19_800);
    if (!second.ok) expect(second.retryAfterMs).toBeLessThanOrEqual(19_950);
    expect(await w.peek(scope, WINDOW)).toMatchObject({ used: 2 });
  });

  it('release counts a send from its answer; cancel gives its slot back', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const scope = freshScope();
    const first = await w.acquire(scope, 1, WINDOW);
    if (!first.ok) throw new Error('the first send must be admitted');
    // Answered 5 s after it was admitted: it counts until 65 s.
    offset = 5_000;
    await w.release(first.entry);
    offset = 61_000;
    expect((await w.acquire(scope, 1, WINDOW)).ok).toBe(false);
    offset = 65_050;
    const next = await w.acquire(scope, 1, WINDOW);
    expect(next.ok).toBe(true);
    if (!next.ok) return;
    await w.cancel(next.entry);
    expect((await w.acquire(scope, 1, WINDOW)).ok).toBe(true);
  });

  it('a pause refuses every send of its scope until it ends (a shorter one does not cut a longer one short), other scopes untouched', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const scope = freshScope();
    const other = freshScope();
    await w.pause(scope, 20_000);
    await w.pause(scope, 5_000);
    const refused = await w.acquire(scope, 30, WINDOW);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeGreaterThan(19_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(refused.used).toBe(0);
    expect((await w.acquire(other, 30, WINDOW)).ok).toBe(true);
    offset = 20_001;
    expect((await w.acquire(scope, 30, WINDOW)).ok).toBe(true);
  });

  it('a lookup refused by a full window gets the next free slot: polls of any connection leave it the last one', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const other = createLimitWindows(await connect(), { prefix: redis.prefix, clockOffsetMs: () => offset });
    const scope = freshScope();
    expect((await w.acquire(scope, 2, WINDOW, 'poll')).ok).toBe(true);
    offset = 1_000;
    expect((await w.acquire(scope, 2, WINDOW, 'poll')).ok).toBe(true);
    // Full: the lookup is refused and leaves its mark.
    offset = 2_000;
    const lookup = await other.acquire(scope, 2, WINDOW, 'interactive');
    expect(lookup.ok).toBe(false);
    // The first send leaves: one slot is free, but it is the lookup's.
    offset = 60_001;
    const poll = await w.acquire(scope, 2, WINDOW, 'poll');
    expect(poll.ok).toBe(false);
    if (poll.ok) return;
    expect(poll.used).toBe(1);
    expect((await other.acquire(scope, 2, WINDOW, 'interactive')).ok).toBe(true);
    // Its mark went with it: the next free slot is anyone's.
    offset = 61_001;
    expect((await w.acquire(scope, 2, WINDOW, 'poll')).ok).toBe(true);
  });

  it('counts two sends of the same millisecond as two, and lets the key expire one window after its last write', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w = await make();
    const scope = freshScope();
    // A pipeline of 20: many land in one millisecond of Redis's clock.
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => w.acquire(scope, 100, 5_000)));
    expect(verdicts.every((v) => v.ok)).toBe(true);
    expect(await conn.zcard(w.keyOf(scope))).toBe(20);
    const scores = await conn.zrange(w.keyOf(scope), 0, -1, 'WITHSCORES');
    const distinctTimes = new Set(scores.filter((_, i) => i % 2 === 1));
    expect(distinctTimes.size).toBeLessThan(20);
    const ttl = await conn.pttl(w.keyOf(scope));
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('two connections racing 200 acquires never admit more than the limit', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const a = createLimitWindows(await connect(), { prefix: redis.prefix });
    const b = createLimitWindows(await connect(), { prefix: redis.prefix });
    const scope = freshScope();
    const race = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).acquire(scope, 37, WINDOW)),
    );
    expect(race.filter((v) => v.ok)).toHaveLength(37);
    expect(race.filter((v) => !v.ok).every((v) => !v.ok && v.retryAfterMs > 0 && v.retryAfterMs <= WINDOW)).toBe(true);
    expect(await conn.zcard(a.keyOf(scope))).toBe(37);
  });

  it("agrees between callers whose own clocks are hours apart: only Redis's clock counts", async (ctx) => {
    if (!redis.available) return ctx.skip();
    const w1 = createLimitWindows(await connect(), { prefix: redis.prefix });
    const w2 = createLimitWindows(await connect(), { prefix: redis.prefix });
    const scope = freshScope();
    // Only Date is faked: ioredis keeps its real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3 * 3_600_000);
    expect((await w1.acquire(scope, 2, WINDOW)).ok).toBe(true);
    vi.setSystemTime(Date.now() - 6 * 3_600_000);
    expect((await w2.acquire(scope, 2, WINDOW)).ok).toBe(true);
    const third = await w2.acquire(scope, 2, WINDOW);
    vi.setSystemTime(Date.now() + 9 * 3_600_000);
    const fourth = await w1.acquire(scope, 2, WINDOW);
    for (const v of [third, fourth]) {
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.retryAfterMs).toBeGreaterThan(WINDOW - 2_000);
      if (!v.ok) expect(v.retryAfterMs).toBeLessThanOrEqual(WINDOW);
    }
  });
});
