/**
 * Counting events in time the way a sliding-window limit does, shared by the tests that check a
 * limit was kept and by the benchmarks that measure it (bench/lib/stats.ts re-exports these).
 */

/** The largest number of `times` inside any window of `windowMs` (as a sliding-window limit counts them). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let tail = 0;
  for (let head = 0; head < sorted.length; head++) {
    while (sorted[tail]! <= sorted[head]! - windowMs) tail++;
    max = Math.max(max, head - tail + 1);
  }
  return max;
}

/** The smallest gap between consecutive `times` (Infinity for fewer than two). */
export function minGap(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let min = Number.POSITIVE_INFINITY;
  for (let i = 1; i < sorted.length; i++) min = Math.min(min, sorted[i]! - sorted[i - 1]!);
  return min;
}

/**
 * How many of `times` a token bucket of `burst` that refills one every `intervalMs` would refuse
 * (as Telegram's per-chat limit, and the fake Bot API, count them): 0 when they all fit.
 */
export function bucketRefusals(times: readonly number[], burst: number, intervalMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let emptyAt = Number.NEGATIVE_INFINITY;
  let refused = 0;
  for (const t of sorted) {
    if (t < emptyAt - (burst - 1) * intervalMs) refused += 1;
    else emptyAt = Math.max(emptyAt, t) + intervalMs;
  }
  return refused;
}
