/**
 * Sliding-window pacing: "at most `limit` sends in any `spanMs`". Only the latest `limit` send
 * times matter for that question, so each sender keeps a handful of numbers, never a log.
 */

/** A rate as a sliding window; rates below one per span become one per a longer span. */
export interface RateWindow {
  limit: number;
  spanMs: number;
}

export function rateWindow(perSpan: number, spanMs: number): RateWindow {
  if (!(perSpan > 0)) throw new RangeError('a rate must be positive');
  return perSpan >= 1 ? { limit: Math.floor(perSpan), spanMs } : { limit: 1, spanMs: Math.ceil(spanMs / perSpan) };
}

/** The recent send times of one sender (the whole bot, or one chat). */
export class SendTimes {
  private readonly times: number[] = [];

  /** `keep`: the largest window limit this sender is checked against. */
  constructor(private readonly keep: number) {}

  record(at: number): void {
    this.times.push(at);
    if (this.times.length > this.keep) this.times.splice(0, this.times.length - this.keep);
  }

  /** The earliest time, not before `now`, at which one more send stays within `window`. */
  nextAllowed(now: number, window: RateWindow): number {
    if (this.times.length < window.limit) return now;
    const limiting = this.times[this.times.length - window.limit] ?? Number.NEGATIVE_INFINITY;
    return Math.max(now, limiting + window.spanMs);
  }

  /** The latest send, if any. */
  get last(): number | undefined {
    return this.times[this.times.length - 1];
  }
}
