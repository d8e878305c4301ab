/**
 * Sliding-window pacing: "at most `limit` sends in any `spanMs`", counted as Telegram receives
 * them. A call's arrival lies somewhere between the moment it left and the moment its answer came
 * back, so a send counts from its answer (the latest its arrival can be); while it is still in
 * flight it counts as arriving now. Only the latest `limit` send times matter for that question,
 * so each sender keeps a handful of numbers, never a log.
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

/** One send: `at` is when it left, then when its answer came back (`pending` until then). */
export interface SendStamp {
  at: number;
  pending: boolean;
}

/** Reused by `SendTimes.latest` (one call at a time: the loop is synchronous). */
const scratch: number[] = [];
const descending = (a: number, b: number) => b - a;
/** When a send counts as arrived: its answer's time, or now while it is still in flight. */
const arrival = (s: SendStamp, now: number) => (s.pending ? Math.max(s.at, now) : s.at);

/** The recent send times of one sender (the whole bot, or one chat). */
export class SendTimes {
  /** Oldest first by `at`; pending stamps are never dropped. */
  private readonly stamps: SendStamp[] = [];

  /** `keep`: the largest window limit this sender is checked against. */
  constructor(private readonly keep: number) {}

  /** A send leaves now; call `arrived` with the stamp once its answer is back. */
  record(at: number): SendStamp {
    const stamp = { at, pending: true };
    this.stamps.push(stamp);
    this.trim();
    return stamp;
  }

  /** The answer came back at `at`: the send counts from then. */
  arrived(stamp: SendStamp, at: number): void {
    stamp.at = Math.max(stamp.at, at);
    stamp.pending = false;
    this.stamps.sort((a, b) => a.at - b.at);
    this.trim();
  }

  /** The call never went out: it does not count. */
  forget(stamp: SendStamp): void {
    const at = this.stamps.indexOf(stamp);
    if (at >= 0) this.stamps.splice(at, 1);
  }

  /** The earliest time, not before `now`, at which one more send stays within `window`. */
  nextAllowed(now: number, window: RateWindow): number {
    if (this.stamps.length < window.limit) return now;
    // The limit-th latest arrival; a send still in flight may arrive any moment from now on.
    return Math.max(now, this.latest(now, window.limit) + window.spanMs);
  }

  /**
   * The `k`-th latest arrival (1: the latest), a send in flight counted as arriving now. Asked for
   * every chat with work each time the outbox looks for the next job: it makes no garbage.
   */
  private latest(now: number, k: number): number {
    if (k === 1) {
      let max = Number.NEGATIVE_INFINITY;
      for (const s of this.stamps) max = Math.max(max, arrival(s, now));
      return max;
    }
    scratch.length = 0;
    for (const s of this.stamps) scratch.push(arrival(s, now));
    scratch.sort(descending);
    return scratch[k - 1] ?? Number.NEGATIVE_INFINITY;
  }

  /** The latest send, if any. */
  get last(): number | undefined {
    return this.stamps[this.stamps.length - 1]?.at;
  }

  private trim(): void {
    while (this.stamps.length > this.keep) {
      const at = this.stamps.findIndex((s) => !s.pending);
      if (at < 0) return;
      this.stamps.splice(at, 1);
    }
  }
}
