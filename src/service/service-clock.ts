/**
 * How far the Data Service's clock is from ours, measured from the `Date` header of its answers.
 * The legs' `updated` times are the service's; an age worked out on our clock alone would be off by
 * the skew (a service 5 s ahead makes every fresh leg look 5 s in the future, one 5 s behind makes
 * every leg 5 s staler than it is).
 *
 * A `Date` header has whole seconds: the service's clock read somewhere in [D, D + 1 s) while our
 * request was out, between `sentAt` and `receivedAt`. So each answer bounds the offset (service −
 * ours) to [D − receivedAt, D + 1000 − sentAt]; the intersection of the recent answers' bounds is
 * tight (a few ms wide after a few dozen reads), and its middle is the estimate. Bounds that do not
 * intersect (a clock stepped on either side) start the window over from the newest answer. Offsets
 * within `SKEW_IGNORED_MS` are read as none: a second's rounding is no skew worth correcting.
 */

/** Answers whose bounds are kept; older ones are forgotten so a drifting clock is followed. */
export const SKEW_SAMPLES = 64;
/** An estimated offset this small is taken as zero (the header's one-second grain). */
export const SKEW_IGNORED_MS = 1_000;

export interface ServiceClock {
  /** Notes one answer: its `Date` header (ignored when absent or unreadable) and when the request went and the answer came (our clock, ms). */
  observe(dateHeader: string | undefined, sentAt: number, receivedAt: number): void;
  /** The service's clock minus ours, ms (0 until an answer said otherwise). */
  offsetMs(): number;
}

export function createServiceClock(): ServiceClock {
  let bounds: { low: number; high: number }[] = [];
  let estimate = 0;

  const recompute = () => {
    let low = -Infinity;
    let high = Infinity;
    for (const b of bounds) {
      low = Math.max(low, b.low);
      high = Math.min(high, b.high);
    }
    if (low > high) {
      // The clocks were stepped: the newest answer alone says where they stand now.
      bounds = bounds.slice(-1);
      low = bounds[0]!.low;
      high = bounds[0]!.high;
    }
    const mid = Math.round((low + high) / 2);
    estimate = Math.abs(mid) < SKEW_IGNORED_MS ? 0 : mid;
  };

  return {
    observe(dateHeader, sentAt, receivedAt) {
      if (dateHeader === undefined) return;
      // HTTP dates name a weekday or month in letters; a bare number is not one.
      if (!/[a-z]/i.test(dateHeader)) return;
      const at = Date.parse(dateHeader);
      if (!Number.isFinite(at) || !Number.isFinite(sentAt) || !Number.isFinite(receivedAt) || receivedAt < sentAt) return;
      bounds.push({ low: at - receivedAt, high: at + 1000 - sentAt });
      if (bounds.length > SKEW_SAMPLES) bounds.shift();
      recompute();
    },
    offsetMs: () => estimate,
  };
}
