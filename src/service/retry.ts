/**
 * Transient failures (server, timeout, an unreadable answer, a 429 with a short Retry-After)
 * tried again with jittered exponential backoff on the injected clock. Each try is a whole new
 * call, so it passes the limiters again; a local refusal (nothing sent) is never retried here.
 */
import type { Clock } from '../clock.js';
import { backoffMs, type BackoffPolicy } from '../lib/backoff.js';
import type { Logger } from '../logger.js';
import { isServiceError } from './errors.js';

/** A 429 is tried again only when the service asks for at most this long a pause. */
export const SHORT_RETRY_AFTER_MS = 5_000;
/** The client's backoff: from 0.5 s, doubling, to 10 s (the shared ±25% jitter of src/lib/backoff.ts). */
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 10_000 };

/** How `withRetries` runs a call. */
export interface RetryContext {
  retries: number;
  clock: Clock;
  random: () => number;
  logger: Logger;
  /** What the call does, for the log line. */
  what: string;
  /** false: the caller does not wait for limits, so a 429 pause is not waited out either. */
  wait?: boolean;
  signal?: AbortSignal;
}

/**
 * ms to wait before try number `attempt + 2`, or undefined when `err` is not worth another try.
 * A 429 needs no sleep here: the limiter holds that scope paused until Retry-After has passed.
 */
export function retryDelayMs(err: unknown, attempt: number, random: () => number, wait = true): number | undefined {
  if (!isServiceError(err) || err.details.local) return undefined;
  switch (err.kind) {
    case 'server':
    case 'timeout':
      return backoff(attempt, random);
    case 'malformed': {
      // A 4xx refusal of what we sent will be refused again; an unreadable 2xx answer may not be.
      const status = err.details.status;
      return status === undefined || status < 300 ? backoff(attempt, random) : undefined;
    }
    case 'rate_limited':
      return wait && (err.details.retryAfterMs ?? 0) <= SHORT_RETRY_AFTER_MS ? 0 : undefined;
    default:
      return undefined;
  }
}

function backoff(attempt: number, random: () => number): number {
  return backoffMs(RETRY_BACKOFF, attempt + 1, random);
}

/** Runs `call`, trying again after transient failures up to `ctx.retries` times. */
export async function withRetries<T>(ctx: RetryContext, call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const delay = attempt < ctx.retries ? retryDelayMs(err, attempt, ctx.random, ctx.wait !== false) : undefined;
      if (delay === undefined || !isServiceError(err)) throw err;
      ctx.logger.warn(
        { what: ctx.what, kind: err.kind, status: err.details.status, attempt: attempt + 1, delayMs: delay },
        'service call failed; trying again',
      );
      if (delay > 0) await ctx.clock.sleep(delay, ctx.signal);
      if (ctx.signal?.aborted) throw ctx.signal.reason;
    }
  }
}
