/**
 * The arithmetic of opportunities. Every value the sandbox serves is computed here from the
 * legs' current odds, so an item is consistent with its odds at every moment.
 */

/** Rounds to `digits` decimals, half away from zero (2.345 → 2.35). */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.sign(x) * Math.round(Math.abs(x) * f + 1e-9) / f;
}

/** Σ 1/odds over the legs. */
function inverseSum(odds: readonly number[]): number {
  return odds.reduce((s, o) => s + 1 / o, 0);
}

/**
 * Arb profit %: stakes split in proportion to 1/odds return the same on every outcome, so the
 * profit is (1 / Σ(1/odds) − 1) × 100.
 */
export function arbProfit(odds: readonly number[]): number {
  return round((1 / inverseSum(odds) - 1) * 100);
}

/**
 * Lay odds as the back odds of "not this selection" (no commission): 1 + 1/(L − 1). A back/lay
 * arb's profit is then `arbProfit` of the back odds and this.
 */
export function layAsBack(odds: number): number {
  return 1 + 1 / (odds - 1);
}

/**
 * Middle profits % with the arb-like stake split (stakes ∝ 1/odds, summing to 1): when exactly one
 * leg wins the return is 1/S (S = Σ 1/odds); when the middle hits both legs win and the return is
 * 2/S. `miss` is usually slightly negative, `hit` large.
 */
export function middleProfits(odds: readonly [number, number]): { miss: number; hit: number } {
  const s = inverseSum(odds);
  return { miss: round((1 / s - 1) * 100), hit: round((2 / s - 1) * 100) };
}

/** Valuebet overvalue %: (odds × probability − 1) × 100. */
export function overvalue(odds: number, probability: number): number {
  return round((odds * probability - 1) * 100);
}

/** Fair odds of a probability: 1 / probability, to 3 decimals. */
export function fairOdds(probability: number): number {
  return round(1 / probability, 3);
}

/**
 * Odds for the outcomes with probability weights `q` (summing to 1) so that the whole set yields
 * `profitPct` with the arb stake split: odds_i = (1 + p) / q_i, to 2 decimals.
 */
export function oddsForProfit(q: readonly number[], profitPct: number): number[] {
  return q.map((qi) => Math.max(1.01, round((1 + profitPct / 100) / qi)));
}
