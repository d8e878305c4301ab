/**
 * Ownership between the leases and the scheduler: a gained bucket's users count as owned only once
 * their alert state is loaded (then they are refreshed in), a lost bucket's users are dropped at
 * once, a load that outlived its bucket is ignored, and a failed load is tried again while held.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { BucketMap } from '../../src/cluster/buckets.js';
import type { LeaseEvent } from '../../src/cluster/leases.js';
import { createOwnership } from '../../src/cluster/ownership.js';

/** Leases under bucket map 1 (id mod 64), so the tests can name a user's bucket. */
function fakeLeases() {
  const held = new Set<number>();
  const listeners: Record<LeaseEvent, ((b: number[], map: BucketMap) => void)[]> = { gained: [], lost: [] };
  return {
    held,
    holds: (b: number) => held.has(b),
    map: (): BucketMap => 1,
    on: (event: LeaseEvent, fn: (b: number[], map: BucketMap) => void) => void listeners[event].push(fn),
    gain(...buckets: number[]) {
      for (const b of buckets) held.add(b);
      for (const fn of listeners.gained) fn(buckets, 1);
    },
    lose(...buckets: number[]) {
      for (const b of buckets) held.delete(b);
      for (const fn of listeners.lost) fn(buckets, 1);
    },
  };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Users 1, 2, 65 (bucket 1), 3 (bucket 3). */
const USERS = [1, 2, 65, 3];

function rig() {
  const leases = fakeLeases();
  const loads: { users: readonly number[]; done: ReturnType<typeof deferred> }[] = [];
  const forgotten: number[] = [];
  const refreshed: number[][] = [];
  const ownership = createOwnership({
    leases,
    userIds: () => USERS,
    store: {
      loadAlerts: (users) => {
        const done = deferred();
        loads.push({ users, done });
        return done.promise;
      },
      forgetAlerts: async (users, stillAway) => void forgotten.push(...users.filter(stillAway)),
    },
    logger: silentLogger,
    retryMs: 10,
  });
  ownership.attach((users) => void refreshed.push([...users]));
  return { leases, loads, forgotten, refreshed, ownership };
}

describe('ownership of gained and lost buckets', () => {
  it('owns a gained bucket’s users only once their alert state is loaded, then refreshes them in', async () => {
    const { leases, loads, refreshed, ownership } = rig();
    leases.gain(1);
    expect(loads.map((l) => l.users)).toEqual([[1, 65]]);
    expect(ownership.owns(1)).toBe(false);
    loads[0]!.done.resolve();
    await ownership.idle();
    expect(ownership.owns(1)).toBe(true);
    expect(ownership.owns(65)).toBe(true);
    expect(ownership.owns(2)).toBe(false);
    expect(refreshed).toEqual([[1, 65]]);
    expect(ownership.ready).toBe(1);
  });

  it('drops a lost bucket’s users at once and lets the store forget them', async () => {
    const { leases, loads, refreshed, forgotten, ownership } = rig();
    leases.gain(1, 2);
    loads[0]!.done.resolve();
    await ownership.idle();
    leases.lose(1);
    expect(ownership.owns(1)).toBe(false);
    expect(ownership.owns(2)).toBe(true);
    expect(refreshed.at(-1)).toEqual([1, 65]);
    expect(forgotten).toEqual([1, 65]);
  });

  it('counts nothing as owned the moment the lease stops being held, even before `lost` is told', async () => {
    const { leases, loads, ownership } = rig();
    leases.gain(1);
    loads[0]!.done.resolve();
    await ownership.idle();
    leases.held.delete(1);
    expect(ownership.owns(1)).toBe(false);
  });

  it('ignores a load that outlived its bucket; a regain loads again', async () => {
    const { leases, loads, refreshed, ownership } = rig();
    leases.gain(1);
    leases.lose(1);
    leases.gain(1);
    loads[0]!.done.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(ownership.owns(1)).toBe(false);
    loads[1]!.done.resolve();
    await ownership.idle();
    expect(ownership.owns(1)).toBe(true);
    expect(refreshed.filter((r) => r.length > 0)).toEqual([[1, 65], [1, 65]]);
  });

  it('tries a failed load again while the bucket is held, and gives up when it is lost', async () => {
    const { leases, loads, ownership } = rig();
    leases.gain(3);
    loads[0]!.done.reject(new Error('Redis away'));
    await expect.poll(() => loads.length).toBe(2);
    loads[1]!.done.resolve();
    await ownership.idle();
    expect(ownership.owns(3)).toBe(true);

    leases.gain(1);
    loads[2]!.done.reject(new Error('Redis away'));
    leases.lose(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(loads).toHaveLength(3);
    ownership.close();
  });
});
