import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ServiceError } from '../../src/service/errors.js';
import { ClientClosedError, createLimits, type Limits, type LimitScope, type Permit } from '../../src/service/limits.js';
import { SlidingWindow } from '../../src/service/sliding-window.js';
import { configFor, until } from './helpers.js';

/** Lets real timers run (bottleneck starts jobs on its own timers), so negative checks mean something. */
const flush = () => new Promise((r) => setTimeout(r, 30));

describe('SlidingWindow', () => {
  it('counts a send from admission until one window after its answer', () => {
    const w = new SlidingWindow(2, 1_000, 0);
    const a = w.take(0);
    w.take(0);
    expect(w.room(0)).toBe(0);
    expect(w.waitMs(0)).toBe(Infinity); // both still in flight
    w.release(a, 300);
    expect(w.waitMs(300)).toBe(1_000);
    expect(w.room(1_299)).toBe(0);
    expect(w.room(1_300)).toBe(1);
  });

  it('forgets a cancelled send at once', () => {
    const w = new SlidingWindow(1, 1_000, 0);
    const a = w.take(0);
    w.cancel(a);
    expect(w.room(0)).toBe(1);
  });

  it('holds any window of its length to the limit', () => {
    const w = new SlidingWindow(3, 1_000, 0);
    const sends: number[] = [];
    for (let t = 0; t < 5_000; t += 7) {
      if (w.waitMs(t) === 0) {
        w.release(w.take(t), t);
        sends.push(t);
      }
    }
    for (const t of sends) expect(sends.filter((s) => s >= t && s < t + 1_000).length).toBeLessThanOrEqual(3);
    expect(sends.length).toBeGreaterThanOrEqual(14);
  });
});

describe('createLimits', () => {
  let limits: Limits | undefined;
  afterEach(async () => {
    await limits?.close();
    limits = undefined;
  });

  const items = (accessKey = 'k1'): LimitScope => ({ kind: 'items', accessKey, service: 'arbs_live' });

  function make(clock: ManualClock, overrides: Parameters<typeof configFor>[1] = {}): Limits {
    limits = createLimits({
      config: configFor('http://h', { LIMIT_ITEMS_PER_MINUTE: 3, LIMIT_TOKENS_PER_HOUR: 2, ...overrides }),
      clock,
      random: () => 0.5,
    });
    return limits;
  }

  it('admits up to the limit at once, then waits for the window on the clock', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    const permits = await Promise.all([1, 2, 3].map(() => l.acquire(items())));
    for (const p of permits) p.release();
    let fourth: Permit | undefined;
    void l.acquire(items()).then((p) => (fourth = p));
    await flush();
    expect(fourth).toBeUndefined();
    expect(l.budget(items())).toMatchObject({ used: 3, waiting: 1, left: 0 });
    await clock.advance(59_000);
    await flush();
    expect(fourth).toBeUndefined();
    await clock.advance(1_200);
    await until(() => fourth !== undefined);
  });

  it('refuses without waiting when asked, saying when the next fits, and sends nothing', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 3; i++) (await l.acquire(items(), { wait: false })).release();
    await clock.advance(10_000);
    const err = await l.acquire(items(), { wait: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    expect((err as ServiceError).details.retryAfterMs).toBeGreaterThanOrEqual(50_000);
    expect((err as ServiceError).details.retryAfterMs).toBeLessThanOrEqual(50_100);
    expect((err as ServiceError).message).toMatch(/limit of 3 item reads a minute/);
    expect(l.budget(items()).used).toBe(3);
  });

  it('gives a cancelled slot back', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    const p = await l.acquire(items());
    expect(l.readsLeft('k1', 'arbs_live')).toBe(2);
    p.cancel();
    expect(l.readsLeft('k1', 'arbs_live')).toBe(3);
  });

  it('keeps scopes apart per key and host, and shares one per host under LIMIT_SCOPE=address', async () => {
    const clock = new ManualClock();
    const byKey = make(clock);
    for (let i = 0; i < 3; i++) (await byKey.acquire(items('k1'))).release();
    expect(byKey.readsLeft('k1', 'arbs_live')).toBe(0);
    expect(byKey.readsLeft('k2', 'arbs_live')).toBe(3);
    expect(byKey.readsLeft('k1', 'arbs_prematch')).toBe(3);
    await byKey.close();

    const byAddress = make(clock, { LIMIT_SCOPE: 'address' });
    for (let i = 0; i < 3; i++) (await byAddress.acquire(items('k1'))).release();
    expect(byAddress.readsLeft('k2', 'arbs_live')).toBe(0);
    expect(byAddress.readsLeft('k2', 'arbs_prematch')).toBe(3);
    expect(byAddress.scopeId(items('k1'))).toBe(byAddress.scopeId(items('k2')));
  });

  it('lets a send in flight hold its slot until it is answered', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    const held = await Promise.all([1, 2, 3].map(() => l.acquire(items())));
    let next: Permit | undefined;
    void l.acquire(items()).then((p) => (next = p));
    await clock.advance(5 * 60_000);
    await flush();
    expect(next).toBeUndefined(); // five minutes on, but none has been answered yet
    held[0]?.release();
    await clock.advance(60_000);
    await flush();
    expect(next).toBeUndefined();
    await clock.advance(200);
    await until(() => next !== undefined);
  });

  it('serves interactive callers ahead of queued polls', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 3; i++) (await l.acquire(items())).release();
    const order: string[] = [];
    const take = (name: string, priority: 'poll' | 'interactive') =>
      l.acquire(items(), { priority }).then((p) => {
        order.push(name);
        p.release();
      });
    const all = [take('poll-1', 'poll'), take('poll-2', 'poll'), take('poll-3', 'poll'), take('user', 'interactive')];
    // Bottleneck takes jobs in over a few real ticks: let all four reach its queue first.
    await until(() => clock.pending === 1);
    await new Promise((r) => setTimeout(r, 50));
    await clock.advance(61_000);
    await until(() => order.length === 3);
    await until(() => clock.pending === 1);
    await clock.advance(61_000);
    await Promise.all(all);
    // poll-1 was already waiting at the head; the user goes next, ahead of the other polls.
    expect(order).toEqual(['poll-1', 'user', 'poll-2', 'poll-3']);
  });

  it('pauses a scope after a 429 for Retry-After, or a growing backoff', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    expect(l.penalize(items(), 30_000)).toBe(30_000);
    expect(l.budget(items()).pausedForMs).toBe(30_000);
    const refused = await l.acquire(items(), { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true, retryAfterMs: 30_000 } });
    let admitted = false;
    void l.acquire(items()).then(() => (admitted = true));
    await clock.advance(29_000);
    await flush();
    expect(admitted).toBe(false);
    await clock.advance(1_000);
    await until(() => admitted);

    const other = items('k2');
    const first = l.penalize(other);
    const second = l.penalize(other);
    expect(first).toBe(2_000);
    expect(second).toBe(4_000);
    l.recover(other);
    expect(l.penalize(other)).toBe(2_000);
  });

  it('rejects a waiting caller on abort and gives back the slot it never used', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 3; i++) (await l.acquire(items())).release();
    const ctl = new AbortController();
    const pending = l.acquire(items(), { signal: ctl.signal });
    await flush();
    ctl.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    expect(l.budget(items()).waiting).toBe(0);
    await clock.advance(61_000);
    await flush();
    expect(l.budget(items()).used).toBe(0);
  });

  it('counts token requests per key across services, per auth host under LIMIT_SCOPE_TOKENS=address', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    (await l.acquire({ kind: 'tokens', accessKey: 'k1' })).release();
    expect(l.tokensLeft('k1')).toBe(1);
    expect(l.tokensLeft('k2')).toBe(2);
    expect(l.reservedReads('k1', 'arbs_live')).toBe(0);
    const p = await l.acquire(items());
    expect(l.reservedReads('k1', 'arbs_live')).toBe(1);
    p.release();
    await l.close();
    // LIMIT_SCOPE=address alone shares reads and filter writes, not token requests (key by default).
    const readsShared = make(clock, { LIMIT_SCOPE: 'address' });
    (await readsShared.acquire({ kind: 'tokens', accessKey: 'k1' })).release();
    expect(readsShared.tokensLeft('k2')).toBe(2);
    (await readsShared.acquire(items())).release();
    expect(readsShared.readsLeft('k2', 'arbs_live')).toBe(2);
    expect(readsShared.tokenScopeMode).toBe('key');
    await readsShared.close();
    const shared = make(clock, { LIMIT_SCOPE_TOKENS: 'address' });
    (await shared.acquire({ kind: 'tokens', accessKey: 'k1' })).release();
    expect(shared.tokensLeft('k2')).toBe(1);
    expect(shared.readsLeft('k2', 'arbs_live')).toBe(3);
  });

  it('rejects waiting callers when closed', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 3; i++) (await l.acquire(items())).release();
    const waiting = [l.acquire(items()), l.acquire(items())].map((w) => w.then(() => 'admitted', (e: unknown) => e));
    await flush();
    await l.close();
    for (const w of waiting) expect(await w).toBeInstanceOf(ClientClosedError);
    await expect(l.acquire(items())).rejects.toBeInstanceOf(ClientClosedError);
    expect(clock.pending).toBe(0);
  });
});
