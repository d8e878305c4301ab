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

/** The window counter is shared with the tests, which check the same limits. */
export { maxInWindow, minGap } from '../../test/support/window.js';

/** A markdown table; every row must have as many cells as `header`. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
