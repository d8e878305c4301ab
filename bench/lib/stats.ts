/** Small statistics and formatting helpers shared by the benchmarks. */

/** The `p`-th percentile (0..100) of `values` by the nearest-rank method; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** The 50th percentile. */
export const median = (values: readonly number[]): number => percentile(values, 50);

/** The arithmetic mean; NaN for no values. */
export const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** Milliseconds for people: "12 ms", "1,234 ms". */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return `${Math.round(value).toLocaleString('en-US')} ms`;
}

/** Bytes as mebibytes with one decimal. */
export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A whole number with thousands separators. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

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

/** A markdown table; every row must have as many cells as `header`. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
