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
  // The last SKEW_SAMPLES answers' bounds in a ring, and their intersection kept up as they come and
  // go: observed on every read, a fresh array of objects and a pass over it each time were a share of
  // each read's CPU.
  const lows = new Float64Array(SKEW_SAMPLES);
  const highs = new Float64Array(SKEW_SAMPLES);
  /** Where the oldest kept bound is, and how many are kept. */
  let first = 0;
  let count = 0;
  let low = -Infinity;
  let high = Infinity;
  let estimate = 0;
  /** The last header read, and the time it gave (answers within one second share their header). */
  let lastHeader: string | undefined;
  let lastAt = Number.NaN;

  const intersect = () => {
    low = -Infinity;
    high = Infinity;
    for (let i = 0; i < count; i++) {
      const at = (first + i) % SKEW_SAMPLES;
      low = Math.max(low, lows[at]!);
      high = Math.min(high, highs[at]!);
    }
  };

  const add = (newLow: number, newHigh: number) => {
    let widens = false;
    if (count === SKEW_SAMPLES) {
      // Only a dropped bound that held the intersection where it was can widen it.
      widens = lows[first] === low || highs[first] === high;
      first = (first + 1) % SKEW_SAMPLES;
      count -= 1;
    }
    const at = (first + count) % SKEW_SAMPLES;
    lows[at] = newLow;
    highs[at] = newHigh;
    count += 1;
    if (widens) intersect();
    else {
      low = Math.max(low, newLow);
      high = Math.min(high, newHigh);
    }
    if (low > high) {
      // The clocks were stepped: the newest answer alone says where they stand now.
      first = at;
      count = 1;
      low = newLow;
      high = newHigh;
    }
    const mid = Math.round((low + high) / 2);
    estimate = Math.abs(mid) < SKEW_IGNORED_MS ? 0 : mid;
  };

  return {
    observe(dateHeader, sentAt, receivedAt) {
      if (dateHeader === undefined) return;
      if (dateHeader !== lastHeader) {
        lastHeader = dateHeader;
        // HTTP dates name a weekday or month in letters; a bare number is not one.
        lastAt = /[a-z]/i.test(dateHeader) ? Date.parse(dateHeader) : Number.NaN;
      }
      const at = lastAt;
      if (!Number.isFinite(at) || !Number.isFinite(sentAt) || !Number.isFinite(receivedAt) || receivedAt < sentAt) return;
      add(at - receivedAt, at + 1000 - sentAt);
    },
    offsetMs: () => estimate,
  };
}
