/**
 * Margin removal and closing-line value (stake-maths §3): fair probabilities from a market's odds
 * by a named method (multiplicative by default; Shin and power selectable), and
 * CLV = odds taken (effective) × fair closing probability − 1.
 */
import type { DevigMethod } from './model.js';

const inverse = (odds: readonly number[]): number[] => odds.map((o) => 1 / o);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** p_i = π_i / Σπ. */
export function devigMultiplicative(odds: readonly number[]): number[] {
  const pi = inverse(odds);
  const s = sum(pi);
  return pi.map((x) => x / s);
}

/** Finds x in [lo, hi] where f changes sign (f monotone there). */
function bisect(f: (x: number) => number, lo: number, hi: number): number {
  let a = lo;
  let b = hi;
  const fa = Math.sign(f(a));
  for (let i = 0; i < 200 && b - a > 1e-15; i++) {
    const mid = (a + b) / 2;
    if (Math.sign(f(mid)) === fa) a = mid;
    else b = mid;
  }
  return (a + b) / 2;
}

/** p_i = π_i^k with k solved so Σ p = 1 (k ≥ 1 when the book is over 100 %). */
export function devigPower(odds: readonly number[]): number[] {
  const pi = inverse(odds);
  const over = sum(pi) >= 1;
  const k = bisect((k) => sum(pi.map((x) => x ** k)) - 1, over ? 1 : 0.01, over ? 50 : 1);
  return pi.map((x) => x ** k);
}

/** Shin: z in closed form for two outcomes, the Jullien–Salanié fixed point for three or more. */
export function devigShin(odds: readonly number[]): number[] {
  const pi = inverse(odds);
  const n = pi.length;
  const S = sum(pi);
  let z = 0;
  if (n === 2) {
    const d = (pi[0] ?? 0) - (pi[1] ?? 0);
    z = ((S - 1) * (d * d - S)) / (S * (d * d - 1));
  } else if (n > 2) {
    for (let i = 0; i < 1000; i++) {
      const z0 = z;
      z = (sum(pi.map((x) => Math.sqrt(z0 * z0 + (4 * (1 - z0) * x * x) / S))) - 2) / (n - 2);
      if (Math.abs(z - z0) <= 1e-12) break;
    }
  }
  return pi.map((x) => (Math.sqrt(z * z + (4 * (1 - z) * x * x) / S) - z) / (2 * (1 - z)));
}

export function devig(odds: readonly number[], method: DevigMethod): number[] {
  if (odds.length < 2) return odds.map(() => 1);
  switch (method) {
    case 'multiplicative':
      return devigMultiplicative(odds);
    case 'power':
      return devigPower(odds);
    case 'shin':
      return devigShin(odds);
  }
}

/** CLV as a fraction: effective odds taken × fair closing probability − 1. */
export const clv = (oddsTaken: number, fairCloseProbability: number): number => oddsTaken * fairCloseProbability - 1;
