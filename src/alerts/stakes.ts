/**
 * The stake maths behind an alert: how to split a bankroll over an arb's legs, what a middle
 * pays when it hits or misses, and the Kelly stake of a valuebet. Pure functions.
 *
 * Money is computed in whole cents (integers) so sums never show float noise ("0.30000000000000004");
 * results are converted back to currency units at the end. Percentages and odds keep full precision:
 * the formatter rounds them for display.
 *
 * Bad input (no legs, odds ≤ 1 or not finite, bankroll or step not positive) gives a typed
 * `CannotCompute` instead of NaN, so nothing downstream can print "NaN" or "0.00".
 */

/** Why a computation was refused. */
export type CannotComputeReason =
  | 'no-odds'
  | 'invalid-odds'
  | 'invalid-bankroll'
  | 'invalid-step'
  | 'bankroll-too-small'
  | 'no-probability'
  | 'invalid-probability';

/** A refused computation; check `ok` before reading any number. */
export interface CannotCompute {
  ok: false;
  reason: CannotComputeReason;
}

/** Stakes for an arb, already rounded to the user's step. */
export interface ArbStakes {
  ok: true;
  /** Per leg, in currency units, each a multiple of the step and at least one step. */
  stakes: number[];
  /** Sum of the stakes: at most the bankroll, unless `overBankroll`. */
  total: number;
  /**
   * True when one step per leg (each stake's minimum) cannot fit in the bankroll: the stakes then
   * sum to more than it (at most one step more), and the alert must say the real total.
   */
  overBankroll: boolean;
  /** Per leg: stake × odds, rounded to cents (what that leg returns if it wins). */
  payouts: number[];
  /** min(payouts) − total: the profit whichever leg wins, after rounding. */
  worstProfit: number;
  /** worstProfit / total × 100. */
  worstProfitPct: number;
  /** The arb's profit before rounding: (1 / Σ 1/odds − 1) × 100. */
  profitPct: number;
  /**
   * Per leg: the odds at which that leg alone brings the arb to 0 %, 1 / (1 − Σ_{j≠i} 1/odds_j).
   * `Infinity` when the other legs alone already cost 100 % or more (no odds would do).
   */
  breakEven: number[];
}

/** A profit in currency units and as a % of the total staked. */
export interface Outcome {
  profit: number;
  pct: number;
}

/** A middle staked as an arb of its two legs. */
export interface MiddleOutcomes {
  ok: true;
  /** The arb split of the two legs (stakes, payouts, rounding details). */
  arb: ArbStakes;
  stakes: number[];
  total: number;
  /** Both legs win (the result lands in the middle). */
  ifHit: Outcome;
  /** Only one leg wins: the worse of the two. */
  ifMiss: Outcome;
}

/** What a valuebet is worth and how much Kelly would stake. */
export interface ValuebetMaths {
  ok: true;
  /** The probability used (the service's, or derived from the overvalue). */
  probability: number;
  /** 1 / probability. */
  fairOdds: number;
  /** Expected value per unit staked, %: (odds × p − 1) × 100. */
  evPct: number;
  /** Full Kelly f* = (b·p − q) / b with b = odds − 1, q = 1 − p; clamped to ≥ 0. */
  kellyFraction: number;
  /** kellyFraction / 4: the fraction actually suggested (full Kelly is too volatile). */
  quarterKellyFraction: number;
  /** quarterKellyFraction × bankroll, rounded to the nearest step; 0 when below half a step. */
  kellyStake: number;
}

/**
 * With this many legs or fewer, every combination of rounding each stake down or up to the step is
 * tried (2^n: 256 at 8, under a millisecond). Longer arbs round down and then up, largest remainder first.
 */
export const MAX_SEARCH_LEGS = 8;

const refuse = (reason: CannotComputeReason): CannotCompute => ({ ok: false, reason });

/** Rounds a cent amount that came out of a float product: 4999.499999999 → 4999.5 → 5000. */
function roundCents(cents: number): number {
  return Math.round(Number(cents.toFixed(6)));
}

const toCents = (amount: number): number => roundCents(amount * 100);
const fromCents = (cents: number): number => cents / 100;

function checkOdds(odds: readonly number[]): CannotCompute | undefined {
  if (odds.length === 0) return refuse('no-odds');
  for (const o of odds) if (typeof o !== 'number' || !Number.isFinite(o) || o <= 1) return refuse('invalid-odds');
  return undefined;
}

function checkMoney(bankroll: number, step: number): { B: number; S: number } | CannotCompute {
  if (typeof bankroll !== 'number' || !Number.isFinite(bankroll) || bankroll <= 0) return refuse('invalid-bankroll');
  if (typeof step !== 'number' || !Number.isFinite(step) || step <= 0) return refuse('invalid-step');
  const B = toCents(bankroll);
  const S = toCents(step);
  if (B < 1) return refuse('invalid-bankroll');
  if (S < 1) return refuse('invalid-step');
  return { B, S };
}

/** The arb's profit % before any rounding, or undefined when the odds cannot make one. */
export function arbProfitPct(odds: readonly number[]): number | undefined {
  if (checkOdds(odds)) return undefined;
  const sumInv = odds.reduce((s, o) => s + 1 / o, 0);
  return (1 / sumInv - 1) * 100;
}

/**
 * A middle's % outcomes with ideal (unrounded) arb stakes: `miss` equals the arb %, `hit` is what
 * both legs together return. Undefined when the odds cannot be used.
 */
export function middleIdealPct(odds: readonly [number, number]): { hit: number; miss: number } | undefined {
  if (checkOdds(odds)) return undefined;
  const sumInv = 1 / odds[0] + 1 / odds[1];
  return { hit: (2 / sumInv - 1) * 100, miss: (1 / sumInv - 1) * 100 };
}

interface Candidate {
  units: number[];
  totalCents: number;
  payoutCents: number[];
  worstCents: number;
  deviation: number;
}

function evaluate(units: number[], odds: readonly number[], S: number, ideal: number[]): Candidate {
  const stakeCents = units.map((u) => u * S);
  const totalCents = stakeCents.reduce((a, b) => a + b, 0);
  const payoutCents = stakeCents.map((c, i) => roundCents(c * (odds[i] ?? 0)));
  const worstCents = Math.min(...payoutCents) - totalCents;
  const deviation = units.reduce((d, u, i) => d + Math.abs(u - (ideal[i] ?? 0)), 0);
  return { units, totalCents, payoutCents, worstCents, deviation };
}

/** True when `a` is the better rounding (see `arbStakes` for the rule). */
function better(a: Candidate, b: Candidate): boolean {
  if (a.worstCents !== b.worstCents) return a.worstCents > b.worstCents;
  if (a.totalCents !== b.totalCents) return a.totalCents > b.totalCents;
  return a.deviation < b.deviation;
}

/** Every choice of `low[i]` or `high[i]` per leg (legs where both are equal count once). */
function* floorCeilChoices(low: number[], high: number[]): Generator<number[]> {
  const open = low.flatMap((l, i) => ((high[i] ?? l) > l ? [i] : []));
  for (let mask = 0; mask < 2 ** open.length; mask++) {
    const units = [...low];
    open.forEach((leg, bit) => {
      if (mask & (2 ** bit)) units[leg] = high[leg] ?? 0;
    });
    yield units;
  }
}

/** Without a search: every stake rounded down, then raised a step, largest remainder first, while the total fits. */
function greedyChoice(low: number[], high: number[], ideal: number[], maxUnits: number): number[] {
  const units = [...low];
  let total = units.reduce((a, b) => a + b, 0);
  const order = units
    .map((_, i) => i)
    .filter((i) => (high[i] ?? 0) > (low[i] ?? 0))
    .sort((i, j) => ((ideal[j] ?? 0) % 1) - ((ideal[i] ?? 0) % 1));
  for (const i of order) {
    if (total + 1 > maxUnits) break;
    units[i] = high[i] ?? 0;
    total += 1;
  }
  return units;
}

/**
 * Splits `bankroll` over an arb's legs so every outcome pays about the same, never staking more
 * than the bankroll.
 *
 * The rule: ideal stakes are proportional to 1/odds and sum to the bankroll; each is rounded down
 * or up to a multiple of `step` (at least one step). Of the combinations (all of them up to
 * MAX_SEARCH_LEGS legs) whose total is at most the bankroll, the winner has the best worst-case
 * profit in money; ties go to the larger total, then to the stakes closest to the ideal ones.
 * When even the winner loses money (a middle's miss, a thin arb that rounding turns negative),
 * staking less would only "lose less": the choice is then made among totals of at least the
 * bankroll less one step. One such combination always exists (the rounded-down stakes plus enough
 * rounded-up ones to reach the largest multiple of the step within the bankroll).
 *
 * When legs raised to the one-step minimum push even the rounded-down stakes over the bankroll,
 * the most overstaked other legs give a step back until they fit. Only when one step per leg
 * cannot fit at all (a tiny bankroll, a big step, a long arb) do the stakes sum to more than the
 * bankroll: a step each, marked `overBankroll` so the alert says the real total, and refused
 * beyond one step over.
 */
export function arbStakes(odds: number[], bankroll: number, step: number): ArbStakes | CannotCompute {
  const badOdds = checkOdds(odds);
  if (badOdds) return badOdds;
  const money = checkMoney(bankroll, step);
  if ('ok' in money) return money;
  const { B, S } = money;

  const inv = odds.map((o) => 1 / o);
  const sumInv = inv.reduce((a, b) => a + b, 0);
  const ideal = inv.map((v) => (B * v) / sumInv / S);
  // The tolerance keeps an ideal of 50.0000000001 units (float noise) a whole 50.
  const low = ideal.map((u) => Math.max(1, Math.floor(u + 1e-9)));
  const high = ideal.map((u, i) => Math.max(low[i] ?? 1, Math.ceil(u - 1e-9)));
  const maxUnits = Math.floor(B / S);
  // Legs raised to their one-step minimum can push even the rounded-down stakes over the
  // bankroll: then the most overstaked of the others (relative to its ideal) give a step back,
  // as long as a step per leg fits at all, so the stakes still never exceed the bankroll.
  let lowTotal = low.reduce((a, b) => a + b, 0);
  while (lowTotal > maxUnits) {
    let leg = -1;
    low.forEach((u, i) => {
      if (u > 1 && (leg < 0 || u / (ideal[i] ?? 1) > (low[leg] ?? 0) / (ideal[leg] ?? 1))) leg = i;
    });
    if (leg < 0) break;
    low[leg] = (low[leg] ?? 1) - 1;
    high[leg] = low[leg] ?? 1;
    lowTotal -= 1;
  }
  const choices = odds.length <= MAX_SEARCH_LEGS ? [...floorCeilChoices(low, high)] : [greedyChoice(low, high, ideal, maxUnits)];
  const candidates = choices.map((units) => evaluate(units, odds, S, ideal)).filter((c) => c.totalCents <= B);
  const bestOf = (list: Candidate[]) => list.reduce<Candidate | undefined>((b, c) => (!b || better(c, b) ? c : b), undefined);
  let best = bestOf(candidates);
  if (best && best.worstCents < 0) best = bestOf(candidates.filter((c) => c.totalCents >= B - S)) ?? best;
  if (!best) {
    // One step per leg does not fit: the smallest stakes there are, if at most one step over.
    const smallest = evaluate(low, odds, S, ideal);
    if (smallest.totalCents <= B + S) best = smallest;
  }
  if (!best) return refuse('bankroll-too-small');
  const overBankroll = best.totalCents > B;

  const breakEven = inv.map((v) => {
    const others = sumInv - v;
    return others >= 1 ? Number.POSITIVE_INFINITY : 1 / (1 - others);
  });
  return {
    ok: true,
    stakes: best.units.map((u) => fromCents(u * S)),
    total: fromCents(best.totalCents),
    overBankroll,
    payouts: best.payoutCents.map(fromCents),
    worstProfit: fromCents(best.worstCents),
    worstProfitPct: (best.worstCents / best.totalCents) * 100,
    profitPct: (1 / sumInv - 1) * 100,
    breakEven,
  };
}

/**
 * A middle (e.g. over 2.5 at one bookmaker, under 3.5 at another) staked as an arb of its two
 * legs: if the result lands in the middle both legs win (`ifHit`), otherwise only one does
 * (`ifMiss`, the worse of the two).
 */
export function middleOutcomes(
  odds: [number, number],
  bankroll: number,
  step: number,
): MiddleOutcomes | CannotCompute {
  const arb = arbStakes(odds, bankroll, step);
  if (!arb.ok) return arb;
  const totalCents = toCents(arb.total);
  const hitCents = arb.payouts.reduce((s, p) => s + toCents(p), 0) - totalCents;
  return {
    ok: true,
    arb,
    stakes: arb.stakes,
    total: arb.total,
    ifHit: { profit: fromCents(hitCents), pct: (hitCents / totalCents) * 100 },
    ifMiss: { profit: arb.worstProfit, pct: arb.worstProfitPct },
  };
}

/**
 * The probability a valuebet's maths use: the service's when it is a usable number in (0, 1];
 * otherwise derived from the overvalue, p = (1 + overvalue/100) / odds.
 */
export function valuebetProbability(
  odds: number,
  probability: number | null,
  overvalue: number | null,
): number | CannotCompute {
  const badOdds = checkOdds([odds]);
  if (badOdds) return badOdds;
  if (probability !== null && Number.isFinite(probability) && probability > 0 && probability <= 1) return probability;
  if (overvalue !== null && Number.isFinite(overvalue)) {
    const p = (1 + overvalue / 100) / odds;
    return p > 0 && p <= 1 ? p : refuse('invalid-probability');
  }
  return refuse(probability === null ? 'no-probability' : 'invalid-probability');
}

/**
 * A valuebet's expected value and Kelly stake. The probability is the service's when it is a
 * usable number in (0, 1]; otherwise it is derived from the overvalue: p = (1 + overvalue/100) / odds.
 * Kelly: f* = (b·p − q) / b, b = odds − 1, clamped to ≥ 0; the suggested stake is a quarter of
 * that times the bankroll, rounded to the nearest step.
 */
export function valuebetMaths(
  odds: number,
  probability: number | null,
  overvalue: number | null,
  bankroll: number,
  step: number,
): ValuebetMaths | CannotCompute {
  const badOdds = checkOdds([odds]);
  if (badOdds) return badOdds;
  const money = checkMoney(bankroll, step);
  if ('ok' in money) return money;
  const { B, S } = money;

  const p = valuebetProbability(odds, probability, overvalue);
  if (typeof p !== 'number') return p;

  const b = odds - 1;
  const kellyFraction = Math.max(0, (b * p - (1 - p)) / b);
  const quarterKellyFraction = kellyFraction / 4;
  const kellyStakeCents = Math.round((quarterKellyFraction * B) / S) * S;
  return {
    ok: true,
    probability: p,
    fairOdds: 1 / p,
    evPct: (odds * p - 1) * 100,
    kellyFraction,
    quarterKellyFraction,
    kellyStake: fromCents(kellyStakeCents),
  };
}
