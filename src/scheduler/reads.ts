/**
 * The reads in flight: starting a subscription's read (recording the token request it carries),
 * what follows its answer or its failure, and the set of reads not yet settled, which the loop
 * bounds (`maxConcurrentReads`) and `stop()` waits for or aborts.
 *
 * A good read is applied (apply-read.ts) and the next one is due one interval after this one
 * started — not after its answer, so a slow answer does not stretch the pace. A failed read is
 * classified (read-outcome.ts) and applied here: a local refusal just moves it later, 401 and
 * 403 pause the subscription and tell the user, a 429 makes the whole scope wait, and anything
 * else backs the subscription off alone. A token request that was refused before it was sent
 * comes off the ledger again. An answer that arrives after this process stopped owning the user
 * (a cluster's lease lapsed while the read was out) is dropped: the lease's new holder reads anew.
 *
 * A read group's read (LIMIT_SCOPE=address, read-groups.ts) is sent with its reader's key and
 * token bookkeeping; its answer is applied to every member still owned and entitled, and the
 * group, not the reader, is due again. A failure is the reader's (a 401 or 403 pauses it alone,
 * and the group's next turn comes at once with another member) or the scope's (a 429); any other
 * failure backs the group off. The answer serves the whole group only when it shows the group's
 * plan (masked or full odds); otherwise it serves the reader alone, which moves to the group of
 * its plan (read-groups.ts `observe`).
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/port.js';
import type { ApplyRead } from './apply-read.js';
import type { LoadFactor } from './load-factor.js';
import type { PollingClient } from './port.js';
import { planStatus, readTier } from './plan-tier.js';
import { entitled, type ReadGroup, type ReadGroups } from './read-groups.js';
import { nextReadAt } from './read-pace.js';
import { classifyFailure, tokenAttempt } from './read-outcome.js';
import type { SchedulerCounters } from './stats.js';
import type { StatusWriter } from './status.js';
import type { Sub, SubscriptionRegistry } from './subscriptions.js';
import type { TokenGate } from './token-gate.js';
import type { TokenLedger } from './token-ledger.js';
import type { SchedulerTuning } from './tuning.js';

/** What the reads need of the scheduler around them. */
export interface ReadsContext {
  client: Pick<PollingClient, 'readItems' | 'hasValidToken'>;
  clock: Clock;
  random: () => number;
  log: Logger;
  tuning: Pick<SchedulerTuning, 'backoffBaseMs' | 'backoffMaxMs' | 'jitterRatio'>;
  /** The poll floor and the read limit's pace, ms. */
  floorMs: number;
  paceMs: number;
  loadFactor: Pick<LoadFactor, 'factor'>;
  ledger: Pick<TokenLedger, 'record' | 'unrecord'>;
  gate: Pick<TokenGate, 'ledgerName'>;
  counters: SchedulerCounters;
  status: StatusWriter;
  registry: Pick<SubscriptionRegistry, 'refresh' | 'scopeOf'>;
  applyRead: ApplyRead;
  /** Puts a subscription back in the due queue. */
  schedule(sub: Sub, due: number): void;
  /** Puts a read group back in the due queue. */
  pushGroup(group: ReadGroup, due: number): void;
  /** The read groups (LIMIT_SCOPE=address): what a group read showed of its reader's plan. */
  groups?: Pick<ReadGroups, 'observe'>;
  /** Whether the bot still serves the user (ALLOWED_USER_IDS). */
  isAllowed(userId: number): boolean;
  store: Pick<Store, 'getUser'>;
  /** Whether the loop still runs: a read that settles after `stop()` schedules nothing. */
  isRunning(): boolean;
  /** Whether this process still polls the user (scheduler.ts `owns`). */
  owns(userId: number): boolean;
}

export interface Reads {
  /**
   * Sends the subscription's read now, which was due on the pace at `pacedAt` (read-pace.ts);
   * `acquire`: it requests a token in window `window`. With `group`, the subscription reads for
   * the group (it is a member) and the answer serves them all.
   */
  start(sub: Sub, pacedAt: number, acquire: boolean, window: number, group?: ReadGroup): void;
  /** Reads not yet settled. */
  readonly size: number;
  /** Resolves when a read settles (or `wake` is called): the loop's wait for a free slot. */
  slotFreed(): Promise<void>;
  /** Releases a loop waiting in `slotFreed` (at stop). */
  wake(): void;
  /** Resolves once no read is in flight. */
  settle(): Promise<void>;
  /** A fresh abort signal for a new run, unless the current one is still good. */
  renew(): void;
  /** Aborts every read in flight (a shutdown out of time): they record nothing. */
  abort(): void;
  /** Counts another task (a draft's write, drafts.ts) among the reads in flight, for the loop and `stop()`. */
  track(task: Promise<void>): void;
  /** What a failed call of `sub` means (as for its reads): when to try again; undefined when it is gone. */
  failed(sub: Sub, err: unknown, acquired: boolean): number | undefined;
  /** The signal a shutdown out of time aborts. */
  signal(): AbortSignal;
}

export function createReads(ctx: ReadsContext): Reads {
  const { client, clock, random, log, tuning, floorMs, paceMs, loadFactor, ledger, gate, counters, status, registry, schedule } = ctx;
  const inFlight = new Set<Promise<void>>();
  let freed: (() => void) | undefined;
  /** Aborts the reads in flight when a shutdown runs out of time; one per run, not one per read. */
  let abortReads = new AbortController();

  /** Handles a failed read; returns when to try again (undefined: the subscription is gone). */
  const onError = (sub: Sub, err: unknown, acquired: boolean, unit: { failures: number } = sub): number | undefined => {
    const now = clock.now();
    const attempt = tokenAttempt(err, acquired, acquired && client.hasValidToken(sub.accessKey, sub.service));
    if (attempt !== 'kept') {
      // No token came of it: this window may try once more (the ledger still bounds the hour).
      sub.tokenWindow = undefined;
      if (attempt === 'unsent' && sub.lastAcquireAt !== undefined) {
        // Refused before sending: that token request never happened.
        ledger.unrecord(gate.ledgerName(sub.accessKey), sub.lastAcquireAt);
        counters.tokenRequests(-1);
      }
    }
    const outcome = classifyFailure(err, { failures: unit.failures, floorMs, backoffBaseMs: tuning.backoffBaseMs, backoffMaxMs: tuning.backoffMaxMs, random });
    if (outcome.kind === 'defer') {
      counters.deferred();
      log.debug({ subKey: sub.subKey, retryAfterMs: outcome.retryAfterMs }, 'read deferred by the local limiter');
      return now + outcome.waitMs;
    }
    counters.failed(now);
    if (outcome.kind === 'pause') {
      status.pause(sub, outcome.reason, now);
      registry.refresh(sub.userId, floorMs);
      return undefined;
    }
    if (outcome.kind === 'scope-wait') {
      status.write(sub, { lastError: { kind: 'rate_limited', at: now } });
      const scope = registry.scopeOf(sub.scope);
      scope.pausedUntil = Math.max(scope.pausedUntil, now + outcome.waitMs);
      log.warn({ subKey: sub.subKey, retryAfterMs: outcome.waitMs }, 'the service answered 429: this scope waits');
      return scope.pausedUntil;
    }
    status.write(sub, { lastError: { kind: outcome.errorKind, at: now } });
    unit.failures = outcome.failures;
    if (!outcome.unexpected) {
      log.warn({ subKey: sub.subKey, kind: outcome.errorKind, failures: unit.failures, waitMs: Math.round(outcome.waitMs) }, 'read failed: backing off');
    } else log.error({ err, subKey: sub.subKey }, 'read failed unexpectedly: backing off');
    return now + outcome.waitMs;
  };

  /** An answer that came after this process stopped owning the user is dropped with the subscription. */
  const fenced = (sub: Sub): boolean => {
    if (ctx.owns(sub.userId)) return false;
    registry.refresh(sub.userId, floorMs);
    return true;
  };

  /** One answer for the group (or its reader alone): applied to each member still owned and entitled now. */
  const serveGroup = (members: readonly Sub[], read: Parameters<typeof ctx.applyRead>[1], now: number) => {
    for (const member of [...members]) {
      if (member.removed || fenced(member)) continue;
      if (!ctx.isAllowed(member.userId) || !entitled(ctx.store.getUser(member.userId), member)) continue;
      ctx.applyRead(member, read, now);
    }
  };

  const wake = () => {
    freed?.();
    freed = undefined;
  };

  const track = (task: Promise<void>) => {
    inFlight.add(task);
    void task.finally(() => {
      inFlight.delete(task);
      wake();
    });
  };

  return {
    start(sub, pacedAt, acquire, window, group) {
      if (acquire) {
        sub.tokenWindow = window;
        sub.lastAcquireAt = clock.now();
        ledger.record(gate.ledgerName(sub.accessKey), sub.lastAcquireAt);
        counters.tokenRequests(1);
      }
      sub.inFlight = true;
      sub.lastStartAt = clock.now();
      if (group) {
        group.inFlight = true;
        group.lastStartAt = sub.lastStartAt;
      }
      // The next read is counted from this turn (read-pace.ts); a floor, from the real start.
      const last = { pacedAt: Math.min(pacedAt, sub.lastStartAt), startedAt: sub.lastStartAt };
      const intervalMs = Math.max(floorMs, paceMs);
      const { signal } = abortReads;
      const task = (async () => {
        let next: number | undefined;
        try {
          const read = await client.readItems(sub.keyRef, sub.service, { wait: false, priority: 'poll', signal });
          if (group) {
            if (group.removed) return;
            const now = clock.now();
            counters.read(now);
            sub.failures = 0;
            group.failures = 0;
            next = nextReadAt(last, clock.now(), intervalMs * loadFactor.factor, floorMs, tuning.jitterRatio, random);
            // A masked read never serves a member who pays, nor a full one a member who does not.
            const tier = readTier(read);
            // Kept with the status, so a restart or a takeover need not find it out again.
            if (tier !== undefined && tier !== sub.tier) ctx.status.write(sub, planStatus(tier, sub.accessKey));
            const servesAll = ctx.groups ? ctx.groups.observe(sub, tier, next) : true;
            serveGroup(servesAll ? group.members : [sub], read, now);
            return;
          }
          if (sub.removed || fenced(sub)) return;
          const now = clock.now();
          counters.read(now);
          sub.failures = 0;
          ctx.applyRead(sub, read, now);
          // Counted from the read's turn, not its answer: neither the loop's grid nor a read's latency may stretch the pace.
          next = nextReadAt(last, clock.now(), intervalMs * loadFactor.factor, floorMs, tuning.jitterRatio, random);
        } catch (err) {
          // Aborted by a shutdown that ran out of time: nothing to record.
          if (signal.aborted) return;
          if (group) {
            if (group.removed) return;
            // The reader alone is paused (401, 403): the group's next turn comes with another member.
            next = sub.removed || fenced(sub) ? clock.now() : (onError(sub, err, acquire, group) ?? clock.now());
            return;
          }
          if (sub.removed || fenced(sub)) return;
          next = onError(sub, err, acquire);
        } finally {
          sub.inFlight = false;
          if (group) group.inFlight = false;
          if (next !== undefined && ctx.isRunning()) {
            if (group) {
              if (!group.removed) ctx.pushGroup(group, next);
            } else if (!sub.removed) schedule(sub, next);
          }
        }
      })();
      track(task);
    },

    track,
    failed: (sub, err, acquired) => onError(sub, err, acquired),
    signal: () => abortReads.signal,

    get size() {
      return inFlight.size;
    },

    // One waiter, not a Promise.race over every read: a race adds a reaction to each of them per call.
    slotFreed: () => new Promise<void>((resolve) => (freed = resolve)),
    wake,

    async settle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    renew() {
      if (abortReads.signal.aborted) abortReads = new AbortController();
      // Every read in flight listens on it: hundreds at once are normal, not a leak.
      setMaxListeners(0, abortReads.signal);
    },

    abort() {
      abortReads.abort();
    },
  };
}
