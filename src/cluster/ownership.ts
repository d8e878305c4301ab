/**
 * Which users a cluster's worker polls: those whose bucket lease it holds AND whose alert state it
 * has loaded since it gained the bucket. The scheduler asks `owns(userId)` (its ownership
 * predicate); this module turns the leases' events into the scheduler's refreshes:
 *
 * - `gained(buckets)`: load those users' alert state from the shared store (what the previous
 *   holder wrote), then mark the buckets ready and refresh the users, so the first read diffs
 *   against what was already alerted instead of alerting everything again. A failed load is tried
 *   again while the lease is still held.
 * - `lost(buckets)`: unmark them at once and refresh the users, which drops their subscriptions
 *   (the registry registers only owned users); the store may then forget their alert state.
 *
 * A bucket lost and gained again while a load is out is loaded again: each change of a bucket
 * bumps its generation, and a load whose generation moved on is ignored.
 */
import type { Logger } from '../logger.js';
import { bucketOf, usersInBuckets, type BucketMap } from './buckets.js';
import type { Leases } from './leases.js';

/** What ownership needs of the shared store (the RedisStore fits). */
export interface AlertStateLoader {
  /** (Re)loads these users' alert state from Redis into this process. */
  loadAlerts(userIds: readonly number[]): Promise<void>;
  /**
   * This process no longer polls these users: write what is pending of their alert state, then
   * forget it, for those `stillAway` still says so (a bucket gained back meanwhile keeps its state).
   */
  forgetAlerts?(userIds: readonly number[], stillAway: (userId: number) => boolean): Promise<void>;
}

export interface OwnershipOptions {
  leases: Pick<Leases, 'holds' | 'on' | 'map'>;
  /** Every user id the store knows (the buckets' members are taken from it). */
  userIds: () => Iterable<number>;
  store: AlertStateLoader;
  logger: Logger;
  /** Wait before a failed load is tried again (default 2 s). */
  retryMs?: number;
}

export interface Ownership {
  /** The scheduler's predicate: the user's bucket is held and loaded. */
  owns(userId: number): boolean;
  /** Where refreshes go (the scheduler's `refreshUsers`); set once the scheduler exists. */
  attach(refresh: (userIds: readonly number[]) => void): void;
  /** Buckets held and loaded. */
  readonly ready: number;
  /** Loads still out. */
  idle(): Promise<void>;
  /** Stops retrying loads. */
  close(): void;
}

export function createOwnership(opts: OwnershipOptions): Ownership {
  const { leases, store } = opts;
  const retryMs = opts.retryMs ?? 2_000;
  const log = opts.logger.child({ module: 'ownership' });
  const ready = new Set<number>();
  const generation = new Map<number, number>();
  const loads = new Set<Promise<void>>();
  let refresh: (userIds: readonly number[]) => void = () => undefined;
  let closed = false;

  const bump = (buckets: readonly number[]) => {
    for (const b of buckets) generation.set(b, (generation.get(b) ?? 0) + 1);
  };
  const members = (buckets: readonly number[], map: BucketMap) => usersInBuckets(opts.userIds(), new Set(buckets), map);

  const load = (buckets: number[], map: BucketMap) => {
    const gens = new Map(buckets.map((b) => [b, generation.get(b) ?? 0]));
    const current = () => buckets.filter((b) => generation.get(b) === gens.get(b) && leases.map() === map && leases.holds(b));
    const users = members(buckets, map);
    const task = store.loadAlerts(users).then(
      () => {
        const done = current();
        for (const b of done) ready.add(b);
        if (done.length > 0) refresh(members(done, map));
      },
      (err: unknown) => {
        const again = current();
        if (closed || again.length === 0) return;
        log.warn({ err, buckets: again.length }, 'could not load the alert state of gained buckets: trying again');
        const timer = setTimeout(() => {
          const still = current();
          if (!closed && still.length > 0) load(still, map);
        }, retryMs);
        timer.unref();
      },
    );
    loads.add(task);
    void task.finally(() => loads.delete(task));
  };

  leases.on('gained', (buckets, map) => {
    bump(buckets);
    load(buckets, map);
  });
  leases.on('lost', (buckets, map) => {
    bump(buckets);
    for (const b of buckets) ready.delete(b);
    const users = members(buckets, map);
    refresh(users);
    const gens = new Map(buckets.map((b) => [b, generation.get(b) ?? 0]));
    // Under the map in force now (a switch of maps loses every bucket of the old one first).
    const stillAway = (userId: number) => {
      const now = leases.map();
      const b = bucketOf(userId, now);
      return !leases.holds(b) && (now !== map || generation.get(b) === gens.get(b));
    };
    // Not kept for users another worker now polls: its entries would grow stale here (audit 2, N10).
    store.forgetAlerts?.(users, stillAway).catch((err: unknown) => log.debug({ err }, 'could not write the alert state of lost buckets before forgetting it'));
  });

  return {
    owns: (userId) => {
      const b = bucketOf(userId, leases.map());
      return ready.has(b) && leases.holds(b);
    },
    attach(fn) {
      refresh = fn;
    },
    get ready() {
      return [...ready].filter((b) => leases.holds(b)).length;
    },
    async idle() {
      while (loads.size > 0) await Promise.allSettled([...loads]);
    },
    close() {
      closed = true;
    },
  };
}
