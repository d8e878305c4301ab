/**
 * What a failed read means for its subscription: a pure classification, tested without the loop
 * (test/scheduler/read-outcome.test.ts). The loop (scheduler.ts) applies it: counts, logs, the
 * status write, the pause and the next due time.
 *
 * - defer: the client's limiter refused the read locally, before sending anything (a plan was
 *   off by a little): try again when it says there is room, at least 50 ms on;
 * - pause: 401 or 403, a fault only the user can fix: the subscription is paused and they are told;
 * - scope-wait: the service answered 429: the whole read scope waits for Retry-After (or the
 *   first backoff when it gave none);
 * - backoff: anything else: this subscription alone backs off, doubling per failure in a row,
 *   with the bot's ±25 % jitter (src/lib/backoff.ts) so failing subscriptions do not retry together, never sooner
 *   than the poll floor.
 * Separately, `tokenAttempt` says what became of a token request the read carried.
 */
import { isServiceError, type ServiceErrorKind } from '../service/errors.js';
import type { NoticeReason } from './port.js';
import { backoffMs } from '../lib/backoff.js';

export type ReadOutcome =
  | { kind: 'defer'; waitMs: number; retryAfterMs: number | undefined }
  | { kind: 'pause'; reason: NoticeReason }
  | { kind: 'scope-wait'; waitMs: number }
  | {
      kind: 'backoff';
      /** What failed, as stored in the subscription's status. */
      errorKind: ServiceErrorKind | 'malformed';
      /** Failures in a row, this one included. */
      failures: number;
      waitMs: number;
      /** Not a ServiceError at all: a bug or a surprise, logged as an error. */
      unexpected: boolean;
    };

export interface FailureContext {
  /** Failures in a row before this one. */
  failures: number;
  /** POLL_INTERVAL_SECONDS in ms: no retry comes sooner. */
  floorMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Jitter source, 0 ≤ x < 1; called once, for a backoff only. */
  random: () => number;
}

/** Whether the error is the client's limiter refusing a read before anything was sent. */
export function isLocalRefusal(err: unknown): boolean {
  return isServiceError(err) && err.kind === 'rate_limited' && err.details.local === true;
}

/** Classifies a failed read (not an abort at shutdown: the loop drops those first). */
export function classifyFailure(err: unknown, ctx: FailureContext): ReadOutcome {
  if (isServiceError(err) && err.kind === 'rate_limited' && err.details.local) {
    return { kind: 'defer', waitMs: Math.max(50, err.details.retryAfterMs ?? 1_000), retryAfterMs: err.details.retryAfterMs };
  }
  const errorKind = isServiceError(err) ? err.kind : 'malformed';
  if (errorKind === 'auth' || errorKind === 'forbidden') return { kind: 'pause', reason: errorKind };
  if (errorKind === 'rate_limited' && isServiceError(err)) {
    return { kind: 'scope-wait', waitMs: err.details.retryAfterMs ?? ctx.backoffBaseMs };
  }
  const failures = ctx.failures + 1;
  // The bot's one backoff policy (±25 % jitter): failing subscriptions must not retry together.
  // Capped at the ceiling itself: a subscription never waits past backoffMaxMs for its next read.
  const waitMs = Math.max(ctx.floorMs, Math.min(ctx.backoffMaxMs, backoffMs({ baseMs: ctx.backoffBaseMs, maxMs: ctx.backoffMaxMs }, failures, ctx.random)));
  return { kind: 'backoff', errorKind, failures, waitMs, unexpected: !isServiceError(err) };
}

/**
 * What became of the token request a failed read carried (`acquired`), given whether the client
 * now holds a token: 'kept' (none was asked for, or one came of it), 'retry' (none came of it:
 * this window may try once more, the ledger still bounds the hour), or 'unsent' (refused before
 * sending: the request never happened and comes off the ledger too).
 */
export function tokenAttempt(err: unknown, acquired: boolean, holdsToken: boolean): 'kept' | 'retry' | 'unsent' {
  if (!acquired || holdsToken) return 'kept';
  return isLocalRefusal(err) ? 'unsent' : 'retry';
}
