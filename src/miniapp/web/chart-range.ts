/** The chart's time axis, in unix seconds. */
const DAY_S = 86_400;

/**
 * The x range for the days `xs` (ascending): within one day, padded a day each side. From the data,
 * not from the min and max uPlot hands its range function: for a single point it has already made
 * the max min + 86400 / 1e-3 s (1,000 days), so one settled day showed 2027–2029.
 */
export function dayRange(xs: ArrayLike<number | null | undefined>): [number, number] {
  const first = xs[0];
  const last = xs[xs.length - 1];
  if (first === null || first === undefined || last === null || last === undefined) return [0, DAY_S];
  return last - first < DAY_S ? [first - DAY_S, last + DAY_S] : [first, last];
}
