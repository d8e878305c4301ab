/**
 * The limiters' seam: what a request counts against (`LimitScope`), the permit it takes, a
 * scope's budget as /status and the scheduler read it, and `Limits`, the interface every request
 * of the service client passes. `createLimits` in `limits.ts` is the in-process implementation
 * (and re-exports all of this); a shared one (Redis) can sit beside it behind the same interface.
 */
import type { Config } from '../config.js';
import type { RequestOptions } from './client-types.js';
import type { PathConfig } from './paths.js';
import type { Service } from './services.js';

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
  /**
   * Of the interactive cap, what one user may hold (their interactive calls carry `userId`):
   * present only where the scope is every user's (address-counted), half the cap, at least one.
   */
  userShare?: number;
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
  /**
   * How long an item read counts in this limiter's window, at most, from its answer: the service's
   * minute and the margins kept on it. Reads of one scope come no closer than this over the limit
   * (the scheduler's pace, read-pace.ts), or the window refuses them.
   */
  readonly itemWindowMs: number;
  /** The scope's identity: equal ids share one budget (one host under LIMIT_SCOPE=address). */
  scopeId(scope: LimitScope): string;
  /** Scopes whose state is held now (idle ones are dropped: see IDLE_SWEEP_MS). */
  scopeCount(): number;
  /** Rejects every waiting caller and stops the limiters. */
  close(): Promise<void>;
}

/** Rejection of calls waiting on limits that were closed (the bot is shutting down). */
/**
 * How long a caller that does not wait (`wait: false`) may still wait for a slot: a user's lookup
 * waits for the next read slot (one window over its limit, plus a margin), anything else not at all.
 */
export function noWaitGraceMs(
  scope: Pick<LimitScope, 'kind'>,
  opts: { priority?: 'interactive' | 'poll'; maxWaitMs?: number },
  slotMs: number,
): number {
  return opts.maxWaitMs ?? (opts.priority === 'interactive' && scope.kind === 'items' ? slotMs + 100 : 0);
}

export class ClientClosedError extends Error {
  override name = 'ClientClosedError';
  constructor() {
    super('the service client was closed');
  }
}
