/**
 * A worker's bucket leases: which users this process may poll. Every `renewEveryMs` (~3 s) one
 * atomic script (lease-scripts.ts) beats the worker's heartbeat, renews the leases it holds and
 * takes free ones up to its fair share, ceil(64 / live workers). When new workers appear its share
 * shrinks and it gives up the surplus, a few buckets a round (gently: each hand-over leaves those
 * users unread until the taker's next round, and a worker below its share looks four times as
 * often), dropping them locally BEFORE it deletes them, so no moment exists where two workers both
 * count a bucket as theirs. A clean `stop()` releases all.
 *
 * Local fencing: a lease counts as held only until (the local monotonic time its renewal was
 * SENT) + TTL − margin. Redis started the TTL later than that (when the script ran), so the local
 * validity always ends before the lease can lapse in Redis and be taken. A worker that was paused
 * (SIGSTOP), or cannot reach Redis, sees `holds()` turn false by itself, without waiting for any
 * timer or answer; `lost` follows from a timer, or at the next round at the latest.
 *
 * Events: `gained(buckets)` when buckets become held, `lost(buckets)` when they stop being held
 * (a failed renewal, a lapsed local validity, a surplus given up, stop). Listeners run
 * synchronously, so a `lost` listener has dropped the users before the lease is deleted.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { systemClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { LATEST_BUCKET_MAP, LEASE_BUCKETS, type BucketMap } from './buckets.js';
import { createLeaseScripts, type LeaseScripts } from './lease-scripts.js';

export interface LeaseTimings {
  /** The lease's PX in Redis (default 10 s); a worker's heartbeat counts as live for as long. */
  ttlMs: number;
  /** How often the worker renews (default 3 s). */
  renewEveryMs: number;
  /** Local validity ends this long before the lease could lapse in Redis (default 1 s). */
  marginMs: number;
  /** Surplus buckets given up per round at most (default 16). */
  releasePerRound: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { ttlMs: 10_000, renewEveryMs: 3_000, marginMs: 1_000, releasePerRound: 16 };

export interface LeasesOptions extends Partial<LeaseTimings> {
  /** An open ioredis connection (the caller's; not closed here). */
  redis: Redis;
  /** REDIS_PREFIX. */
  prefix: string;
  logger: Logger;
  /** Default host:pid:random. */
  workerId?: string;
  /** Default 64. */
  buckets?: number;
  /** A monotonic clock in ms (default performance.now); never the wall clock, which can jump. */
  now?: () => number;
  /** The newest bucket map this worker may use (default the latest); tests pass 1 for a worker of an older version. */
  maxMap?: BucketMap;
  /** The wait between rounds (default a timer); tests pass one they can hold, like a paused process. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type LeaseEvent = 'gained' | 'lost';

export interface LeaseState {
  workerId: string;
  /** Buckets held now (locally valid). */
  held: number;
  /** Live workers and this worker's share, as of the last good round. */
  live: number;
  share: number;
  /** Whether the last round reached Redis, and how long ago a round last did (ms; undefined: never). */
  redisOk: boolean;
  sinceLastRoundMs: number | undefined;
}

export interface Leases {
  readonly workerId: string;
  /** Whether this worker may act for `bucket` of the current map now (its lease renewed recently enough). */
  holds(bucket: number): boolean;
  /** The bucket map the held buckets belong to (buckets.ts): 1 until a round learns another. */
  map(): BucketMap;
  /** The buckets held now. */
  held(): Set<number>;
  /** `map`: the bucket map `buckets` belong to (a switch of maps loses every bucket of the old one). */
  on(event: LeaseEvent, listener: (buckets: number[], map: BucketMap) => void): void;
  /** Starts the rounds: the first at once, then every `renewEveryMs`. */
  start(): void;
  /** One round (start() runs them; tests may drive them by hand). */
  round(): Promise<void>;
  /** Stops the rounds, drops every bucket (`lost`) and releases them in Redis. Safe to call twice. */
  stop(): Promise<void>;
  state(): LeaseState;
}

export function createLeases(opts: LeasesOptions): Leases {
  const t: LeaseTimings = {
    ttlMs: opts.ttlMs ?? DEFAULT_LEASE_TIMINGS.ttlMs,
    renewEveryMs: opts.renewEveryMs ?? DEFAULT_LEASE_TIMINGS.renewEveryMs,
    marginMs: opts.marginMs ?? DEFAULT_LEASE_TIMINGS.marginMs,
    releasePerRound: opts.releasePerRound ?? DEFAULT_LEASE_TIMINGS.releasePerRound,
  };
  if (t.marginMs >= t.ttlMs || t.renewEveryMs >= t.ttlMs - t.marginMs) {
    throw new Error('leases: renewEveryMs < ttlMs − marginMs is needed, or a lease lapses between renewals');
  }
  const total = opts.buckets ?? LEASE_BUCKETS;
  const workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? ((ms, signal) => systemClock.sleep(ms, signal));
  const log = opts.logger.child({ module: 'leases', workerId });
  const scripts: LeaseScripts = createLeaseScripts(opts.redis, opts.prefix, total);
  // Where this worker starts looking for free buckets: workers starting together spread out.
  const offset = randomBytes(2).readUInt16BE(0) % total;

  /** Held buckets and, for each, the local monotonic time its validity ends. */
  const valid = new Map<number, number>();
  const listeners: Record<LeaseEvent, ((buckets: number[], map: BucketMap) => void)[]> = { gained: [], lost: [] };
  const maxMap = opts.maxMap ?? LATEST_BUCKET_MAP;
  let map: BucketMap = 1;
  let live = 0;
  let share = 0;
  let redisOk = false;
  let lastRoundAt: number | undefined;
  let seq = 0;
  let stopped = false;
  let loop: Promise<void> | undefined;
  let inRound: Promise<void> | undefined;
  const wake = new AbortController();
  let expiryTimer: NodeJS.Timeout | undefined;

  const emit = (event: LeaseEvent, buckets: number[]) => {
    if (buckets.length === 0) return;
    buckets.sort((a, b) => a - b);
    log.info({ buckets: buckets.length, held: valid.size }, event === 'gained' ? 'leases gained' : 'leases lost');
    for (const listener of listeners[event]) {
      try {
        listener(buckets, map);
      } catch (err) {
        log.error({ err, event }, 'a lease listener failed');
      }
    }
  };

  /** Drops the buckets whose local validity ended. */
  const expire = () => {
    const at = now();
    const lapsed: number[] = [];
    for (const [b, until] of valid) if (until <= at) lapsed.push(b);
    for (const b of lapsed) valid.delete(b);
    if (lapsed.length > 0) log.warn({ buckets: lapsed.length }, 'leases not renewed in time (paused, or Redis unreachable): those users are no longer read here');
    emit('lost', lapsed);
  };

  const onExpiryTimer = () => {
    expire();
    armExpiry();
  };

  const armExpiry = () => {
    clearTimeout(expiryTimer);
    if (valid.size === 0 || stopped) return;
    const first = Math.min(...valid.values());
    // Node counts a timer from the event loop's cached time, which lags the monotonic clock on a
    // busy loop: the timer may fire before `now()` reaches `first`. Re-arming after each expiry
    // makes it wait out the rest instead of falling silent (a silent worker has no round to come).
    expiryTimer = setTimeout(onExpiryTimer, Math.max(0, first - now()) + 1);
    expiryTimer.unref();
  };

  /** The surplus to give up this round: the buckets farthest from where this worker starts. */
  const surplusOf = (got: Set<number>, limit: number): number[] => {
    const extra = Math.min(got.size - limit, t.releasePerRound);
    if (extra <= 0) return [];
    return [...got].sort((a, b) => ((b - offset + total) % total) - ((a - offset + total) % total)).slice(0, extra);
  };

  const roundOnce = async () => {
    const mine = ++seq;
    const sentAt = now();
    let answer;
    try {
      answer = await withTimeout(scripts.tick({ workerId, ttlMs: t.ttlMs, take: true, offset, maxMap }), t.ttlMs - t.marginMs);
    } catch (err) {
      if (redisOk) log.warn({ err }, 'leases: Redis did not answer the renewal; the leases lapse unless a later round reaches it');
      redisOk = false;
      expire();
      armExpiry();
      return;
    }
    // A later round (or stop) went out since: this answer is stale.
    if (mine !== seq || stopped) return;
    if (!redisOk) log.info({ live: answer.live }, 'leases: Redis reached');
    redisOk = true;
    lastRoundAt = sentAt;
    live = answer.live;
    share = answer.share;
    expire();
    if (answer.map !== map) {
      // Another bucket map is in force: every bucket of the old one is dropped here first, then
      // released, and the new map's are taken once no old lease is left (lease-scripts.ts).
      const old = [...valid.keys()];
      valid.clear();
      emit('lost', old);
      const oldMap = map;
      map = answer.map === 2 ? 2 : 1;
      log.info({ from: oldMap, to: answer.map }, answer.map > maxMap ? 'leases: the cluster uses a newer bucket map than this worker knows: it reads nobody' : 'leases: the cluster moved to another bucket map');
      await scripts.release({ workerId, buckets: old, leave: false, map: oldMap, maxMap }).catch((err: unknown) => {
        log.warn({ err }, 'leases: could not release the old map\'s buckets; they lapse instead');
      });
      if (answer.map > maxMap || stopped) return;
    }
    const until = sentAt + t.ttlMs - t.marginMs;
    // An answer that came too late gives no validity; the next round renews what Redis kept.
    const got = until > now() ? new Set(answer.held) : new Set<number>();
    const surplus = surplusOf(got, share);
    for (const b of surplus) got.delete(b);
    const lost = [...valid.keys()].filter((b) => !got.has(b));
    const gained = [...got].filter((b) => !valid.has(b));
    for (const b of lost) valid.delete(b);
    for (const b of got) valid.set(b, until);
    emit('lost', lost);
    emit('gained', gained);
    armExpiry();
    if (surplus.length > 0) {
      // Dropped locally above (lost): only now may another worker take them.
      await scripts.release({ workerId, buckets: surplus, leave: false, map, maxMap }).catch((err: unknown) => {
        log.warn({ err }, 'leases: could not give up the surplus buckets; they lapse instead');
      });
    }
  };

  const round = () => {
    // Rounds run one after another; a failed round already went to its own caller, the next one still runs.
    const run = (inRound ?? Promise.resolve()).catch(() => undefined).then(() => (stopped ? undefined : roundOnce()));
    inRound = run;
    return run;
  };

  return {
    workerId,
    holds: (bucket) => {
      const until = valid.get(bucket);
      return until !== undefined && until > now();
    },
    map: () => map,
    held: () => {
      const at = now();
      return new Set([...valid].filter(([, until]) => until > at).map(([b]) => b));
    },
    on(event, listener) {
      listeners[event].push(listener);
    },
    start() {
      if (loop || stopped) return;
      loop = (async () => {
        while (!stopped) {
          await round();
          // Below its share while others hold more, a worker looks again soon: their surplus is
          // given up at their next round, and each bucket handed over stays unread until taken.
          const catchingUp = redisOk && live > 1 && valid.size < share;
          if (!stopped) await sleep(catchingUp ? Math.ceil(t.renewEveryMs / 4) : t.renewEveryMs, wake.signal);
        }
      })();
    },
    round,
    async stop() {
      if (stopped) return;
      stopped = true;
      wake.abort();
      await loop;
      await inRound;
      clearTimeout(expiryTimer);
      const mine = [...valid.keys()];
      valid.clear();
      emit('lost', mine);
      // Everything that is still ours in Redis, held locally or not.
      const all = Array.from({ length: total }, (_, b) => b);
      await scripts.release({ workerId, buckets: all, leave: true, map, maxMap }).catch((err: unknown) => {
        log.warn({ err }, 'leases: could not release the leases at stop; they lapse within their TTL');
      });
    },
    state: () => ({
      workerId,
      held: [...valid.values()].filter((until) => until > now()).length,
      live,
      share,
      redisOk,
      sinceLastRoundMs: lastRoundAt === undefined ? undefined : Math.round(now() - lastRoundAt),
    }),
  };
}

/** Rejects when `promise` has not settled within `ms` (its late answer is then ignored by the caller). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
