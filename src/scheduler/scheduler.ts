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
 *   under the address scope the subscriptions of a host take turns (round robin);
 * - POLL_INTERVAL_SECONDS, when set, is a floor between two reads of one subscription; a small
 *   jitter keeps users from falling into step without costing latency;
 * - backpressure: when the process cannot keep up, every interval is stretched by one shared
 *   load factor (load-factor.ts) rather than letting due work pile up.
 *
 * Faults stay with their subscription: 401 and 403 pause it and tell the user, 429 pauses its
 * scope for Retry-After, anything else backs off that subscription alone.
 */
import { setMaxListeners } from 'node:events';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AccessKeyRef, ServiceClient } from '../service/client-types.js';
import { isServiceError } from '../service/errors.js';
import { matchesFilter } from '../service/filter-model.js';
import type { ItemsRead, Opportunity } from '../service/opportunity.js';
import { SERVICES, type Service } from '../service/services.js';
import { subscriptionKey, type ServiceStatus, type UserRecord } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { AddressTokenTurns, type TurnMember } from './address-turns.js';
import { diffRead, GONE_KEEP_MS } from './diff.js';
import { ItemInterner } from './intern.js';
import { LoadFactor, type LoadFactorTuning } from './load-factor.js';
import { MinuteCounter } from './minute-counter.js';
import { nextReadAt, readPaceMs } from './read-pace.js';
import type { NoticeReason, Notifier, SchedulerPort, ServiceCoverage, SubscriptionRef } from './port.js';
import { HeapScheduleQueue, type ScheduleQueue } from './queue.js';
import { TokenLedger } from './token-ledger.js';
import { storedKeyRef, type SecretOpener } from '../store/key-ref.js';
import {
  DEFAULT_TOKEN_RESERVE,
  HOUR_MS,
  isActiveIn,
  nextActiveWindow,
  planTokens,
  TOKEN_TTL_MS,
  type TokenPlan,
} from './token-plan.js';

export type { SecretOpener } from '../store/key-ref.js';

/** Knobs with sensible defaults; tests and benchmarks change them. */
export interface SchedulerTuning {
  /** Token lifetime, the length of one plan window. */
  tokenTtlMs: number;
  /** Token requests per hour left to the bot (/connect checks, renewal after a 401). */
  tokenReserve: number;
  /** A held token counts as usable only with at least this much life left before the client would renew it. */
  tokenSafetyMs: number;
  /** How long before its expiry the client renews a token (src/service/tokens.ts). */
  clientRenewMarginMs: number;
  /**
   * Share of the read limit kept off polling altogether; default 0: the limiter hands a waiting
   * lookup the next slot, so unused lookup capacity goes to polling.
   */
  interactiveShare: number;
  /** Up to this share of the interval is added at random to each wait (small: it costs latency). */
  jitterRatio: number;
  /** First backoff after a transient failure; doubles per failure in a row. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** After a start, first reads (each with a token request) are spread to at most this many a second. */
  startupReadsPerSecond: number;
  /** Reads in flight at once, over all subscriptions. */
  maxConcurrentReads: number;
  /** The loop wakes at least this often (keeps `lastTickAt` fresh and a stop prompt). */
  maxSleepMs: number;
  /** How long `stop()` waits for reads in flight before aborting them. */
  stopTimeoutMs: number;
  /** How often the token ledger is written to its file (when it changed). */
  ledgerSaveEveryMs: number;
  /** `lastGoodReadAt` is written to the store at most this often per subscription. */
  statusWriteEveryMs: number;
  /** How often the whole alert state is pruned. */
  pruneEveryMs: number;
  /** Entries of items not seen for this long are pruned (subscriptions paused or deleted long ago). */
  staleEntryMs: number;
  /** When and how fast poll intervals are stretched under overload. */
  loadFactor: Partial<LoadFactorTuning>;
}

export const DEFAULT_TUNING: SchedulerTuning = {
  tokenTtlMs: TOKEN_TTL_MS,
  tokenReserve: DEFAULT_TOKEN_RESERVE,
  tokenSafetyMs: 3_000,
  clientRenewMarginMs: 20_000,
  interactiveShare: 0,
  jitterRatio: 0.01,
  backoffBaseMs: 5_000,
  backoffMaxMs: 5 * 60_000,
  startupReadsPerSecond: 200,
  maxConcurrentReads: 256,
  maxSleepMs: 1_000,
  stopTimeoutMs: 5_000,
  ledgerSaveEveryMs: 60_000,
  statusWriteEveryMs: 15_000,
  pruneEveryMs: 10 * 60_000,
  staleEntryMs: 24 * HOUR_MS,
  loadFactor: {},
};

export interface SchedulerOptions {
  config: Pick<Config, 'LIMIT_TOKENS_PER_HOUR' | 'LIMIT_ITEMS_PER_MINUTE' | 'LIMIT_SCOPE' | 'POLL_INTERVAL_SECONDS'> &
    Partial<Pick<Config, 'LIMIT_SCOPE_TOKENS'>>;
  logger: Logger;
  store: Pick<Store, 'getUser' | 'listUsers' | 'updateUser' | 'updateStatus' | 'alerts'>;
  client: ServiceClient;
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
}

export interface SchedulerStats {
  subscriptions: number;
  /** Successful reads since start. */
  reads: number;
  /** Failed reads since start (local refusals excluded: nothing was sent). */
  errors: number;
  readsLastMinute: number;
  errorsLastMinute: number;
  /** Reads that the client's limiter refused locally (each means a plan was off; expected 0). */
  deferred: number;
  /** Token requests the scheduler's reads made. */
  tokenRequests: number;
  /** 99th percentile of how late subscriptions were taken from the queue, over the last 1,024. */
  lagMsP99: number;
  inFlight: number;
  /** How much every poll interval is stretched because the process cannot keep up; 1 when it can. */
  loadFactor: number;
  /** When the loop last ran (ms); 0 before start. */
  lastTickAt: number;
}

export interface Scheduler extends SchedulerPort {
  start(): void;
  /** Stops the loop and waits for reads in flight (at most `stopTimeoutMs`, then aborts them). */
  stop(): Promise<void>;
  stats(): SchedulerStats;
  readonly lastTickAt: number;
  /** Resolves once no read is in flight (the loop may start more later). For tests and benchmarks. */
  whenIdle(): Promise<void>;
  /** The token plan of the user's key as it stands; undefined without active subscriptions. */
  planFor(userId: number): TokenPlan | undefined;
}

interface Sub extends SubscriptionRef {
  /** The queue id: the same as `subKey`. */
  id: string;
  accessKey: string;
  keyRef: AccessKeyRef;
  scope: string;
  /** Fixed offset within a window so the key's services do not all start on the same millisecond. */
  phaseMs: number;
  /** Window index in which this subscription last requested a token, and when. */
  tokenWindow: number | undefined;
  /** LIMIT_SCOPE=address: the window in which it was given a turn of the shared token budget. */
  grantWindow: number | undefined;
  lastAcquireAt: number | undefined;
  /** When the held token stops being usable (set while it is about to be renewed). */
  lapsesAt: number;
  /** Parked until a token window of its service (not backing off): a new plan may wake it sooner. */
  waitingForWindow: boolean;
  /** When its last read was sent: the poll floor is counted from here. */
  lastStartAt: number | undefined;
  /** Holds a slot of its scope at its due time. */
  reserved: boolean;
  failures: number;
  known: Map<string, Opportunity>;
  latest: Opportunity[];
  lastReadAt: number | undefined;
  lastStatusWriteAt: number;
  inFlight: boolean;
  removed: boolean;
}

interface KeyState {
  accessKey: string;
  userId: number;
  plan: TokenPlan;
  /** Where this key's windows start, within one window (stable per key, so restarts keep the rhythm). */
  offsetMs: number;
}

interface ScopeState {
  nextSlotAt: number;
  pausedUntil: number;
  subs: Set<Sub>;
}

type Eligibility = { ok: true; acquire: boolean; window: number } | { ok: false; at: number };

const LAG_SAMPLES = 1024;
/** The ledger's name for the one token budget shared by every key under LIMIT_SCOPE_TOKENS=address. */
const ADDRESS_POOL = '\u0000address';

/** FNV-1a: a stable spread of keys over the window, the same after every restart. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const emptyStatus = (): ServiceStatus => ({ lastGoodReadAt: null, lastAlertAt: null, lastError: null });

/** Builds the scheduler; nothing runs until `start()`. */
export function createScheduler(opts: SchedulerOptions): Scheduler {
  const { config, store, client, notifier, vault } = opts;
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const queue = opts.queue ?? new HeapScheduleQueue();
  const tuning: SchedulerTuning = { ...DEFAULT_TUNING, ...opts.tuning };
  const isAllowed = opts.isAllowed ?? ((): boolean => true);
  const log = opts.logger.child({ module: 'scheduler' });

  const floorMs = config.POLL_INTERVAL_SECONDS * 1000;
  /** Shortest spacing of reads in one scope: the read limit's own pace (see read-pace.ts). */
  const paceMs = readPaceMs(config.LIMIT_ITEMS_PER_MINUTE, tuning.interactiveShare);
  const W = tuning.tokenTtlMs;
  // Under LIMIT_SCOPE_TOKENS=address the service counts token requests per address: one budget for all.
  const addressMode = config.LIMIT_SCOPE_TOKENS === 'address';
  const turns = addressMode
    ? new AddressTokenTurns({ tokensPerHour: config.LIMIT_TOKENS_PER_HOUR, reserve: tuning.tokenReserve, windowMs: W })
    : undefined;
  let grantedWindow: number | undefined;

  const subs = new Map<string, Sub>();
  const subsByUser = new Map<number, Map<Service, Sub>>();
  const keys = new Map<string, KeyState>();
  const keyOfUser = new Map<number, string>();
  const ledger = new TokenLedger(opts.ledgerFile);
  const interner = new ItemInterner();
  const scopes = new Map<string, ScopeState>();
  const inFlight = new Set<Promise<void>>();
  /** Wakes the loop waiting for a free read slot. */
  let slotFreed: (() => void) | undefined;

  const lags = new Float64Array(LAG_SAMPLES);
  let lagCount = 0;
  const counters = { reads: 0, errors: 0, deferred: 0, tokenRequests: 0 };
  const loadFactor = new LoadFactor(tuning.loadFactor);
  const readsMinute = new MinuteCounter();
  const errorsMinute = new MinuteCounter();

  let running = false;
  let loopDone: Promise<void> | undefined;
  let lastTickAt = 0;
  let nextPruneAt = 0;
  let nextLedgerSaveAt = 0;
  let sleeper: { controller: AbortController; until: number } | undefined;
  /** Aborts the reads in flight when a shutdown runs out of time; one per run, not one per read. */
  let abortReads = new AbortController();

  const scopeIdOf = (accessKey: string, service: Service) =>
    config.LIMIT_SCOPE === 'address' ? service : `${accessKey}|${service}`;

  const scopeOf = (id: string): ScopeState => {
    let scope = scopes.get(id);
    if (!scope) {
      scope = { nextSlotAt: 0, pausedUntil: 0, subs: new Set() };
      scopes.set(id, scope);
    }
    return scope;
  };

  const schedule = (sub: Sub, due: number) => {
    if (sub.removed) return;
    // Whole milliseconds: jitter must not leave the clock on fractions.
    const at = Math.ceil(due);
    queue.push(sub.id, at);
    if (sleeper && at < sleeper.until) sleeper.controller.abort();
  };

  // ---- token windows -------------------------------------------------------------------------

  const windowAt = (key: KeyState, t: number) => Math.floor((t - key.offsetMs) / W);
  const windowStart = (key: KeyState, index: number) => index * W + key.offsetMs;

  /** The start of the next window in which the subscription holds a token, after window `from`. */
  const nextWindowAt = (key: KeyState, sub: Sub, from: number): number => {
    const next = nextActiveWindow(key.plan, sub.service, from);
    // No window at all (a budget of zero): look again in a cycle; a refresh replans sooner.
    return next === undefined ? clock.now() + key.plan.cycleMs : windowStart(key, next) + sub.phaseMs;
  };

  /** A token the client holds and will not renew mid-read: free to use, in any window. */
  const heldToken = (sub: Sub, now: number): 'held' | 'lapsing' | 'none' => {
    if (!client.hasValidToken(sub.accessKey, sub.service)) return 'none';
    const left = client.budget(sub.accessKey, sub.service).tokenExpiresInMs - tuning.clientRenewMarginMs;
    if (left >= tuning.tokenSafetyMs) return 'held';
    sub.lapsesAt = now + Math.max(250, left + 1);
    return 'lapsing';
  };

  /** LIMIT_SCOPE=address: a token only on the subscription's turn, within the one shared budget. */
  const addressEligibility = (sub: Sub, now: number, turns: AddressTokenTurns): Eligibility => {
    const window = Math.floor(now / W);
    const held = heldToken(sub, now);
    if (held === 'held') return { ok: true, acquire: false, window };
    if (held === 'lapsing') return { ok: false, at: sub.lapsesAt };
    // Parked until its next turn: the grant wakes it.
    if (sub.grantWindow !== window || sub.tokenWindow === window) return { ok: false, at: now + turns.windowsPerCycle * W };
    if (ledger.count(ADDRESS_POOL, now) >= turns.budget || client.budget(sub.accessKey, sub.service).tokensLeft <= 0) {
      const free = (ledger.oldest(ADDRESS_POOL, now) ?? now) + HOUR_MS + 1;
      return { ok: false, at: Math.floor(free / W) === window ? free : now + turns.windowsPerCycle * W };
    }
    return { ok: true, acquire: true, window };
  };

  /** Whether a read now stays within the token plan, and whether it will request a token. */
  const eligibility = (sub: Sub, now: number): Eligibility => {
    if (turns) return addressEligibility(sub, now, turns);
    const key = keys.get(sub.accessKey);
    if (!key) return { ok: false, at: now + W };
    const window = windowAt(key, now);
    const held = heldToken(sub, now);
    if (held === 'held') return { ok: true, acquire: false, window };
    // About to be renewed: a renewal must be a planned request, so wait until the token lapses.
    if (held === 'lapsing') return { ok: false, at: sub.lapsesAt };
    if (!isActiveIn(key.plan, sub.service, window) || sub.tokenWindow === window) {
      return { ok: false, at: nextWindowAt(key, sub, window + 1) };
    }
    if (ledger.count(key.accessKey, now) >= key.plan.budget) {
      // The rolling hour is full (a plan change, a restart, a retried token): wait for the oldest to age out.
      const free = (ledger.oldest(key.accessKey, now) ?? now) + HOUR_MS + 1;
      return { ok: false, at: windowAt(key, free) === window ? free : nextWindowAt(key, sub, window + 1) };
    }
    if (client.budget(sub.accessKey, sub.service).tokensLeft <= 0) {
      // The bot's own token requests used more than the reserve: leave the rest of this window to them.
      return { ok: false, at: nextWindowAt(key, sub, window + 1) };
    }
    return { ok: true, acquire: true, window };
  };

  // ---- subscriptions -------------------------------------------------------------------------

  /** The services the user is polled for now. */
  const activeServices = (user: Readonly<UserRecord> | undefined): Service[] => {
    if (!user || user.blocked || !user.key || !isAllowed(user.id)) return [];
    return SERVICES.filter((s) => {
      const f = user.filters[s];
      return f !== undefined && !f.paused;
    });
  };

  const planOf = (services: Iterable<Service>) =>
    planTokens({ services, tokensPerHour: config.LIMIT_TOKENS_PER_HOUR, reserve: tuning.tokenReserve, windowMs: W });

  const removeSub = (sub: Sub) => {
    sub.removed = true;
    queue.remove(sub.id);
    subs.delete(sub.id);
    const scope = scopes.get(sub.scope);
    scope?.subs.delete(sub);
    // An empty scope is dropped unless a 429 pause still holds it (a returning user must honour it).
    if (scope && scope.subs.size === 0 && scope.pausedUntil <= clock.now()) scopes.delete(sub.scope);
    const mine = subsByUser.get(sub.userId);
    mine?.delete(sub.service);
    if (mine?.size === 0) subsByUser.delete(sub.userId);
  };

  /** `firstReadWithinMs`: new subscriptions are first read at a random moment within it. */
  const refreshUser = (userId: number, firstReadWithinMs = floorMs) => {
    const user = store.getUser(userId);
    const wanted = activeServices(user);
    const accessKey = user?.key?.accessKey;
    const mine = subsByUser.get(userId) ?? new Map<Service, Sub>();

    for (const sub of [...mine.values()]) {
      if (sub.accessKey !== accessKey || !wanted.includes(sub.service)) removeSub(sub);
    }
    const oldKey = keyOfUser.get(userId);
    if (oldKey !== undefined && (oldKey !== accessKey || wanted.length === 0)) {
      keys.delete(oldKey);
      keyOfUser.delete(userId);
      client.setPollingTokens?.(oldKey, undefined);
    }
    if (!user || accessKey === undefined || wanted.length === 0) {
      subsByUser.delete(userId);
      return;
    }

    keyOfUser.set(userId, accessKey);
    // The ledger belongs to the key, not the plan: a new plan still counts the last hour's requests.
    const plan = planOf(wanted);
    keys.set(accessKey, { accessKey, userId, plan, offsetMs: hash(accessKey) % W });
    // Interactive token requests of the key keep to what this plan leaves of the hour.
    client.setPollingTokens?.(accessKey, plan.tokensPerCycle);

    const now = clock.now();
    const current = subsByUser.get(userId) ?? new Map<Service, Sub>();
    for (const service of wanted) {
      if (current.has(service)) continue;
      const id = subscriptionKey(userId, service);
      const sub: Sub = {
        id,
        subKey: id,
        userId,
        service,
        accessKey,
        keyRef: storedKeyRef(store, vault, userId, accessKey),
        scope: scopeIdOf(accessKey, service),
        phaseMs: Math.floor(random() * Math.min(2_000, W / 10)),
        tokenWindow: undefined,
        grantWindow: undefined,
        lastAcquireAt: undefined,
        waitingForWindow: false,
        lapsesAt: 0,
        lastStartAt: undefined,
        reserved: false,
        failures: 0,
        known: new Map(),
        latest: [],
        lastReadAt: undefined,
        lastStatusWriteAt: 0,
        inFlight: false,
        removed: false,
      };
      current.set(service, sub);
      subs.set(id, sub);
      scopeOf(sub.scope).subs.add(sub);
      // Spread at random: a restart then starts at the steady pace, not in a burst.
      schedule(sub, now + Math.floor(random() * firstReadWithinMs));
    }
    subsByUser.set(userId, current);
    // A new plan may open a window sooner for those parked until their next one.
    for (const sub of current.values()) {
      if (sub.waitingForWindow && !sub.inFlight) {
        sub.waitingForWindow = false;
        schedule(sub, now);
      }
    }
  };

  // ---- store bookkeeping ---------------------------------------------------------------------

  const writeStatus = (sub: Sub, change: Partial<ServiceStatus>) => {
    try {
      store.updateStatus(sub.userId, sub.service, change);
    } catch (err) {
      log.warn({ err, subKey: sub.subKey }, 'could not store the subscription status');
    }
  };

  /** Pauses the subscription for a fault only the user can fix, and tells them once. */
  const pauseFor = (sub: Sub, reason: NoticeReason, now: number) => {
    let paused = false;
    try {
      const user = store.getUser(sub.userId);
      if (user?.filters[sub.service] && !user.filters[sub.service]!.paused) {
        const updated = store.updateUser(sub.userId, (draft) => {
          const filter = draft.filters[sub.service];
          if (filter) {
            filter.paused = true;
            filter.pausedReason = reason;
          }
          draft.status[sub.service] = { ...(draft.status[sub.service] ?? emptyStatus()), lastError: { kind: reason, at: now } };
        });
        paused = true;
        notifier.notice(updated, reason, sub.service);
      }
    } catch (err) {
      log.warn({ err, subKey: sub.subKey }, 'could not pause the subscription');
    }
    log.info({ subKey: sub.subKey, reason, paused }, 'subscription paused: the user has to act');
    refreshUser(sub.userId);
  };

  // ---- reads ---------------------------------------------------------------------------------

  const onRead = (sub: Sub, read: ItemsRead) => {
    const now = clock.now();
    counters.reads += 1;
    readsMinute.add(now);
    sub.failures = 0;
    const user = store.getUser(sub.userId);
    const filter = user?.filters[sub.service];
    if (!user || !filter) return;
    // Shared across subscriptions: what is kept per subscription is then mostly references.
    const items = read.items.filter((item) => matchesFilter(item, filter.settings, now)).map((item) => interner.intern(item));
    const result = diffRead({
      now,
      chatId: user.alertChatId ?? user.chatId,
      items,
      entries: store.alerts.view(sub.subKey),
      known: sub.known,
      ...(sub.lastReadAt !== undefined ? { previousReadAt: sub.lastReadAt } : {}),
    });
    for (const [itemId, entry] of result.upserts) store.alerts.set(sub.subKey, itemId, entry);
    for (const itemId of result.deletes) store.alerts.delete(sub.subKey, itemId);
    sub.known = result.known;
    sub.latest = items;
    sub.lastReadAt = now;
    notifier.notify(sub, user, result.events);
    if (now - sub.lastStatusWriteAt >= tuning.statusWriteEveryMs) {
      sub.lastStatusWriteAt = now;
      writeStatus(sub, { lastGoodReadAt: now });
    }
  };

  /** Handles a failed read; returns when to try again (undefined: the subscription is gone). */
  const onError = (sub: Sub, err: unknown, acquired: boolean): number | undefined => {
    const now = clock.now();
    if (acquired && !client.hasValidToken(sub.accessKey, sub.service)) {
      // No token came of it: this window may try once more (the ledger still bounds the hour).
      sub.tokenWindow = undefined;
      if (isServiceError(err) && err.kind === 'rate_limited' && err.details.local && sub.lastAcquireAt !== undefined) {
        // Refused before sending: that token request never happened.
        ledger.unrecord(addressMode ? ADDRESS_POOL : sub.accessKey, sub.lastAcquireAt);
        counters.tokenRequests -= 1;
      }
    }
    if (isServiceError(err) && err.kind === 'rate_limited' && err.details.local) {
      counters.deferred += 1;
      log.debug({ subKey: sub.subKey, retryAfterMs: err.details.retryAfterMs }, 'read deferred by the local limiter');
      return now + Math.max(50, err.details.retryAfterMs ?? 1_000);
    }
    counters.errors += 1;
    errorsMinute.add(now);
    const kind = isServiceError(err) ? err.kind : 'malformed';
    if (kind === 'auth' || kind === 'forbidden') {
      pauseFor(sub, kind, now);
      return undefined;
    }
    writeStatus(sub, { lastError: { kind, at: now } });
    if (kind === 'rate_limited' && isServiceError(err)) {
      const scope = scopeOf(sub.scope);
      const wait = err.details.retryAfterMs ?? tuning.backoffBaseMs;
      scope.pausedUntil = Math.max(scope.pausedUntil, now + wait);
      log.warn({ subKey: sub.subKey, retryAfterMs: wait }, 'the service answered 429: this scope waits');
      return scope.pausedUntil;
    }
    sub.failures += 1;
    const backoff = Math.min(tuning.backoffMaxMs, tuning.backoffBaseMs * 2 ** (sub.failures - 1));
    // Full jitter on the upper half: failing subscriptions must not retry together.
    const wait = Math.max(floorMs, backoff * (0.5 + random() / 2));
    if (isServiceError(err)) log.warn({ subKey: sub.subKey, kind, failures: sub.failures, waitMs: Math.round(wait) }, 'read failed: backing off');
    else log.error({ err, subKey: sub.subKey }, 'read failed unexpectedly: backing off');
    return now + wait;
  };

  const startRead = (sub: Sub, acquire: boolean, window: number) => {
    if (acquire) {
      sub.tokenWindow = window;
      sub.lastAcquireAt = clock.now();
      ledger.record(addressMode ? ADDRESS_POOL : sub.accessKey, sub.lastAcquireAt);
      counters.tokenRequests += 1;
    }
    sub.inFlight = true;
    sub.lastStartAt = clock.now();
    const { signal } = abortReads;
    const task = (async () => {
      let next: number | undefined;
      try {
        const read = await client.readItems(sub.keyRef, sub.service, { wait: false, priority: 'poll', signal });
        if (sub.removed) return;
        onRead(sub, read);
        // Counted from the read's start, not its answer: a read's latency must not stretch the pace.
        next = nextReadAt(sub.lastStartAt!, clock.now(), Math.max(floorMs, paceMs) * loadFactor.factor, tuning.jitterRatio, random);
      } catch (err) {
        // Aborted by a shutdown that ran out of time: nothing to record.
        if (sub.removed || signal.aborted) return;
        next = onError(sub, err, acquire);
      } finally {
        sub.inFlight = false;
      }
      if (next !== undefined && running && !sub.removed) schedule(sub, next);
    })();
    inFlight.add(task);
    void task.finally(() => {
      inFlight.delete(task);
      slotFreed?.();
      slotFreed = undefined;
    });
  };

  /** Takes one due subscription: reads it now, or puts it back for when it may be read. */
  const dispatch = (sub: Sub, now: number) => {
    const user = store.getUser(sub.userId);
    const filter = user?.filters[sub.service];
    if (!user || user.blocked || !filter || filter.paused || user.key?.accessKey !== sub.accessKey || !isAllowed(user.id)) {
      refreshUser(sub.userId);
      return;
    }
    const wasReserved = sub.reserved;
    sub.reserved = false;
    sub.waitingForWindow = false;
    if (sub.lastStartAt !== undefined && now < sub.lastStartAt + floorMs) {
      schedule(sub, sub.lastStartAt + floorMs);
      return;
    }
    const ok = eligibility(sub, now);
    if (!ok.ok) {
      sub.waitingForWindow = true;
      schedule(sub, Math.max(ok.at, now + 1));
      return;
    }
    const scope = scopeOf(sub.scope);
    if (scope.pausedUntil > now) {
      schedule(sub, scope.pausedUntil + sub.phaseMs);
      return;
    }
    if (!wasReserved) {
      if (scope.nextSlotAt > now) {
        // The scope is busy: take the next free turn (subscriptions of a host are served in order).
        sub.reserved = true;
        schedule(sub, scope.nextSlotAt);
        scope.nextSlotAt += paceMs;
        return;
      }
      scope.nextSlotAt = now + paceMs;
    }
    // The limiter is the truth (latency moves when a slot frees; a lookup may take the next one):
    // wait for its room rather than be refused, keeping this subscription's turn.
    const freeInMs = client.pollFreeInMs?.(sub.accessKey, sub.service) ?? 0;
    if (freeInMs > 0) {
      sub.reserved = true;
      schedule(sub, now + freeInMs);
      return;
    }
    startRead(sub, ok.acquire, ok.window);
  };

  // ---- the loop ------------------------------------------------------------------------------

  const recordLag = (ms: number) => {
    lags[lagCount % LAG_SAMPLES] = ms;
    lagCount += 1;
  };

  const sleep = async (until: number) => {
    const controller = new AbortController();
    sleeper = { controller, until };
    await clock.sleep(Math.max(0, until - clock.now()), controller.signal);
    sleeper = undefined;
  };

  const prune = (now: number) => {
    nextPruneAt = now + tuning.pruneEveryMs;
    try {
      const removed = store.alerts.prune({ goneBefore: now - GONE_KEEP_MS, seenBefore: now - tuning.staleEntryMs });
      if (removed > 0) log.debug({ removed }, 'alert state pruned');
    } catch (err) {
      log.warn({ err }, 'could not prune the alert state');
    }
  };

  const saveLedger = (now: number) => {
    nextLedgerSaveAt = now + tuning.ledgerSaveEveryMs;
    return ledger.save(now).catch((err: unknown) => log.warn({ err }, 'could not write the token ledger'));
  };

  /** LIMIT_SCOPE=address: at each window start, hands out that window's tokens in turn. */
  const grantTurns = (now: number) => {
    const window = Math.floor(now / W);
    if (!turns || window === grantedWindow) return;
    grantedWindow = window;
    const windowEnd = (window + 1) * W;
    const members: TurnMember[] = [];
    for (const sub of subs.values()) {
      // A subscription backing off past this window would waste the turn.
      if (sub.failures > 0 && (queue.dueAt(sub.id) ?? 0) >= windowEnd) continue;
      members.push(sub);
    }
    for (const { userId, service } of turns.grant(window, members)) {
      const sub = subs.get(subscriptionKey(userId, service));
      if (!sub) continue;
      sub.grantWindow = window;
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
      if (!top || top.dueAt > now) {
        await sleep(Math.min(top?.dueAt ?? Infinity, now + tuning.maxSleepMs));
        continue;
      }
      if (inFlight.size >= tuning.maxConcurrentReads) {
        // One waiter, not a Promise.race over every read: a race adds a reaction to each of them per call.
        await new Promise<void>((resolve) => (slotFreed = resolve));
        continue;
      }
      queue.pop();
      const sub = subs.get(top.id);
      if (!sub || sub.inFlight) continue;
      recordLag(now - top.dueAt);
      loadFactor.observe(now - top.dueAt, now);
      try {
        dispatch(sub, now);
      } catch (err) {
        // One subscription's surprise must not stop everyone's alerts.
        log.error({ err, subKey: sub.subKey }, 'dispatch failed');
        schedule(sub, now + tuning.backoffMaxMs);
      }
    }
  };

  const settleReads = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };

  // ---- the port ------------------------------------------------------------------------------

  const coverage = (userId: number, extra?: Service): Partial<Record<Service, ServiceCoverage>> => {
    const user = store.getUser(userId);
    if (!user) return {};
    const listed = SERVICES.filter((s) => user.filters[s] !== undefined || s === extra);
    const active = listed.filter((s) => s === extra || !user.filters[s]!.paused);
    const polled = Boolean(user.key) && !user.blocked && isAllowed(userId);
    const plan = polled && !turns ? planOf(active) : undefined;
    // Under LIMIT_SCOPE=address the user's share of the one token budget depends on everyone's subscriptions.
    const members: TurnMember[] | undefined = turns && polled
      ? [...[...subs.values()].filter((s) => s.userId !== userId), ...active.map((service) => ({ userId, service }))]
      : undefined;
    const shares = members && turns ? turns.shares(members) : undefined;
    const shareOf = (service: Service) =>
      shares ? (shares.get(`${userId}:${service}`) ?? 0) : (plan?.services[service]?.share ?? 0);
    const result: Partial<Record<Service, ServiceCoverage>> = {};
    for (const service of listed) {
      const state: ServiceCoverage['state'] = !user.key
        ? 'no-key'
        : user.blocked
          ? 'blocked'
          : service !== extra && user.filters[service]!.paused
            ? 'paused'
            : 'active';
      const share = state === 'active' ? shareOf(service) : 0;
      let intervalMs = Math.max(floorMs, paceMs);
      if (config.LIMIT_SCOPE === 'address') {
        // Turns on the host are shared: the expected number of subscriptions reading at once.
        let load = share;
        for (const other of scopeOf(scopeIdOf('', service)).subs) {
          if (other.userId === userId) continue;
          // Token turns shared (LIMIT_SCOPE_TOKENS=address), or each key on its own plan.
          load += shares ? (shares.get(`${other.userId}:${service}`) ?? 0) : (keys.get(other.accessKey)?.plan.services[service]?.share ?? 0);
        }
        intervalMs = Math.max(floorMs, paceMs * Math.max(1, load));
      }
      // Under overload everyone is read less often than planned: /status must say so.
      result[service] = { share, intervalMs: Math.round(intervalMs * loadFactor.factor), state };
    }
    return result;
  };

  const stats = (): SchedulerStats => {
    const now = clock.now();
    const n = Math.min(lagCount, LAG_SAMPLES);
    let p99 = 0;
    if (n > 0) {
      const sorted = Array.from(lags.subarray(0, n)).sort((a, b) => a - b);
      p99 = sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)]!;
    }
    return {
      subscriptions: subs.size,
      reads: counters.reads,
      errors: counters.errors,
      readsLastMinute: readsMinute.total(now),
      errorsLastMinute: errorsMinute.total(now),
      deferred: counters.deferred,
      tokenRequests: counters.tokenRequests,
      lagMsP99: p99,
      inFlight: inFlight.size,
      loadFactor: loadFactor.factor,
      lastTickAt,
    };
  };

  return {
    start() {
      if (running) return;
      running = true;
      if (abortReads.signal.aborted) abortReads = new AbortController();
      // Every read in flight listens on it: hundreds at once are normal, not a leak.
      setMaxListeners(0, abortReads.signal);
      const { loaded, problem } = ledger.load(clock.now());
      if (problem) log.warn({ file: opts.ledgerFile }, problem);
      else if (loaded > 0) log.info({ tokenRequests: loaded }, 'token requests of the last hour read back');
      nextLedgerSaveAt = clock.now() + tuning.ledgerSaveEveryMs;
      // Each first read also requests a token: with thousands of subscriptions, starting them all
      // within one interval would ask the service (and this process) for twice the steady load.
      const users = store.listUsers();
      const starting = users.reduce((n, user) => n + activeServices(user).length, 0);
      const rampMs = Math.max(floorMs, (starting / tuning.startupReadsPerSecond) * 1000);
      for (const user of users) refreshUser(user.id, rampMs);
      log.info({ subscriptions: subs.size, scope: config.LIMIT_SCOPE, tokenScope: addressMode ? 'address' : 'key' }, 'scheduler started');
      loopDone = loop().catch((err: unknown) => {
        log.fatal({ err }, 'the scheduler loop stopped');
      });
    },

    async stop() {
      if (!running) return;
      running = false;
      sleeper?.controller.abort();
      slotFreed?.();
      await loopDone;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        // Real time on purpose: shutdown is bounded in wall-clock terms whatever the injected clock does.
        timer = setTimeout(() => resolve('timeout'), tuning.stopTimeoutMs);
        timer.unref();
      });
      const outcome = await Promise.race([settleReads().then(() => 'done' as const), timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        log.warn({ inFlight: inFlight.size }, 'reads still in flight at shutdown: aborted');
        abortReads.abort();
        await settleReads();
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

    coverage,

    latestItems(userId, service) {
      const mine = subsByUser.get(userId);
      if (!mine) return [];
      if (service) return [...(mine.get(service)?.latest ?? [])];
      return [...mine.values()].flatMap((sub) => sub.latest);
    },

    stats,
    get lastTickAt() {
      return lastTickAt;
    },
    whenIdle: settleReads,
    planFor(userId) {
      const user = store.getUser(userId);
      return user?.key && !turns ? keys.get(user.key.accessKey)?.plan : undefined;
    },
  };
}
