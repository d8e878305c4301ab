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
 *
 * The seam (`Limits`, scopes, permits, budgets) is in `limits-port.ts` and re-exported here; what
 * each scope is called and what it may send, in `limit-scopes.ts`; one scope's state and what
 * blocks its next send, in `scope-state.ts`.
 */
import { setMaxListeners } from 'node:events';
import Bottleneck from 'bottleneck';
import type { Clock } from '../clock.js';
import { backoffMs } from '../lib/backoff.js';
import { linkSignals } from './abort.js';
import { ServiceError, isServiceError } from './errors.js';
import { ClientClosedError, noWaitGraceMs, type LimitKind, type Limits, type LimitScope, type LimitsConfig, type Permit, type ScopeBudget } from './limits-port.js';
import { addressCounted, budgetsOf, createScopeIds, POLLING_TOKENS_UNPLANNED } from './limit-scopes.js';
import { ITEM_WINDOW_MS, ScopeState, type Refusal } from './scope-state.js';
import type { WindowEntry } from './sliding-window.js';

export * from './limits-port.js';
export { INTERACTIVE_READ_SHARE, INTERACTIVE_TOKENS_PER_HOUR, POLLING_TOKENS_UNPLANNED, USER_INTERACTIVE_SHARE, userShareOf } from './limit-scopes.js';

const HOUR = 3_600_000;
const LABELS: Record<LimitKind, { what: string; per: string }> = {
  tokens: { what: 'token requests', per: 'an hour' },
  filters: { what: 'filter writes', per: 'an hour' },
  items: { what: 'item reads', per: 'a minute' },
  dicts: { what: 'dictionary requests', per: 'a day' },
};

/** An admission that found the interactive cap taken: it goes back to wait outside the queue. */
const OVER_CAP = Symbol('over the interactive cap');

/** Bottleneck priorities: lower runs first. */
const PRIORITY = { interactive: 1, poll: 5 } as const;
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
  const { limitOf, capOf } = budgetsOf(config, interactiveCaps);
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

  const { scopeId, forget: forgetScopeIds } = createScopeIds(config);
  const modes = { scopeMode: config.LIMIT_SCOPE, tokenScopeMode: tokenScope };

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
    forgetScopeIds();
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
      const cap = scope.kind === 'tokens' ? tokenCapOf(scope.accessKey) : capOf[scope.kind];
      state = new ScopeState(scope.kind, limitOf[scope.kind], cap, addressCounted(modes, scope.kind));
      states.set(id, state);
    }
    return state;
  };

  const refusal = (state: ScopeState, retryAfterMs: number, why_: Refusal): ServiceError => {
    const { kind } = state;
    const { what, per } = LABELS[kind];
    const secs = Math.ceil(retryAfterMs / 1000);
    const why =
      why_ === 'paused'
        ? `${what} are paused after the service said the limit was reached`
        : why_ === 'interactive'
          ? `the ${state.interactiveCap} ${what} ${per} left to interactive use are taken (the rest is kept for alerts)`
          : why_ === 'user'
            ? `this user holds their ${state.userShare ?? 0} of the ${state.interactiveCap} ${what} ${per} left to interactive use (the rest is kept for other users)`
            : `the limit of ${limitOf[kind]} ${what} ${per} is reached`;
    return new ServiceError('rate_limited', `${why}; the next fits in about ${secs} s (nothing was sent)`, {
      local: true,
      retryAfterMs,
      limit: kind,
      ...(why_ === 'user' && { share: 'user' as const }),
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
   * The admission job of one scope (bottleneck runs one at a time per scope); past `deadline`
   * (a caller that waits only briefly) it refuses instead of waiting on.
   */
  const admit = async (state: ScopeState, signal: AbortSignal, interactive: boolean, deadline: number, user: number | undefined): Promise<WindowEntry | typeof OVER_CAP> => {
    for (;;) {
      if (signal.aborted) throw abortReason(signal, closing.signal);
      const now = clock.now();
      const { ms, why } = state.blocker(now, interactive, user);
      if (ms === 0) return state.window.take(now, interactive, user);
      // Another lookup took the cap's room first: asleep here, this one would hold up every poll queued behind it.
      if (why === 'interactive' || why === 'user') return OVER_CAP;
      if (now + ms > deadline) throw refusal(state, ms === Infinity ? state.window.windowMs : ms, why);
      if (ms !== Infinity) await clock.sleep(ms, signal);
      else if (deadline === Infinity) await state.changed(signal);
      else await Promise.race([state.changed(signal), clock.sleep(deadline - now, signal)]);
    }
  };

  /** Waits until the interactive cap, and the user's share of it, have room (or refuses past `deadline`). */
  const capRoom = async (state: ScopeState, signal: AbortSignal, deadline: number, user: number | undefined): Promise<void> => {
    for (;;) {
      if (signal.aborted) throw abortReason(signal, closing.signal);
      const now = clock.now();
      const capMs = state.window.interactiveWaitMs(now, state.interactiveCap);
      const userMs = capMs === 0 ? state.userWaitMs(now, user) : 0;
      const ms = Math.max(capMs, userMs);
      if (ms === 0) return;
      if (now + ms > deadline) throw refusal(state, ms === Infinity ? state.window.windowMs : ms, capMs > 0 ? 'interactive' : 'user');
      if (ms === Infinity) await state.changed(signal);
      else await clock.sleep(ms, signal);
    }
  };

  /** A send now or a refusal, without queueing; a poll leaves the next slot to a waiting lookup. */
  const takeNow = (state: ScopeState, interactive: boolean, user: number | undefined): WindowEntry => {
    const now = clock.now();
    const { ms, why } = state.blocker(now, interactive, user);
    if (ms > 0) throw refusal(state, ms === Infinity ? state.window.windowMs : ms, why);
    if (!interactive && state.lookupWaiting(now)) throw refusal(state, state.slotMs, 'full');
    return state.window.take(now, interactive, user);
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
      ...(state.userShare !== undefined && { userShare: state.userShare }),
      left: Math.max(0, state.window.limit - used - state.waiting),
      pausedForMs,
      nextFreeInMs: Math.max(pausedForMs, wait === Infinity ? state.window.windowMs : wait),
    };
  };

  return {
    scopeMode: config.LIMIT_SCOPE,
    itemWindowMs: ITEM_WINDOW_MS,
    tokenScopeMode: tokenScope,
    scopeId,
    budget,

    async acquire(scope, opts = {}) {
      if (closing.signal.aborted) throw new ClientClosedError();
      if (opts.signal?.aborted) throw opts.signal.reason;
      const state = stateOf(scope);
      const interactive = opts.priority === 'interactive';
      // Counted against the user's own share where the scope is every user's.
      const user = interactive ? opts.userId : undefined;
      let deadline = Infinity;
      if (opts.wait === false) {
        // A user waiting for a lookup may wait for the next slot: polls leave it to them.
        const grace = noWaitGraceMs(scope, opts, state.slotMs);
        const now = clock.now();
        const { ms, why } = state.blocker(now, interactive, user);
        if (grace <= 0 || ms > grace || why !== 'full') {
          return permitFor(state, takeNow(state, interactive, user));
        }
        if (ms === 0 && state.waiting === 0) return permitFor(state, state.window.take(now, interactive, user));
        deadline = now + grace;
      }

      const { signal, dispose } = linkSignals(opts.signal, closing.signal);
      const limiter = groups[scope.kind].key(scopeId(scope));
      state.waiting += 1;
      if (interactive) state.interactiveWaiting += 1;
      // An interactive call over its cap waits outside the scope's queue: in it, it would hold up the polls behind it.
      const admitted = (): Promise<WindowEntry> =>
        (interactive ? capRoom(state, signal, deadline, user) : Promise.resolve())
          .then(() => limiter.schedule({ priority: PRIORITY[opts.priority ?? 'poll'] }, () => admit(state, signal, interactive, deadline, user)))
          .then((entry) => (entry === OVER_CAP ? admitted() : entry));
      const job = admitted();
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
      const { ms } = state.blocker(now, false);
      if (ms === Infinity) return state.slotMs;
      // A lookup waiting takes the next slot: the poll comes one slot after it.
      return state.lookupWaiting(now) ? ms + state.slotMs : ms;
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
