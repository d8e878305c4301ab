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

/**
 * The time axis's tick labels in the page's language (uPlot's own are American: "10/1", "12am"):
 * a day and a month while the ticks are a day or more apart; zoomed closer, hours and minutes between
 * the midnights, which keep their day.
 * The days are UTC midnights (the ledger's days), so they are formatted in UTC.
 */
export function timeTicks(lang: string): (splits: readonly number[], incrS: number) => string[] {
  const day = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const time = new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
  // Zoomed in, a midnight still names its day: ticks of hours alone would say nothing of which day.
  return (splits, incrS) => splits.map((s) => (incrS >= DAY_S || s % DAY_S === 0 ? day : time).format(s * 1000));
}

/** The legend's date in the page's language: day, month and year; "--" where the cursor is on no day. */
export function legendDate(lang: string): (s: number | null) => string {
  const full = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  return (s) => (s === null ? '--' : full.format(s * 1000));
}
