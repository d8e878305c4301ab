/**
 * The limits of a bot that runs as several processes: the in-process `Limits` (bottleneck, the
 * local send log, priorities, 429 pauses) decorated with the shared sliding windows in Redis
 * (limit-window.ts). A send needs both: the local admission first (so a process queues its own
 * callers in priority order without asking Redis for each), then the shared window. A refusal of
 * the shared window gives the local permit back, pauses the scope locally until the oldest shared
 * send leaves (`penalize`), and waits — through the local limiter again, so the caller's abort
 * and the client's close are honoured as for any local wait; a caller that does not wait
 * (`wait: false`, the scheduler's polls) gets the usual local refusal at once, nothing sent.
 *
 * Scopes are the local ones (`scopeId`): per key and host, or per host under LIMIT_SCOPE=address.
 * Under the address scope the shared scope also names BB_LOCAL_ADDRESS, since the service then
 * counts each egress address on its own: each process bound to its own address has its own
 * budget, and processes sharing an address share one. Dictionaries have one budget for the whole
 * bot. The token window in Redis is the token requests' hourly log that outlives restarts.
 *
 * A send costs one round trip to Redis when its answer comes within SHARED_RELEASE_SLACK_MS (each
 * shared send counts that much longer), two when slower (the answer's time is written back).
 *
 * A lookup (priority 'interactive') refused by a full shared window marks the scope for a moment;
 * meanwhile every process's polls leave the last free slot to it (limit-window.ts), so a user's
 * /item waits for the next slot even when other processes poll the same scope at full pace.
 *
 * Interactive use's share is counted across processes too: each shared send says whether it was
 * interactive, and for whom, so an interactive send over the scope's interactive cap (or, in a
 * scope every user shares, over its user's share of it) is refused by the shared window whatever
 * the number of processes. Such a refusal holds back only interactive callers: polls go on, and
 * the scope is not paused.
 *
 * A 429 from the service pauses the scope in every process, not only in the one that got it:
 * `failed` records the pause beside the shared window, whose `acquire` then refuses until it ends
 * (the others would only be refused too, and a service counting refusals may lengthen its pause).
 *
 * Redis unavailable: the call fails as ServiceError 'timeout' (transient, nothing sent), never
 * waits on a dead connection, and the local permit is given back.
 */
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { silentLogger, type Logger } from '../logger.js';
import { AbortGroup } from '../service/abort.js';
import { isServiceError, ServiceError } from '../service/errors.js';
import { ClientClosedError, noWaitGraceMs, type LimitScope, type Limits, type Permit } from '../service/limits.js';
import { addressCounted } from '../service/limit-scopes.js';
import { WINDOWS } from '../service/scope-state.js';
import type { InteractiveShare, LimitWindows, WindowEntry } from './limit-window.js';
import { bounded, REDIS_CALL_TIMEOUT_MS } from './redis-calls.js';

/**
 * Extra time a send stays counted in the shared window, as in the local one: services that round
 * their timestamps, and the few ms between a process's clock and Redis's.
 */
export const SHARED_MARGIN_MS = 100;
/**
 * Every shared send counts this much longer than the window and the margin, so that an answer
 * arriving within it needs no second round trip: a send counted from its admission then still
 * counts until a window after its answer (the service stamps it before answering). Slower answers
 * move the send to their own time in Redis (`release`). It costs 0.4 % of a minute's window.
 */
export const SHARED_RELEASE_SLACK_MS = 250;
/** Window names a process keeps computed (one a scope: a key and host, or an address and host). */
const WINDOW_NAMES_KEPT = 10_000;

export interface SharedLimitsOptions {
  /** BB_LOCAL_ADDRESS: the address this process's requests leave from (address-counted scopes only). */
  localAddress?: string;
  /** Default systemClock: when a refusal's "full until" ends, for `budget`. */
  clock?: Clock;
  logger?: Logger;
  /** How long a caller waits for Redis before the call fails as transient; default REDIS_CALL_TIMEOUT_MS. */
  redisTimeoutMs?: number;
  /** Default SHARED_MARGIN_MS. */
  marginMs?: number;
  /** Default SHARED_RELEASE_SLACK_MS; 0: every release is written to Redis. */
  releaseSlackMs?: number;
}

/** The pause (ms) a failure worded by `Limits.failed` holds its scope for, when the service itself refused (429). */
function serviceRefusalPauseMs(err: unknown): number | undefined {
  if (!isServiceError(err) || err.kind !== 'rate_limited' || err.details.local) return undefined;
  const ms = Math.round(err.details.retryAfterMs ?? 0);
  return ms >= 1 ? ms : undefined;
}

/**
 * The scope's identity across processes: the local `scopeId`, plus the egress address when the
 * service counts per address. Equal ids share one budget in Redis.
 */
export function sharedScopeId(
  limits: Pick<Limits, 'scopeId' | 'scopeMode' | 'tokenScopeMode'>,
  scope: LimitScope,
  localAddress: string | undefined,
): string {
  const id = limits.scopeId(scope);
  return addressCounted(limits, scope.kind) ? `${id}|from:${localAddress ?? 'default'}` : id;
}

/** The window's name in Redis: the kind, and a digest of the id (access keys and hosts stay out of key names). */
export function sharedWindowName(kind: LimitScope['kind'], id: string): string {
  return `${kind}:${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/**
 * `local` with the shared windows behind it. Everything but `acquire`, `failed` and the budgets is
 * the local limiter's (the decorated scope is paused locally whenever the shared window refuses,
 * which is how a pause set by another process reaches this one).
 */
export function sharedLimits(local: Limits, windows: LimitWindows, opts: SharedLimitsOptions = {}): Limits {
  const clock = opts.clock ?? systemClock;
  const logger = (opts.logger ?? silentLogger).child({ module: 'shared-limits' });
  const timeoutMs = opts.redisTimeoutMs ?? REDIS_CALL_TIMEOUT_MS;
  const marginMs = opts.marginMs ?? SHARED_MARGIN_MS;
  const slackMs = opts.releaseSlackMs ?? SHARED_RELEASE_SLACK_MS;
  // Aborted by close(): every caller waiting for Redis.
  const calls = new AbortGroup();
  let closed = false;
  /** Shared ids the shared window refused, and until when (local clock): their budgets show no room. */
  const fullUntil = new Map<string, number>();

  const idOf = (scope: LimitScope) => sharedScopeId(local, scope, opts.localAddress);
  // A SHA-256 a read was 7 % of each acquire: the names are kept, forgotten all at once past a bound.
  const names = new Map<string, string>();
  const nameOf = (kind: LimitScope['kind'], id: string): string => {
    const key = `${kind}|${id}`;
    let name = names.get(key);
    if (name === undefined) {
      if (names.size >= WINDOW_NAMES_KEPT) names.clear();
      name = sharedWindowName(kind, id);
      names.set(key, name);
    }
    return name;
  };

  /** ms the shared window is known to be full for (a refusal said so); 0 when not known full. */
  const knownFullForMs = (scope: LimitScope): number => {
    const id = idOf(scope);
    const until = fullUntil.get(id);
    if (until === undefined) return 0;
    const left = until - clock.now();
    if (left <= 0) fullUntil.delete(id);
    return Math.max(0, left);
  };

  const refusal = (scope: LimitScope, limit: number, windowMs: number, retryAfterMs: number) =>
    new ServiceError(
      'rate_limited',
      `the ${scope.kind} limit of ${limit} per ${Math.round(windowMs / 1000)} s shared by the bot's processes is reached; ` +
        `the next fits in about ${Math.ceil(retryAfterMs / 1000)} s (nothing was sent)`,
      { local: true, retryAfterMs, limit: scope.kind },
    );

  /** The shared window refused an interactive send over the interactive cap, or over its user's share of it. */
  const shareRefusal = (scope: LimitScope, share: InteractiveShare, user: boolean, retryAfterMs: number) =>
    new ServiceError(
      'rate_limited',
      (user
        ? `this user holds their ${share.userShare ?? 0} of the ${share.cap} interactive ${scope.kind} sends a window left to interactive use by the bot's processes (the rest is kept for other users)`
        : `the ${share.cap} interactive ${scope.kind} sends a window left to interactive use by the bot's processes are taken (the rest is kept for alerts)`) +
        `; the next fits in about ${Math.ceil(retryAfterMs / 1000)} s (nothing was sent)`,
      { local: true, retryAfterMs, limit: scope.kind, ...(user && { share: 'user' as const }) },
    );

  /**
   * Wraps the local permit: its end also ends the shared entry (in the background: nobody waits
   * for it), unless the answer came within the slack of `askedAt` (taken before Redis was asked,
   * so the time is never under-counted).
   */
  const permitFor = (permit: Permit, entry: WindowEntry, what: string, askedAt: number): Permit => {
    let done = false;
    const finish = (local: () => void, shared: (() => Promise<void>) | undefined) => {
      if (done) return;
      done = true;
      local();
      if (!shared) return;
      bounded(shared(), { what, timeoutMs }).catch((err: unknown) =>
        logger.warn({ err, what }, 'could not update the shared limit window (the send stays counted from its admission)'),
      );
    };
    return {
      release: () => finish(() => permit.release(), clock.now() - askedAt < slackMs ? undefined : () => windows.release(entry)),
      cancel: () => finish(() => permit.cancel(), () => windows.cancel(entry)),
    };
  };

  return {
    scopeMode: local.scopeMode,
    // The shared window keeps its own margin and the release slack on top of the minute.
    itemWindowMs: Math.max(local.itemWindowMs, WINDOWS.items + marginMs + slackMs),
    tokenScopeMode: local.tokenScopeMode,

    async acquire(scope, options = {}) {
      if (closed) throw new ClientClosedError();
      const id = idOf(scope);
      const what = `the shared ${scope.kind} limit`;
      /** When a caller that does not wait began waiting for the next slot (a lookup's grace). */
      let waitedAt: number | undefined;
      for (;;) {
        const permit = await local.acquire(scope, options);
        const { limit, windowMs, interactiveCap, userShare } = local.budget(scope);
        const share: InteractiveShare = { cap: interactiveCap, ...(options.userId !== undefined && userShare !== undefined && { user: options.userId, userShare }) };
        const { signal, dispose } = calls.join(options.signal);
        const askedAt = clock.now();
        const call = windows.acquire(nameOf(scope.kind, id), limit, windowMs + marginMs + slackMs, options.priority ?? 'poll', share);
        let verdict;
        try {
          verdict = await bounded(call, { what, timeoutMs, signal });
        } catch (err) {
          permit.cancel();
          // An answer that comes after the caller left: its slot goes back.
          call.then((late) => (late.ok ? windows.cancel(late.entry) : undefined)).catch(() => undefined);
          throw closed ? new ClientClosedError() : err;
        } finally {
          dispose();
        }
        if (verdict.ok) {
          fullUntil.delete(id);
          return permitFor(permit, verdict.entry, what, askedAt);
        }
        permit.cancel();
        if (verdict.why === 'interactive' || verdict.why === 'user') {
          // Interactive use's share is taken across processes: this caller waits (or is refused); polls go on.
          logger.debug({ kind: scope.kind, why: verdict.why, retryAfterMs: verdict.retryAfterMs }, 'the shared interactive share is taken');
          if (options.wait === false) throw shareRefusal(scope, share, verdict.why === 'user', verdict.retryAfterMs);
          const wait = calls.join(options.signal);
          try {
            await clock.sleep(verdict.retryAfterMs, wait.signal);
          } finally {
            wait.dispose();
          }
          if (closed) throw new ClientClosedError();
          if (options.signal?.aborted) throw options.signal.reason;
          continue;
        }
        fullUntil.set(id, clock.now() + verdict.retryAfterMs);
        local.penalize(scope, verdict.retryAfterMs);
        logger.debug({ kind: scope.kind, retryAfterMs: verdict.retryAfterMs, used: verdict.used }, 'the shared window is full: this scope waits');
        if (options.wait === false) {
          // A user's lookup may wait for the next slot, as in the local limiter (its mark keeps it theirs).
          const graceMs = noWaitGraceMs(scope, options, windowMs / limit);
          if (verdict.retryAfterMs > graceMs || (waitedAt !== undefined && clock.now() - waitedAt > graceMs)) {
            throw refusal(scope, limit, windowMs, verdict.retryAfterMs);
          }
          waitedAt ??= clock.now();
          await clock.sleep(verdict.retryAfterMs, options.signal);
        }
        // The local limiter now holds the scope paused until then; its wait honours abort and close.
      }
    },

    budget(scope) {
      const b = local.budget(scope);
      const full = knownFullForMs(scope);
      return full > 0 ? { ...b, left: 0, nextFreeInMs: Math.max(b.nextFreeInMs, full) } : b;
    },

    tokensLeft(accessKey) {
      return knownFullForMs({ kind: 'tokens', accessKey }) > 0 ? 0 : local.tokensLeft(accessKey);
    },

    readsLeft(accessKey, service) {
      return knownFullForMs({ kind: 'items', accessKey, service }) > 0 ? 0 : local.readsLeft(accessKey, service);
    },

    failed(scope, err) {
      const worded = local.failed(scope, err);
      const pauseMs = serviceRefusalPauseMs(worded);
      if (pauseMs !== undefined && !closed) {
        const id = idOf(scope);
        fullUntil.set(id, Math.max(fullUntil.get(id) ?? 0, clock.now() + pauseMs));
        // In the background: the caller's failure is already known; other processes learn it as soon as Redis has it.
        bounded(windows.pause(nameOf(scope.kind, id), pauseMs), { what: `the shared ${scope.kind} pause`, timeoutMs }).catch((e: unknown) =>
          logger.warn({ err: e, kind: scope.kind }, 'could not share a 429 pause (the other processes find it out themselves)'),
        );
      }
      return worded;
    },

    // The rest is the local limiter's.
    penalize: (scope, retryAfterMs) => local.penalize(scope, retryAfterMs),
    recover: (scope) => local.recover(scope),
    setPollingTokens: (accessKey, perHour) => local.setPollingTokens(accessKey, perHour),
    reservedReads: (accessKey, service) => local.reservedReads(accessKey, service),
    pollFreeInMs: (accessKey, service) => local.pollFreeInMs(accessKey, service),
    scopeId: (scope) => local.scopeId(scope),
    scopeCount: () => local.scopeCount(),

    async close() {
      closed = true;
      calls.abort(new ClientClosedError());
      await local.close();
    },
  };
}
