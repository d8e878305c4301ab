/** The chart's time axis, in unix seconds. */
const DAY_S = 86_400;

/**
 * The x range for days from `min` to `max`: one day is padded a day each side, since uPlot spreads a
 * zero-width time range over years (a ledger with one settled day showed 2027–2029).
 */
export function dayRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null) return [0, DAY_S];
  return max - min < DAY_S ? [min - DAY_S, max + DAY_S] : [min, max];
}
