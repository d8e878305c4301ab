/**
 * The one backoff policy of the bot: exponential with ±25% jitter. The n-th wait's ceiling is
 * `min(maxMs, baseMs · 2^(n-1))`, and the wait itself is drawn uniformly from 75% to 125% of it,
 * so its mean is the ceiling, it never falls below three quarters of it (a failing thing does not
 * come back at once), and callers that failed together spread over half a ceiling instead of
 * retrying in step. A wait may therefore exceed `maxMs` by up to a quarter; `maxMs` caps the growth.
 *
 * Each caller keeps its own base and ceiling (the service client, a paused limiter scope, a
 * subscription's reads, Telegram delivery); only the shape is shared.
 */

/** How one caller backs off. */
export interface BackoffPolicy {
  /** The first wait's ceiling, in ms. */
  baseMs: number;
  /** No ceiling grows past this, in ms. */
  maxMs: number;
}

/** The spread of the jitter around the ceiling: 0.75..1.25. */
export const JITTER_LOW = 0.75;
export const JITTER_SPAN = 0.5;

/**
 * ms to wait before the next try after `failures` failures in a row (1 for the first failure),
 * with `random` a source in [0, 1). Whole milliseconds, so an injected clock never sits on fractions.
 */
export function backoffMs(policy: BackoffPolicy, failures: number, random: () => number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling * (JITTER_LOW + JITTER_SPAN * random()));
}
