/**
 * Interactive use against polling in the limits layer (issue 10 item 2, issue 11 items 1 and 6):
 * interactive calls never take polling's share of a window, a lookup waits at most one read
 * slot and gets it ahead of the next poll, and the scope of each limit is its own setting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ServiceError } from '../../src/service/errors.js';
import { createLimits, type Limits, type LimitScope } from '../../src/service/limits.js';
import { configFor, until } from './helpers.js';

const items = (accessKey = 'k1'): LimitScope => ({ kind: 'items', accessKey, service: 'arbs_live' });
const tokens = (accessKey = 'k1'): LimitScope => ({ kind: 'tokens', accessKey });
const now = { wait: false } as const;
const lookup = { wait: false, priority: 'interactive' } as const;
const poll = { wait: false, priority: 'poll' } as const;

let limits: Limits | undefined;
afterEach(async () => {
  await limits?.close();
  limits = undefined;
});

function make(clock: ManualClock, overrides: Parameters<typeof configFor>[1] = {}): Limits {
  limits = createLimits({ config: configFor('http://h', { LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_TOKENS_PER_HOUR: 20, ...overrides }), clock });
  return limits;
}

const refusedLocally = (err: unknown) => err instanceof ServiceError && err.kind === 'rate_limited' && err.details.local === true;

describe('interactive use never takes polling’s share', () => {
  it('lets lookups hold at most a fifth of a read window; polls get the rest', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 6; i++) (await l.acquire(items(), lookup)).release();
    const seventh = await l.acquire(items(), lookup).then(() => 'admitted', (e: unknown) => e);
    expect(refusedLocally(seventh)).toBe(true);
    expect(String((seventh as Error).message)).toMatch(/left to interactive use/);
    // 24 more reads fit, all polling's.
    for (let i = 0; i < 24; i++) (await l.acquire(items(), poll)).release();
    await expect(l.acquire(items(), poll)).rejects.toSatisfy(refusedLocally);
    expect(l.budget(items())).toMatchObject({ used: 30, interactiveUsed: 6, interactiveCap: 6 });
  });

  it('sends a lookup that finds the cap taken back to wait outside the queue, so the polls behind it still get the free slots', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    for (let i = 0; i < 6; i++) (await l.acquire(items(), lookup)).release();
    // Seven lookups wait for the cap; when it frees, six fit and the seventh finds it taken again.
    let looked = 0;
    const lookups = Array.from({ length: 7 }, () => l.acquire(items(), { priority: 'interactive' }).then((p) => (p.release(), (looked += 1))));
    await until(() => clock.pending === 7);
    await clock.advance(61_000);
    await until(() => looked === 6);
    // 18 slots of this window are free: polls take them now, not a window later.
    let polled = 0;
    for (let i = 0; i < 5; i++) void l.acquire(items(), { priority: 'poll' }).then((p) => (p.release(), (polled += 1)));
    await until(() => polled === 5);
    expect(l.budget(items())).toMatchObject({ used: 11, interactiveUsed: 6 });
    await clock.advance(61_000);
    await Promise.all(lookups);
  });

  it('keeps all but two token requests an hour for polling, whatever users try', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    // Two services kept readable: the plan spends 18 of the key's 20.
    l.setPollingTokens('k1', 18);
    (await l.acquire(tokens(), lookup)).release();
    (await l.acquire(tokens(), lookup)).release();
    await expect(l.acquire(tokens(), lookup)).rejects.toSatisfy(refusedLocally);
    // Waiting does not get around it either: it waits for one of the two to leave the window.
    const waiting = l.acquire(tokens(), { priority: 'interactive' });
    let admitted = false;
    void waiting.then((p) => {
      admitted = true;
      p.release();
    });
    for (let i = 0; i < 18; i++) (await l.acquire(tokens(), poll)).release();
    expect(l.tokensLeft('k1')).toBe(0);
    expect(admitted).toBe(false);
    await clock.advance(3_600_200);
    await until(() => admitted);
  });

  it('leaves interactive use what the key’s plan does not spend, and a new key room to onboard', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    // Not polled yet: one always-readable service's 12 are kept, 8 are the user's (a /connect, a
    // mistyped secret, the first filters, each on a token of its own).
    for (let i = 0; i < 8; i++) (await l.acquire(tokens(), lookup)).release();
    await expect(l.acquire(tokens(), lookup)).rejects.toSatisfy((e) => refusedLocally(e) && (e as ServiceError).details.limit === 'tokens');
    expect(l.budget(tokens())).toMatchObject({ interactiveUsed: 8, interactiveCap: 8 });
    // Its plan grows to two services (18 an hour): interactive use keeps to the 2 left.
    l.setPollingTokens('k1', 18);
    expect(l.budget(tokens())).toMatchObject({ interactiveCap: 2 });
    // A plan of one service (12): 8 again; the key no longer polled: the unplanned 12 kept.
    l.setPollingTokens('k2', 12);
    expect(l.budget(tokens('k2'))).toMatchObject({ interactiveCap: 8 });
    l.setPollingTokens('k2', undefined);
    expect(l.budget(tokens('k2'))).toMatchObject({ interactiveCap: 8 });
    l.setPollingTokens('k3', 0);
    expect(l.budget(tokens('k3'))).toMatchObject({ interactiveCap: 20 });
  });

  it('counts the cap per scope: twenty keys each /connect under LIMIT_SCOPE=address', async () => {
    const clock = new ManualClock();
    const l = make(clock, { LIMIT_SCOPE: 'address' });
    for (let k = 1; k <= 20; k++) (await l.acquire(tokens(`key-${k}`), lookup)).release();
    expect(l.tokensLeft('key-20')).toBe(19);
  });
});

describe('a lookup waits at most one read slot, and gets it', () => {
  /** Fills the window the way polling at full pace does: one read every 2 s, answered at once. */
  async function fillAtPace(clock: ManualClock, l: Limits): Promise<void> {
    for (let i = 0; i < 30; i++) {
      (await l.acquire(items(), poll)).release();
      await clock.advance(2_000);
    }
  }

  it('takes the next slot ahead of the poll due then', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    await fillAtPace(clock, l);
    // t = 60 s: the first read leaves the window at 60.1 s.
    expect(l.pollFreeInMs('k1', 'arbs_live')).toBe(100);
    const asked = clock.now();
    let gotAt: number | undefined;
    const pending = l.acquire(items(), lookup).then((p) => {
      gotAt = clock.now();
      p.release();
    });
    await until(() => l.budget(items()).waiting === 1);
    // The poll is told to come one slot after the lookup.
    expect(l.pollFreeInMs('k1', 'arbs_live')).toBe(2_100);
    await clock.advance(100);
    // The poll due at the moment the slot frees leaves it to the lookup.
    await expect(l.acquire(items(), poll)).rejects.toSatisfy(refusedLocally);
    await pending;
    expect(gotAt! - asked).toBeLessThanOrEqual(2_000);
    expect(l.budget(items()).used).toBe(30);
  });

  it('is refused at once when the next slot is further than one slot away', async () => {
    const clock = new ManualClock();
    const l = make(clock);
    // 30 reads at once (a burst after a pause): nothing frees for a whole window.
    const permits = await Promise.all(Array.from({ length: 30 }, () => l.acquire(items(), poll)));
    for (const p of permits) p.release();
    const refused = await l.acquire(items(), lookup).then(() => 'admitted', (e: unknown) => e);
    expect(refusedLocally(refused)).toBe(true);
    expect((refused as ServiceError).details.retryAfterMs).toBe(60_100);
    // Interactive calls other than reads keep wait: false as "now or never".
    await expect(l.acquire({ kind: 'filters', accessKey: 'k1', service: 'arbs_live' }, now)).resolves.toBeDefined();
  });
});
