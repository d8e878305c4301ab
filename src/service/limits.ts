/**
 * The one set of limiters every request passes, built from the LIMIT_* settings.
 *
 * Scopes (service-api.md §7): token requests per access key (across services), filter writes
 * and item reads per (access key, Data API host); the seed does not say whether the service
 * counts per key or per address, so each is a setting: LIMIT_SCOPE for item reads and filter
 * writes (address: one budget per host for all users) and LIMIT_SCOPE_TOKENS for token requests
 * (default key: the token endpoint is addressed by the key). Dictionaries: once for the whole bot.
 *
 * Polling's share: interactive calls (a user waiting: /connect checks, lookups, filter writes)
 * go ahead of polls but may hold only a capped number of each window's sends (`interactiveCap`),
 * so however many lookups users fire, the rest of the window is polling's. Polls, in turn, never
 * take a slot an interactive call is waiting for: a lookup waits at most for the next free slot.
 *
 * The guarantee holds for a sliding window on the injected clock: each scope keeps a log of its
 * sends (`SlidingWindow`) and a send waits until the oldest one has left the window. Bottleneck
 * (one `Group` per kind, one limiter per scope with its own `id`) runs the admissions of a scope
 * one at a time in priority order, interactive ahead of polls. Bottleneck's own timers never
 * decide the window, so a ManualClock standing still or jumping minutes is obeyed exactly.
 *
 * Sharing these limits between bot processes later means giving `createScopeGroup` the
 * `datastore: 'ioredis'` options and keeping the send logs in the same Redis.
 */
import { setMaxListeners } from 'node:events';
import Bottleneck from 'bottleneck';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { backoffMs } from '../lib/backoff.js';
import { linkSignals } from './abort.js';
import type { RequestOptions } from './client-types.js';
import { ServiceError, isServiceError } from './errors.js';
import { serviceBaseUrl, type PathConfig } from './paths.js';
import type { Service } from './services.js';
import { SlidingWindow, type WindowEntry } from './sliding-window.js';

/** The four limits of the seed (§8). */
export type LimitKind = 'tokens' | 'filters' | 'items' | 'dicts';

/** What a request counts against. */
export type LimitScope =
  | { kind: 'tokens'; accessKey: string }
  | { kind: 'filters' | 'items'; accessKey: string; service: Service }
  | { kind: 'dicts' };

/** The settings the limits are built from (the hosts name the scopes). */
export type LimitsConfig = PathConfig &
  Pick<
    Config,
    | 'LIMIT_TOKENS_PER_HOUR'
    | 'LIMIT_FILTERS_PER_HOUR'
    | 'LIMIT_ITEMS_PER_MINUTE'
    | 'LIMIT_DICTS_PER_DAY'
    | 'LIMIT_SCOPE'
  > &
  // Optional so that callers built before the setting keep their meaning (key).
  Partial<Pick<Config, 'LIMIT_SCOPE_TOKENS'>>;

/** The right to send one request, taken from a scope's window. */
export interface Permit {
  /** The answer arrived (or the send failed): the send leaves the window one window from now. */
  release(): void;
  /** Nothing was sent after all: the slot is given back. */
  cancel(): void;
}

/** One scope's state, for /status and the scheduler's plan. */
export interface ScopeBudget {
  limit: number;
  windowMs: number;
  /** Sends counted in the window now, in flight ones included. */
  used: number;
  inFlight: number;
  /** Callers queued for this scope (waiting for room, a pause, or their turn). */
  waiting: number;
  /** Interactive sends counted in the window now, and how many the window allows them. */
  interactiveUsed: number;
  interactiveCap: number;
  /** Sends that would still fit now after everyone queued: max(0, limit - used - waiting). */
  left: number;
  /** ms until this scope's 429 pause ends; 0 when not paused. */
  pausedForMs: number;
  /** ms until one more send would be admitted (an estimate of one window while all are in flight). */
  nextFreeInMs: number;
}

/** The limiters every request of the client passes; also read by the scheduler to plan. */
export interface Limits {
  /** LIMIT_SCOPE: how item reads and filter writes are counted. */
  readonly scopeMode: 'key' | 'address';
  /** LIMIT_SCOPE_TOKENS: how token requests are counted. */
  readonly tokenScopeMode: 'key' | 'address';
  /**
   * Takes a slot in `scope`: waits for room (wait !== false) or throws
   * ServiceError('rate_limited', { local: true, retryAfterMs }) at once, having sent nothing.
   * A caller's abort rejects with the signal's reason; `close()` rejects with `ClientClosedError`.
   * With wait === false an interactive item read still waits up to one read slot (or
   * `opts.maxWaitMs`): the slot a poll would have taken is its.
   */
  acquire(scope: LimitScope, opts?: RequestOptions): Promise<Permit>;
  /** A 429 arrived: pause the scope for `retryAfterMs`, or a growing backoff when absent. Returns the pause. */
  penalize(scope: LimitScope, retryAfterMs?: number): number;
  /**
   * A request of the scope failed with `err`: a 429 from the service pauses the scope and comes
   * back carrying the pause as its `retryAfterMs`; anything else comes back as it was.
   */
  failed(scope: LimitScope, err: unknown): unknown;
  /** A request of the scope succeeded: the 429 backoff starts over. */
  recover(scope: LimitScope): void;
  budget(scope: LimitScope): ScopeBudget;
  /** Token requests the key may still send in the current hour window (shared by all keys under LIMIT_SCOPE=address). */
  tokensLeft(accessKey: string): number;
  /**
   * The token requests an hour the scheduler's plan spends on the key (undefined: the key is not
   * polled). Interactive use may take the rest of the key's hour, never less than
   * INTERACTIVE_TOKENS_PER_HOUR; a key not polled keeps POLLING_TOKENS_UNPLANNED for its first
   * filter. Ignored under LIMIT_SCOPE_TOKENS=address, where the whole pool is polling's.
   */
  setPollingTokens(accessKey: string, perHour: number | undefined): void;
  /** Item reads that still fit in the current minute window of this key's scope on the service's host. */
  readsLeft(accessKey: string, service: Service): number;
  /** Item reads already committed in that scope: queued plus in flight. */
  reservedReads(accessKey: string, service: Service): number;
  /**
   * ms until a poll of that scope would be admitted: 0 when now; a lookup waiting for the next
   * slot or a 429 pause push it later. Cheap enough to ask before every poll.
   */
  pollFreeInMs(accessKey: string, service: Service): number;
  /** The scope's identity: equal ids share one budget (one host under LIMIT_SCOPE=address). */
  scopeId(scope: LimitScope): string;
  /** Scopes whose state is held now (idle ones are dropped: see IDLE_SWEEP_MS). */
  scopeCount(): number;
  /** Rejects every waiting caller and stops the limiters. */
  close(): Promise<void>;
}

/** Rejection of calls waiting on limits that were closed (the bot is shutting down). */
export class ClientClosedError extends Error {
  override name = 'ClientClosedError';
  constructor() {
    super('the service client was closed');
  }
}

const HOUR = 3_600_000;
const WINDOWS: Record<LimitKind, number> = { tokens: HOUR, filters: HOUR, items: 60_000, dicts: 24 * HOUR };
const LABELS: Record<LimitKind, { what: string; per: string }> = {
  tokens: { what: 'token requests', per: 'an hour' },
  filters: { what: 'filter writes', per: 'an hour' },
  items: { what: 'item reads', per: 'a minute' },
  dicts: { what: 'dictionary requests', per: 'a day' },
};
/** Bottleneck priorities: lower runs first. */
const PRIORITY = { interactive: 1, poll: 5 } as const;
/**
 * Token requests an hour interactive use may make in one scope: the token plan leaves exactly
 * this many of the hour to the bot (/connect checks, a renewal after a 401), the rest is polling's.
 */
export const INTERACTIVE_TOKENS_PER_HOUR = 2;
/**
 * Token requests an hour kept for polling a key the scheduler has no plan for yet: what one
 * service kept readable all the time needs (an hour of 5-minute tokens). A new user's /connect,
 * a mistyped secret and the first filters fit in the rest; their first service then starts at
 * full coverage.
 */
export const POLLING_TOKENS_UNPLANNED = 12;
/** Share of each read window interactive lookups may hold; the rest is polling's whatever users do. */
export const INTERACTIVE_READ_SHARE = 0.2;
/** First pause after a 429 without Retry-After; it doubles per 429 in a row, up to one window. */
const BACKOFF_BASE_MS = 2_000;
/**
 * How often state of idle scopes is dropped: a scope with nothing in its window, nothing waiting
 * and no pause (a key that was only tried, an hour ago) holds nothing worth keeping, and keys that
 * were only tried would otherwise pile up for the life of the process.
 */
export const IDLE_SWEEP_MS = 60_000;
/** Bottleneck drops a scope's idle limiter after this; longer than any window so a scope keeps one queue. */
const GROUP_IDLE_MS = 2 * 24 * HOUR;

/** The single place limiters are constructed: one Group per kind, one limiter (with an id) per scope. */
function createScopeGroup(kind: LimitKind): Bottleneck.Group {
  return new Bottleneck.Group({ id: `bb-limits-${kind}`, maxConcurrent: 1, minTime: 0, timeout: GROUP_IDLE_MS });
}

class ScopeState {
  readonly window: SlidingWindow;
  pausedUntil = 0;
  strikes = 0;
  waiting = 0;
  /** Interactive callers queued: a poll leaves them the next slot. */
  interactiveWaiting = 0;
  private wake: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    readonly kind: LimitKind,
    limit: number,
    /** Interactive sends allowed per window (a key's token cap follows its polling plan). */
    public interactiveCap: number,
  ) {
    this.window = new SlidingWindow(limit, WINDOWS[kind]);
  }

  /** One limit's even spacing: a window's length over its sends. */
  get slotMs(): number {
    return this.window.windowMs / this.window.limit;
  }

  /** Resolves on the next release, cancel or pause change (or when `signal` aborts). */
  changed(signal: AbortSignal): Promise<void> {
    if (!this.wake) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      this.wake = { promise, resolve };
    }
    const { promise } = this.wake;
    return new Promise<void>((resolve) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void promise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.resolve();
  }
}

/** What `createLimits` needs. */
export interface LimitsOptions {
  config: LimitsConfig;
  clock: Clock;
  /** Jitter of the 429 backoff; default Math.random. */
  random?: () => number;
  /**
   * Interactive sends allowed per window and scope, per kind (the rest of the limit is kept for
   * polling). Defaults: tokens INTERACTIVE_TOKENS_PER_HOUR, item reads INTERACTIVE_READ_SHARE of
   * the limit (at least one), filter writes and dictionaries the whole limit (polling makes none).
   */
  interactiveCaps?: Partial<Record<LimitKind, number>>;
}

/** Builds the one set of limiters from the LIMIT_* settings. */
export function createLimits({ config, clock, random = Math.random, interactiveCaps = {} }: LimitsOptions): Limits {
  const limitOf: Record<LimitKind, number> = {
    tokens: config.LIMIT_TOKENS_PER_HOUR,
    filters: config.LIMIT_FILTERS_PER_HOUR,
    items: config.LIMIT_ITEMS_PER_MINUTE,
    dicts: config.LIMIT_DICTS_PER_DAY,
  };
  const capOf: Record<LimitKind, number> = {
    tokens: Math.min(limitOf.tokens, interactiveCaps.tokens ?? INTERACTIVE_TOKENS_PER_HOUR),
    items: Math.min(limitOf.items, interactiveCaps.items ?? Math.max(1, Math.floor(limitOf.items * INTERACTIVE_READ_SHARE))),
    filters: Math.min(limitOf.filters, interactiveCaps.filters ?? limitOf.filters),
    dicts: Math.min(limitOf.dicts, interactiveCaps.dicts ?? limitOf.dicts),
  };
  const tokenScope = config.LIMIT_SCOPE_TOKENS ?? 'key';
  const groups: Record<LimitKind, Bottleneck.Group> = {
    tokens: createScopeGroup('tokens'),
    filters: createScopeGroup('filters'),
    items: createScopeGroup('items'),
    dicts: createScopeGroup('dicts'),
  };
  const states = new Map<string, ScopeState>();
  const closing = new AbortController();
  // Every call waiting for a slot listens on it; hundreds at once under load are normal.
  setMaxListeners(0, closing.signal);

  const scopeIdOf = (scope: LimitScope): string => {
    switch (scope.kind) {
      case 'tokens':
        return tokenScope === 'address'
          ? `tokens@${config.BB_AUTH_URL}`
          : `tokens:${encodeURIComponent(scope.accessKey)}`;
      case 'dicts':
        return `dicts@${config.BB_DICTS_URL}`;
      default: {
        const host = serviceBaseUrl(config, scope.service);
        return config.LIMIT_SCOPE === 'address'
          ? `${scope.kind}@${host}`
          : `${scope.kind}:${encodeURIComponent(scope.accessKey)}@${host}`;
      }
    }
  };
  // Asked several times per read: the ids of item reads are kept per service and key, not built each time.
  const readIds = new Map<Service, Map<string, string>>();
  const scopeId = (scope: LimitScope): string => {
    if (scope.kind !== 'items') return scopeIdOf(scope);
    let ofService = readIds.get(scope.service);
    if (!ofService) readIds.set(scope.service, (ofService = new Map()));
    let id = ofService.get(scope.accessKey);
    if (id === undefined) {
      id = scopeIdOf(scope);
      ofService.set(scope.accessKey, id);
    }
    return id;
  };

  /** Token requests an hour each polled key's plan spends (key token scope only). */
  const pollingTokens = new Map<string, number>();
  const tokenCapOf = (accessKey: string): number => {
    if (tokenScope === 'address') return capOf.tokens;
    const polling = pollingTokens.get(accessKey) ?? POLLING_TOKENS_UNPLANNED;
    return Math.min(limitOf.tokens, Math.max(capOf.tokens, limitOf.tokens - polling));
  };

  let nextSweepAt = clock.now() + IDLE_SWEEP_MS;
  const sweepIdle = (now: number) => {
    nextSweepAt = now + IDLE_SWEEP_MS;
    // Rebuilt as asked: keys that were only tried leave no id behind.
    readIds.clear();
    for (const [id, state] of states) {
      // used() counts sends in flight too.
      if (state.waiting > 0 || state.pausedUntil > now || state.window.used(now) > 0) continue;
      states.delete(id);
      void groups[state.kind].deleteKey(id);
    }
  };

  const stateOf = (scope: LimitScope): ScopeState => {
    const now = clock.now();
    if (now >= nextSweepAt) sweepIdle(now);
    const id = scopeId(scope);
    let state = states.get(id);
    if (!state) {
      state = new ScopeState(scope.kind, limitOf[scope.kind], scope.kind === 'tokens' ? tokenCapOf(scope.accessKey) : capOf[scope.kind]);
      states.set(id, state);
    }
    return state;
  };

  const refusal = (kind: LimitKind, retryAfterMs: number, why_: 'paused' | 'full' | 'interactive'): ServiceError => {
    const { what, per } = LABELS[kind];
    const secs = Math.ceil(retryAfterMs / 1000);
    const why =
      why_ === 'paused'
        ? `${what} are paused after the service said the limit was reached`
        : why_ === 'interactive'
          ? `the ${capOf[kind]} ${what} ${per} left to interactive use are taken (the rest is kept for alerts)`
          : `the limit of ${limitOf[kind]} ${what} ${per} is reached`;
    return new ServiceError('rate_limited', `${why}; the next fits in about ${secs} s (nothing was sent)`, {
      local: true,
      retryAfterMs,
      limit: kind,
    });
  };

  const permitFor = (state: ScopeState, entry: WindowEntry): Permit => {
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        state.window.release(entry, clock.now());
        state.notify();
      },
      cancel: () => {
        if (done) return;
        done = true;
        state.window.cancel(entry);
        state.notify();
      },
    };
  };

  /**
   * What stands between a send and now: 0 when it may go; else ms to wait (Infinity: until a
   * send in flight is answered) and why.
   */
  const blocker = (state: ScopeState, now: number, interactive: boolean): { ms: number; why: 'paused' | 'full' | 'interactive' } => {
    const pause = state.pausedUntil - now;
    if (pause > 0) return { ms: pause, why: 'paused' };
    const wait = state.window.waitMs(now);
    if (wait > 0) return { ms: wait, why: 'full' };
    if (interactive) {
      const capWait = state.window.interactiveWaitMs(now, state.interactiveCap);
      if (capWait > 0) return { ms: capWait, why: 'interactive' };
    }
    return { ms: 0, why: 'full' };
  };

  /**
   * The admission job of one scope (bottleneck runs one at a time per scope); past `deadline`
   * (a caller that waits only briefly) it refuses instead of waiting on.
   */
  const admit = async (state: ScopeState, signal: AbortSignal, interactive: boolean, deadline: number): Promise<WindowEntry> => {
    for (;;) {
      if (signal.aborted) throw abortReason(signal, closing.signal);
      const now = clock.now();
      const { ms, why } = blocker(state, now, interactive);
      if (ms === 0) return state.window.take(now, interactive);
      if (now + ms > deadline) throw refusal(state.kind, ms === Infinity ? state.window.windowMs : ms, why);
      if (ms !== Infinity) await clock.sleep(ms, signal);
      else if (deadline === Infinity) await state.changed(signal);
      else await Promise.race([state.changed(signal), clock.sleep(deadline - now, signal)]);
    }
  };

  /** Waits until the interactive cap has room (or refuses past `deadline`). */
  const capRoom = async (state: ScopeState, signal: AbortSignal, deadline: number): Promise<void> => {
    for (;;) {
      if (signal.aborted) throw abortReason(signal, closing.signal);
      const now = clock.now();
      const ms = state.window.interactiveWaitMs(now, state.interactiveCap);
      if (ms === 0) return;
      if (now + ms > deadline) throw refusal(state.kind, ms === Infinity ? state.window.windowMs : ms, 'interactive');
      if (ms === Infinity) await state.changed(signal);
      else await clock.sleep(ms, signal);
    }
  };

  /** An interactive caller is queued for the next slot (not one held back by its cap). */
  const lookupWaiting = (state: ScopeState, now: number): boolean =>
    state.interactiveWaiting > 0 && state.window.interactiveWaitMs(now, state.interactiveCap) === 0;

  /** A send now or a refusal, without queueing; a poll leaves the next slot to a waiting lookup. */
  const takeNow = (state: ScopeState, interactive: boolean): WindowEntry => {
    const now = clock.now();
    const { ms, why } = blocker(state, now, interactive);
    if (ms > 0) throw refusal(state.kind, ms === Infinity ? state.window.windowMs : ms, why);
    if (!interactive && lookupWaiting(state, now)) throw refusal(state.kind, state.slotMs, 'full');
    return state.window.take(now, interactive);
  };

  const budget = (scope: LimitScope): ScopeBudget => {
    const state = stateOf(scope);
    const now = clock.now();
    const used = state.window.used(now);
    const pausedForMs = Math.max(0, state.pausedUntil - now);
    const wait = state.window.waitMs(now);
    return {
      limit: state.window.limit,
      windowMs: state.window.windowMs,
      used,
      inFlight: state.window.inFlight(),
      waiting: state.waiting,
      interactiveUsed: state.window.interactiveUsed(now),
      interactiveCap: state.interactiveCap,
      left: Math.max(0, state.window.limit - used - state.waiting),
      pausedForMs,
      nextFreeInMs: Math.max(pausedForMs, wait === Infinity ? state.window.windowMs : wait),
    };
  };

  return {
    scopeMode: config.LIMIT_SCOPE,
    tokenScopeMode: tokenScope,
    scopeId,
    budget,

    async acquire(scope, opts = {}) {
      if (closing.signal.aborted) throw new ClientClosedError();
      if (opts.signal?.aborted) throw opts.signal.reason;
      const state = stateOf(scope);
      const interactive = opts.priority === 'interactive';
      let deadline = Infinity;
      if (opts.wait === false) {
        // A user waiting for a lookup may wait for the next slot: polls leave it to them.
        const grace = opts.maxWaitMs ?? (interactive && scope.kind === 'items' ? state.slotMs + 100 : 0);
        const now = clock.now();
        const { ms, why } = blocker(state, now, interactive);
        if (grace <= 0 || ms > grace || why !== 'full') {
          return permitFor(state, takeNow(state, interactive));
        }
        if (ms === 0 && state.waiting === 0) return permitFor(state, state.window.take(now, interactive));
        deadline = now + grace;
      }

      const { signal, dispose } = linkSignals(opts.signal, closing.signal);
      const limiter = groups[scope.kind].key(scopeId(scope));
      state.waiting += 1;
      if (interactive) state.interactiveWaiting += 1;
      // An interactive call over its cap waits outside the scope's queue: in it, it would hold up the polls behind it.
      const job = (interactive ? capRoom(state, signal, deadline) : Promise.resolve()).then(() =>
        limiter.schedule({ priority: PRIORITY[opts.priority ?? 'poll'] }, () => admit(state, signal, interactive, deadline)),
      );
      try {
        return await new Promise<Permit>((resolve, reject) => {
          let settled = false;
          const onAbort = () => {
            if (settled) return;
            settled = true;
            reject(abortReason(signal, closing.signal));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          job.then(
            (entry) => {
              signal.removeEventListener('abort', onAbort);
              dispose();
              if (settled) {
                // The caller gave up while this admission finished: give the slot back.
                state.window.cancel(entry);
                state.notify();
                return;
              }
              settled = true;
              resolve(permitFor(state, entry));
            },
            (err: unknown) => {
              signal.removeEventListener('abort', onAbort);
              dispose();
              if (settled) return;
              settled = true;
              reject(closing.signal.aborted ? new ClientClosedError() : err);
            },
          );
        });
      } finally {
        state.waiting -= 1;
        if (interactive) state.interactiveWaiting -= 1;
      }
    },

    penalize(scope, retryAfterMs) {
      const state = stateOf(scope);
      state.strikes += 1;
      // Without a Retry-After: the shared backoff, from 2 s up to the scope's own window.
      const pause = Math.round(
        retryAfterMs ?? backoffMs({ baseMs: BACKOFF_BASE_MS, maxMs: state.window.windowMs }, state.strikes, random),
      );
      state.pausedUntil = Math.max(state.pausedUntil, clock.now() + pause);
      state.notify();
      return pause;
    },

    failed(scope, err) {
      if (!isServiceError(err) || err.kind !== 'rate_limited' || err.details.local) return err;
      const pause = this.penalize(scope, err.details.retryAfterMs);
      return new ServiceError('rate_limited', err.message, { ...err.details, retryAfterMs: pause });
    },

    recover(scope) {
      stateOf(scope).strikes = 0;
    },

    tokensLeft: (accessKey) => budget({ kind: 'tokens', accessKey }).left,
    setPollingTokens(accessKey, perHour) {
      if (tokenScope === 'address') return;
      if (perHour === undefined) pollingTokens.delete(accessKey);
      else pollingTokens.set(accessKey, perHour);
      const state = states.get(scopeId({ kind: 'tokens', accessKey }));
      if (state) state.interactiveCap = tokenCapOf(accessKey);
    },
    readsLeft: (accessKey, service) => budget({ kind: 'items', accessKey, service }).left,
    scopeCount: () => states.size,
    reservedReads(accessKey, service) {
      const b = budget({ kind: 'items', accessKey, service });
      return b.waiting + b.inFlight;
    },
    pollFreeInMs(accessKey, service) {
      const state = stateOf({ kind: 'items', accessKey, service });
      const now = clock.now();
      const { ms } = blocker(state, now, false);
      if (ms === Infinity) return state.slotMs;
      // A lookup waiting takes the next slot: the poll comes one slot after it.
      return lookupWaiting(state, now) ? ms + state.slotMs : ms;
    },

    async close() {
      if (closing.signal.aborted) return;
      closing.abort(new ClientClosedError());
      const stops: Promise<void>[] = [];
      for (const group of Object.values(groups)) {
        for (const { limiter } of group.limiters()) {
          stops.push(limiter.stop({ dropWaitingJobs: true, dropErrorMessage: 'the service client was closed' }));
        }
      }
      await Promise.allSettled(stops);
      // A group's clean-up timer keeps it, and every limiter in it, alive for a day: let them go now.
      for (const group of Object.values(groups)) for (const key of group.keys()) group.deleteKey(key);
    },
  };
}

function abortReason(signal: AbortSignal, closing: AbortSignal): unknown {
  if (closing.aborted) return new ClientClosedError();
  return signal.reason;
}
