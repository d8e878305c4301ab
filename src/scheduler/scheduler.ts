/**
 * The one scheduler for every user. Subscriptions (a user's key × a service) wait in a due-time
 * queue; a single loop takes the next one when its time comes, reads its items through the
 * client's limiters without waiting (a local refusal just moves it later), diffs the read and
 * hands the events to the notifier.
 *
 * Limits, planned rather than discovered:
 * - tokens: each key follows its token plan (token-plan.ts): a service requests a token only in
 *   a window the plan gives it, at most once per window, and is read while that token lives. A
 *   ledger of the key's token requests keeps every rolling hour within the plan's budget: when
 *   the rhythm is off for a while (a start mid-window, a plan change, a restart) the ledger holds
 *   a request back rather than let the hour overrun. Under LIMIT_SCOPE_TOKENS=address the service counts
 *   token requests per address: one budget for the whole bot, handed out per window to users in
 *   turn (address-turns.ts), under the same ledger;
 * - item reads: each read scope (key × host, or the host under LIMIT_SCOPE=address) is read at
 *   the limit's own pace (30 a minute: one read every 2 s), evenly spaced, and a read goes out
 *   only when the client's limiter has room for it, so the whole budget is used and none is
 *   overrun. Lookups (/item, /event, inline) are not set aside a share: the limiter gives a
 *   waiting lookup the next slot and the poll it displaced comes one slot later (read-pace.ts);
 *   under the address scope the subscriptions of a host with equal filters form a read group
 *   (read-groups.ts): one read serves them all, and the groups of a host take turns (round robin);
 * - POLL_INTERVAL_SECONDS, when set, is a floor between two reads of one subscription; a small
 *   jitter keeps users from falling into step without costing latency;
 * - backpressure: when the process cannot keep up, every interval is stretched by one shared
 *   load factor (load-factor.ts) rather than letting due work pile up.
 *
 * Faults stay with their subscription: 401 and 403 pause it and tell the user, 429 pauses its
 * scope for Retry-After, anything else backs off that subscription alone.
 *
 * This file holds the wiring, the loop, start and stop; each other concern has its own room,
 * behind a small interface and a `create*` factory:
 * - tuning.ts: the knobs and their defaults;
 * - subscriptions.ts: the registry of subscriptions, keys (with their plans) and read scopes;
 * - dispatch.ts: a due subscription or group, read now or put back for when it may be;
 * - drafts.ts: a filter whose save the token budget refused, written when the budget allows;
 * - read-groups.ts: under LIMIT_SCOPE=address, who shares a read, who reads and who is served;
 * - plan-tier.ts: a key's plan (masked or full odds) as its reads show it: groups share within one;
 * - token-gate.ts: whether a read now keeps to the token plan (pure given its inputs);
 * - reads.ts: the reads in flight, and what follows an answer or a failure;
 * - read-outcome.ts: what a failed read means — defer, pause, scope wait or backoff (pure);
 * - apply-read.ts: a good read → diff → alert state and notifier;
 * - status.ts: the subscription's status in the store, and the pause that tells the user;
 * - coverage.ts: what /status says of each service; stats.ts: counters and the lag sampler.
 * Its ports (port.ts) are the bot's `SchedulerPort`, the alerts side's `Notifier`, the client's
 * `PollingClient` (reads, limiter, token cache) and the due queue's `ScheduleQueue` (queue.ts).
 */
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Opportunity } from '../service/opportunity.js';
import type { Service } from '../service/services.js';
import type { Store } from '../store/port.js';
import type { SecretOpener } from '../store/key-ref.js';
import { AddressTokenTurns } from './address-turns.js';
import { createReadApplier } from './apply-read.js';
import { createCoverage } from './coverage.js';
import { createDispatch } from './dispatch.js';
import { createDraftWriter } from './drafts.js';
import { goneKeepMs } from './diff.js';
import { ItemInterner } from './item-interner.js';
import { LoadFactor } from './load-factor.js';
import { readPaceMs } from './read-pace.js';
import type { Notifier, PollingClient, RecordCloses, SchedulerPort } from './port.js';
import { createReadGroups, type ReadGroup } from './read-groups.js';
import { HeapScheduleQueue, type ScheduleQueue } from './queue.js';
import { createReads } from './reads.js';
import { createSchedulerCounters, type SchedulerStats } from './stats.js';
import { createStatusWriter } from './status.js';
import { createSubscriptionRegistry, type Sub } from './subscriptions.js';
import { createTokenGate } from './token-gate.js';
import { TokenLedger } from './token-ledger.js';
import type { TokenPlan } from './token-plan.js';
import { DEFAULT_TUNING, type SchedulerTuning } from './tuning.js';

export type { SecretOpener } from '../store/key-ref.js';
export type { SchedulerStats } from './stats.js';
export { DEFAULT_TUNING, type SchedulerTuning } from './tuning.js';

export interface SchedulerOptions {
  config: Pick<Config, 'LIMIT_TOKENS_PER_HOUR' | 'LIMIT_ITEMS_PER_MINUTE' | 'LIMIT_SCOPE' | 'POLL_INTERVAL_SECONDS'> &
    Partial<Pick<Config, 'LIMIT_SCOPE_TOKENS' | 'REVIVE_MINUTES'>>;
  logger: Logger;
  store: Pick<Store, 'getUser' | 'listUsers' | 'updateUser' | 'updateStatus' | 'alerts'>;
  /** Notes placed selections' closing lines from every read (the ledger's CLV); none by default. */
  recordCloses?: RecordCloses;
  /** The service client (`ServiceClient` fits): the poll read, its limiter and token cache. */
  client: PollingClient;
  notifier: Notifier;
  /** Opens the users' stored secrets for token requests; called only when a token is requested. */
  vault: SecretOpener;
  clock?: Clock;
  /** Jitter source, 0 ≤ x < 1; default Math.random. */
  random?: () => number;
  /** The due-time queue; default an in-process heap. */
  queue?: ScheduleQueue;
  /**
   * Where the keys' token requests of the last hour are kept across restarts (e.g.
   * `DATA_DIR/token-ledger.json`); without it a restart forgets them and relies on the reserve.
   */
  ledgerFile?: string;
  tuning?: Partial<SchedulerTuning>;
  /**
   * Whether the bot still serves a user (ALLOWED_USER_IDS); default everyone. Someone taken off
   * the list is not polled, and their data is kept until they /forget it.
   */
  isAllowed?: (userId: number) => boolean;
  /**
   * Whether this process polls the user; default everyone. A cluster's worker polls only the users
   * whose bucket lease it holds: consulted when a user is refreshed, before each read is sent and
   * when a read's answer comes (an answer that outlived the lease is not applied).
   */
  owns?: (userId: number) => boolean;
}

export interface Scheduler extends SchedulerPort {
  start(): void;
  /** Stops the loop and waits for reads in flight (at most `stopTimeoutMs`, then aborts them). */
  stop(): Promise<void>;
  stats(): SchedulerStats;
  readonly lastTickAt: number;
  /** Resolves once no read is in flight (the loop may start more later). For tests and benchmarks. */
  whenIdle(): Promise<void>;
  /** The latest items this process read for the user (all services, or one). */
  latestItems(userId: number, service?: Service): Opportunity[];
  /** The token plan of the user's key as it stands; undefined without active subscriptions. */
  planFor(userId: number): TokenPlan | undefined;
  /**
   * Refreshes many users at once (a cluster's worker gained or lost their buckets): their first
   * reads are spread as at start, so a takeover does not burst.
   */
  refreshUsers(userIds: readonly number[]): void;
}

/** Builds the scheduler; nothing runs until `start()`. */
export function createScheduler(opts: SchedulerOptions): Scheduler {
  const { config, store, client, notifier, vault } = opts;
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const queue = opts.queue ?? new HeapScheduleQueue();
  const tuning: SchedulerTuning = { ...DEFAULT_TUNING, ...opts.tuning };
  const isAllowed = opts.isAllowed ?? ((): boolean => true);
  const owns = opts.owns ?? ((): boolean => true);
  const log = opts.logger.child({ module: 'scheduler' });

  const floorMs = config.POLL_INTERVAL_SECONDS * 1000;
  const reviveMs = config.REVIVE_MINUTES === undefined ? undefined : config.REVIVE_MINUTES * 60_000;
  /** Shortest spacing of reads in one scope: the read limit's own pace (see read-pace.ts). */
  const paceMs = readPaceMs(config.LIMIT_ITEMS_PER_MINUTE, tuning.interactiveShare, client.itemWindowMs);
  const W = tuning.tokenTtlMs;
  // Under LIMIT_SCOPE_TOKENS=address the service counts token requests per address: one budget for all.
  const addressMode = config.LIMIT_SCOPE_TOKENS === 'address';
  const turns = addressMode
    ? new AddressTokenTurns({ tokensPerHour: config.LIMIT_TOKENS_PER_HOUR, reserve: tuning.tokenReserve, windowMs: W })
    : undefined;

  const ledger = new TokenLedger(opts.ledgerFile);
  const loadFactor = new LoadFactor(tuning.loadFactor);
  const counters = createSchedulerCounters();

  let running = false;
  let loopDone: Promise<void> | undefined;
  let lastTickAt = 0;
  let nextPruneAt = 0;
  let nextLedgerSaveAt = 0;
  let sleeper: { controller: AbortController; until: number } | undefined;

  /** When the loop takes an entry due at `dueAt`: the next tick of the grid (see `tickMs`). */
  const takenAt = (dueAt: number) => (tuning.tickMs > 0 ? Math.ceil(dueAt / tuning.tickMs) * tuning.tickMs : dueAt);

  const push = (id: string, due: number) => {
    // Whole milliseconds: jitter must not leave the clock on fractions.
    const at = Math.ceil(due);
    queue.push(id, at);
    if (sleeper && takenAt(at) < sleeper.until) sleeper.controller.abort();
  };
  const pushGroup = (group: ReadGroup, due: number) => {
    if (!group.removed) push(group.id, due);
  };
  // Under LIMIT_SCOPE=address subscriptions with equal filters share their reads: the loop takes their group's turns.
  const groups = config.LIMIT_SCOPE === 'address'
    ? createReadGroups({
      store, queue, scopeOf: (service) => registry.scopeIdOf('', service), push: pushGroup,
      turns: { scopeOf: (scope) => registry.scopeOf(scope), paceMs },
    })
    : undefined;
  const schedule = (sub: Sub, due: number) => {
    if (sub.removed) return;
    // A subscription with no group (a draft waiting to be written: read-groups.ts) is due alone.
    if (groups?.groupOf(sub)) groups.wake(sub, Math.ceil(due));
    else push(sub.id, due);
  };

  const registry = createSubscriptionRegistry({
    config, store, client, vault, clock, random, isAllowed, owns, queue, schedule, paceMs,
    windowMs: W, tokenReserve: tuning.tokenReserve,
    ...(groups ? { afterRefresh: (userId: number, current: Iterable<Sub>) => groups.sync(userId, current) } : {}),
  });
  const { subs } = registry;
  const refreshUser = (userId: number, firstReadWithinMs = floorMs) => registry.refresh(userId, firstReadWithinMs);
  /**
   * Each first read also requests a token: with thousands of subscriptions, starting them all
   * within one interval would ask the service (and this process) for twice the steady load.
   */
  const refreshMany = (userIds: readonly number[]) => {
    const starting = userIds.reduce((n, id) => n + registry.activeServices(store.getUser(id)).length, 0);
    const rampMs = Math.max(floorMs, (starting / tuning.startupReadsPerSecond) * 1000);
    for (const id of userIds) refreshUser(id, rampMs);
  };
  const { tokenSafetyMs, clientRenewMarginMs } = tuning;
  const gate = createTokenGate({ client, ledger, windowMs: W, tokenSafetyMs, clientRenewMarginMs, ...(turns ? { turns } : {}) });
  const status = createStatusWriter({ store, notifier, log });
  const applyRead = createReadApplier({ store, recordCloses: opts.recordCloses, notifier, interner: new ItemInterner(), status, statusWriteEveryMs: tuning.statusWriteEveryMs, reviveMs });
  const coverage = createCoverage({
    config, store, registry, turns, groups, isAllowed, floorMs, paceMs, loadFactor, clock,
    heldToken: (accessKey, service) => client.hasValidToken(accessKey, service),
    ledger: (accessKey) => ({ count: (at) => ledger.count(gate.ledgerName(accessKey), at), oldest: (at) => ledger.oldest(gate.ledgerName(accessKey), at) }),
  });
  const reads = createReads({
    client, clock, random, log, tuning, floorMs, paceMs, loadFactor,
    ledger, gate, counters, status, registry, applyRead, schedule, pushGroup, owns, isAllowed, store,
    ...(groups ? { groups } : {}),
    isRunning: () => running,
  });
  const drafts = createDraftWriter({
    client, clock, log, store, notifier, ledger, gate, counters, registry, reads, floorMs, schedule,
    isRunning: () => running,
  });
  const { dispatchSub, dispatchGroup } = createDispatch({
    store, client, registry, gate, reads, isAllowed, owns, floorMs, paceMs, schedule, pushGroup, refreshUser, groups, drafts,
    verifyEveryMs: tuning.groupVerifyEveryMs,
  });

  // ---- the loop ------------------------------------------------------------------------------

  const sleep = async (until: number) => {
    const controller = new AbortController();
    sleeper = { controller, until };
    await clock.sleep(Math.max(0, until - clock.now()), controller.signal);
    sleeper = undefined;
  };

  const prune = (now: number) => {
    nextPruneAt = now + tuning.pruneEveryMs;
    try {
      const removed = store.alerts.prune({ goneBefore: now - goneKeepMs(reviveMs), seenBefore: now - tuning.staleEntryMs });
      if (removed > 0) log.debug({ removed }, 'alert state pruned');
    } catch (err) {
      log.warn({ err }, 'could not prune the alert state');
    }
  };

  const saveLedger = (now: number) => {
    nextLedgerSaveAt = now + tuning.ledgerSaveEveryMs;
    return ledger.save(now).catch((err: unknown) => log.warn({ err }, 'could not write the token ledger'));
  };

  /** LIMIT_SCOPE_TOKENS=address: at each window start, hands out that window's tokens in turn. */
  const grantTurns = (now: number) => {
    for (const sub of gate.grantTurns(now, subs.values(), (id) => queue.dueAt(id))) {
      if (!sub.inFlight && !sub.reserved) schedule(sub, now + sub.phaseMs);
    }
  };

  const loop = async () => {
    while (running) {
      const now = clock.now();
      lastTickAt = now;
      loadFactor.tick(now);
      grantTurns(now);
      if (now >= nextPruneAt) prune(now);
      if (now >= nextLedgerSaveAt) void saveLedger(now);
      const top = queue.peek();
      if (!top || takenAt(top.dueAt) > now) {
        await sleep(Math.min(top ? takenAt(top.dueAt) : Infinity, now + tuning.maxSleepMs));
        continue;
      }
      if (reads.size >= tuning.maxConcurrentReads) {
        await reads.slotFreed();
        continue;
      }
      queue.pop();
      const sub = subs.get(top.id);
      const group = sub ? undefined : groups?.get(top.id);
      if (sub ? sub.inFlight : !group || group.inFlight) continue;
      counters.lag.record(now - top.dueAt);
      // Waiting for the tick is by design, not a sign of overload: only the lag past it counts.
      loadFactor.observe(Math.max(0, now - takenAt(top.dueAt)), now);
      // Its turn on the pace: when it was due, unless the loop is far behind (then a read may come
      // at most two ticks early after a late one, and the limiter still decides).
      const pacedAt = Math.max(top.dueAt, now - 2 * tuning.tickMs);
      try {
        if (sub) dispatchSub(sub, now, pacedAt);
        else if (group) dispatchGroup(group, now, pacedAt);
      } catch (err) {
        // One subscription's surprise must not stop everyone's alerts.
        log.error({ err, id: top.id }, 'dispatch failed');
        if (sub) schedule(sub, now + tuning.backoffMaxMs);
        else if (group) pushGroup(group, now + tuning.backoffMaxMs);
      }
    }
  };

  // ---- the port ------------------------------------------------------------------------------

  return {
    start() {
      if (running) return;
      running = true;
      reads.renew();
      const { loaded, problem } = ledger.load(clock.now());
      if (problem) log.warn({ file: opts.ledgerFile }, problem);
      else if (loaded > 0) log.info({ tokenRequests: loaded }, 'token requests of the last hour read back');
      nextLedgerSaveAt = clock.now() + tuning.ledgerSaveEveryMs;
      refreshMany(store.listUsers().map((u) => u.id));
      log.info({ subscriptions: subs.size, scope: config.LIMIT_SCOPE, tokenScope: addressMode ? 'address' : 'key' }, 'scheduler started');
      loopDone = loop().catch((err: unknown) => {
        log.fatal({ err }, 'the scheduler loop stopped');
      });
    },

    async stop() {
      if (!running) return;
      running = false;
      sleeper?.controller.abort();
      reads.wake();
      await loopDone;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        // Real time on purpose: shutdown is bounded in wall-clock terms whatever the injected clock does.
        timer = setTimeout(() => resolve('timeout'), tuning.stopTimeoutMs);
        timer.unref();
      });
      const outcome = await Promise.race([reads.settle().then(() => 'done' as const), timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        log.warn({ inFlight: reads.size }, 'reads still in flight at shutdown: aborted');
        reads.abort();
        await reads.settle();
      }
      await saveLedger(clock.now());
      log.info('scheduler stopped');
    },

    refreshUser(userId) {
      try {
        refreshUser(userId);
      } catch (err) {
        log.error({ err, userId }, 'could not refresh the user’s subscriptions');
      }
    },

    refreshUsers(userIds) {
      try {
        refreshMany(userIds);
      } catch (err) {
        log.error({ err, users: userIds.length }, 'could not refresh the users’ subscriptions');
      }
    },

    coverage,

    latestItems(userId, service) {
      const mine = registry.ofUser(userId);
      if (!mine) return [];
      if (service) return [...(mine.get(service)?.latest ?? [])];
      return [...mine.values()].flatMap((sub) => sub.latest);
    },

    stats: () =>
      counters.snapshot(clock.now(), { subscriptions: subs.size, inFlight: reads.size, loadFactor: loadFactor.factor, lastTickAt }),
    get lastTickAt() {
      return lastTickAt;
    },
    whenIdle: () => reads.settle(),
    planFor(userId) {
      const user = store.getUser(userId);
      return user?.key && !turns ? registry.keyOf(user.key.accessKey)?.plan : undefined;
    },
  };
}
