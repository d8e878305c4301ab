/**
 * One chat's Telegram budget as a token bucket: Telegram lets a chat take a few messages at once
 * (the burst, about three) and then about one a second, sends and edits alike. The bucket is kept
 * as a "theoretical arrival time" (GCRA), so it is whole milliseconds, never a drifting fraction:
 * `tat` is when the bucket would be empty again if nothing more were sent, and it holds
 * `burst - (tat - now) / interval` tokens at `now`.
 *
 * A call counts from Telegram's answer (the latest its arrival can be), as the sliding windows in
 * `pacing.ts` do: counting it later than it arrived leaves the bucket emptier than Telegram's, never
 * fuller. A call still in flight counts as a token already spent.
 *
 * Who may spend what: a new message or a command reply needs one token; an edit or a "gone" mark
 * needs a full bucket, so that after it the burst is still there for the next new alert — an edit
 * never makes a new alert wait (`needFor`). The last token is spent only a guard's worth after it is
 * whole (`LAST_TOKEN_GUARD_MS`), so no call rides the exact edge of Telegram's count.
 */

/**
 * The last token is spent only this long after it is whole. Counting from the answer is exact only
 * as far as both clocks agree to the millisecond: a call that reached Telegram holding exactly one
 * token, by our count, was refused now and then by a server whose bucket rounds differently (the
 * fake Bot API's is fractional, and refused one or two such calls a run once chats kept a backlog).
 * A chat that still has more than one token is not held back.
 */
export const LAST_TOKEN_GUARD_MS = 10;

/** The shape of the bucket: `burst` tokens, one more every `intervalMs`. */
export interface BucketRate {
  burst: number;
  intervalMs: number;
}

export function bucketRate(perSecond: number, burst: number): BucketRate {
  if (!(perSecond > 0)) throw new RangeError('a rate must be positive');
  return { burst: Math.max(1, Math.floor(burst)), intervalMs: Math.ceil(1000 / perSecond) };
}

/** Tokens a job needs before it may go: an edit leaves the burst to new messages. */
export function needFor(kind: 'send' | 'reply' | 'edit', rate: BucketRate): number {
  return kind === 'edit' ? rate.burst : 1;
}

export class ChatBucket {
  /** When the bucket is empty again if nothing more is sent (-Infinity: full). */
  private tat = Number.NEGATIVE_INFINITY;
  private inFlight = 0;
  /** The latest answer counted. */
  last: number | undefined;

  constructor(private readonly rate: BucketRate) {}

  /**
   * The earliest time, not before `now`, at which the bucket holds `need` tokens (calls in flight
   * spent), and never less than one token and a guard's worth.
   */
  nextAllowed(now: number, need: number): number {
    const { burst, intervalMs } = this.rate;
    if (need > burst) return Number.POSITIVE_INFINITY;
    const emptyAt = Math.max(this.tat, now) + this.inFlight * intervalMs;
    return Math.max(now, emptyAt - (burst - need) * intervalMs, emptyAt - (burst - 1) * intervalMs + LAST_TOKEN_GUARD_MS);
  }

  /** Tokens at `now` (for tests and logs): calls in flight count as spent. */
  tokens(now: number): number {
    const { burst, intervalMs } = this.rate;
    return Math.min(burst, burst - (Math.max(this.tat, now) - now) / intervalMs) - this.inFlight;
  }

  /** A counted call leaves now; call `arrived` (or `cancelled`, when no call was made) once it is over. */
  record(): void {
    this.inFlight += 1;
  }

  /** Telegram answered at `at`: one token spent then. */
  arrived(at: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.tat = Math.max(this.tat, at) + this.rate.intervalMs;
    this.last = Math.max(this.last ?? at, at);
  }

  /** The call was never made (a hook said not to send it): nothing spent. */
  cancelled(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }
}
