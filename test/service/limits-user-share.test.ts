/**
 * One user's share of the interactive budget in the in-process limiter (issue 24 item 6): where
 * the service counts a scope for the whole bot (LIMIT_SCOPE=address, LIMIT_SCOPE_TOKENS=address),
 * one user's interactive calls may hold only half of the scope's interactive cap (at least one),
 * so their junk /connects, lookups or filter writes leave the rest to everyone else. Under the key
 * scope a key's budget is its holder's, and no such share applies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ServiceError } from '../../src/service/errors.js';
import { createLimits, userShareOf, type Limits, type LimitScope } from '../../src/service/limits.js';
import { configFor, until } from './helpers.js';

const items = (accessKey: string): LimitScope => ({ kind: 'items', accessKey, service: 'arbs_live' });
const filters = (accessKey: string): LimitScope => ({ kind: 'filters', accessKey, service: 'arbs_live' });
const tokens = (accessKey: string): LimitScope => ({ kind: 'tokens', accessKey });
const by = (userId: number) => ({ wait: false, priority: 'interactive', userId }) as const;

let limits: Limits | undefined;
afterEach(async () => {
  await limits?.close();
  limits = undefined;
});

function make(clock: ManualClock, overrides: Parameters<typeof configFor>[1]): Limits {
  limits = createLimits({ config: configFor('http://h', { LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_TOKENS_PER_HOUR: 20, ...overrides }), clock });
  return limits;
}

const refused = (l: Limits, scope: LimitScope, opts: Parameters<Limits['acquire']>[1]) =>
  l.acquire(scope, opts).then(
    (p) => {
      p.release();
      return undefined;
    },
    (e: unknown) => e,
  );
const userShareRefusal = (e: unknown) => e instanceof ServiceError && e.kind === 'rate_limited' && e.details.local === true && e.details.share === 'user';

describe('one user’s share of a budget every user shares', () => {
  it('is half the cap, at least one', () => {
    expect([userShareOf(1), userShareOf(2), userShareOf(3), userShareOf(6), userShareOf(20)]).toEqual([1, 1, 1, 3, 10]);
  });

  it('LIMIT_SCOPE_TOKENS=address: two junk /connects of one user take only their own share; another user’s goes through', async () => {
    const clock = new ManualClock();
    const l = make(clock, { LIMIT_SCOPE_TOKENS: 'address' });
    // Two token requests an hour are interactive use's, for the whole bot; user 1 may hold one.
    expect(await refused(l, tokens('junk-1'), by(1))).toBeUndefined();
    const second = await refused(l, tokens('junk-2'), by(1));
    expect(userShareRefusal(second)).toBe(true);
    expect(String((second as Error).message)).toMatch(/this user holds their 1 of the 2 token requests an hour/);
    // About an hour from now, when user 1's request leaves the window.
    expect((second as ServiceError).details.retryAfterMs).toBeGreaterThan(3_590_000);
    expect(await refused(l, tokens('real-key'), by(2))).toBeUndefined();
    expect(l.budget(tokens('any'))).toMatchObject({ interactiveUsed: 2, interactiveCap: 2, userShare: 1 });
    // The cap itself still holds for the whole bot: a third user waits for the hour.
    const third = await refused(l, tokens('k3'), by(3));
    expect(third instanceof ServiceError && third.details.local === true && third.details.share === undefined).toBe(true);
    // User 1's share frees when their request leaves the window.
    await clock.advance(3_600_200);
    expect(await refused(l, tokens('junk-3'), by(1))).toBeUndefined();
  });

  it('LIMIT_SCOPE=address: one user’s lookups hold at most 3 of the 6 interactive reads a minute, filter writes 10 of 20 an hour', async () => {
    const clock = new ManualClock();
    const l = make(clock, { LIMIT_SCOPE: 'address' });
    for (let i = 0; i < 3; i++) expect(await refused(l, items(`a${i}`), by(1))).toBeUndefined();
    expect(userShareRefusal(await refused(l, items('a9'), by(1)))).toBe(true);
    for (let i = 0; i < 3; i++) expect(await refused(l, items(`b${i}`), by(2))).toBeUndefined();
    expect(l.budget(items('x'))).toMatchObject({ interactiveUsed: 6, userShare: 3 });

    for (let i = 0; i < 10; i++) expect(await refused(l, filters('a'), by(1))).toBeUndefined();
    expect(userShareRefusal(await refused(l, filters('a'), by(1)))).toBe(true);
    expect(await refused(l, filters('b'), by(2))).toBeUndefined();
  });

  it('a user over their share who waits is admitted when their own send leaves the window, not before', async () => {
    const clock = new ManualClock();
    const l = make(clock, { LIMIT_SCOPE_TOKENS: 'address' });
    (await l.acquire(tokens('k'), by(1))).release();
    let admitted = false;
    const waiting = l.acquire(tokens('k'), { priority: 'interactive', userId: 1 }).then((p) => {
      admitted = true;
      p.release();
    });
    // It sleeps until its own request leaves the window (one hour), not taking the cap's second slot…
    await until(() => clock.pending === 1, 2_000);
    expect(admitted).toBe(false);
    // …which another user's request takes meanwhile.
    expect(await refused(l, tokens('k'), by(2))).toBeUndefined();
    await clock.advance(1_800_000);
    expect(admitted).toBe(false);
    await clock.advance(1_800_200);
    await waiting;
    expect(admitted).toBe(true);
  });

  it('does not apply under the key scope (a key’s budget is its holder’s), nor to calls that name no user', async () => {
    const clock = new ManualClock();
    const keyScoped = make(clock, {});
    for (let i = 0; i < 6; i++) expect(await refused(keyScoped, items('k1'), by(1))).toBeUndefined();
    expect(keyScoped.budget(items('k1')).userShare).toBeUndefined();
    await keyScoped.close();
    const address = make(clock, { LIMIT_SCOPE: 'address' });
    for (let i = 0; i < 6; i++) expect(await refused(address, items('k1'), { wait: false, priority: 'interactive' })).toBeUndefined();
  });
});
