/**
 * The exact stake solver: stakes a bettor can actually place (each leg on its own step, within its
 * minimum and maximum, all of them within the bankroll) that maximise the guaranteed profit
 * — the worst case over which leg wins, after commission and rounding to cents. Ties go to the
 * smaller total at risk, then to the larger sum of returns. Pure; money in integer cents inside.
 *
 * Legs are back bets or lay bets. A lay leg's stake is the lay (backer's) stake ℓ; its money at
 * risk is the liability ℓ(L − 1), which is what the bankroll and the leg's maximum count; when the
 * selection loses it returns the liability plus ℓ(1 − c). A back leg's money at risk is its stake
 * s; when it wins it returns s + s(o − 1)(1 − c). Each is rounded to the cent as a bookmaker or an
 * exchange settles it.
 *
 * Algorithm (stake-maths.md §1.4, "Algorithm A", generalised to any per-leg cost and return that
 * do not decrease with the units staked): for every leg j and every unit count k of it, take the
 * level R = return_j(k) and give every other leg the fewest units whose return reaches R (at least
 * its minimum). Keep the best feasible candidate.
 *
 * Why this is optimal: take any feasible stakes u* and let R = min_i return_i(u*_i), reached at
 * leg j; R is one of the levels tried (leg j, k = u*_j). The candidate built for it has
 * u'_i ≤ u*_i for every leg (u*_i already reaches R and is at least the minimum) and u'_j = u*_j.
 * Costs do not decrease with units, so u' costs at most what u* costs and stays within every cap
 * and the bankroll; its worst return is R (no less, by construction; no more, at leg j). So its
 * guaranteed profit R − cost(u') ≥ R − cost(u*): some candidate is at least as good as any
 * stakes there are. Among equal profits the candidate is also no more expensive, so the
 * tie-breaks are honoured among candidates (a test compares with a brute force over every stake
 * vector on small cases).
 *
 * Pruning: a candidate's profit is at most R(1 − Σ 1/o'_i) plus a cent per leg of rounding (its
 * costs are at least R/o'_i each, less rounding), so for each leg the levels are scanned from the
 * top down and the scan stops once that bound falls below the best profit found.
 *
 * Skipping (what keeps a lay leg staked to the cent cheap): while the level R stays above every
 * other leg's next-lower return pay_i(u_i − 1), the other legs' units do not change, and a smaller
 * k of leg j only lowers its winnings pay_j − cost_j (they never decrease with k): its profit
 * win_j(k) − cost(others) cannot rise. So after the top k of such a range only the smallest k with
 * the same winnings (a tie at a smaller total) is tried, and the scan jumps to the range below.
 * When the top k is over the bankroll, it jumps to the largest k that fits with those other legs
 * (every k in between is over the bankroll too). Nothing skipped can beat what is tried.
 */
import { displayedFor, effectiveOdds, settledOdds } from './leg-pricing.js';

/** One leg to stake. Amounts in the user's currency. */
export interface StakeLegInput {
  bookmakerId: number | undefined;
  /** Display name (unescaped). */
  bookmaker: string;
  /** Odds as the bookmaker or exchange shows them. */
  odds: number;
  lay: boolean;
  /** Commission on net winnings, a fraction in [0, 1). */
  commission: number;
  /** Stakes (a lay leg: lay stakes) are multiples of this. */
  step: number;
  /** Least stake (a lay leg: lay stake); 0 or undefined = one step. */
  min?: number;
  /** Most money at risk (a lay leg: liability); undefined = no cap. */
  max?: number;
  /** The stake is exactly this (already placed, or what the bookmaker accepted). */
  fixed?: number;
}

/** One leg of the answer. */
export interface SolvedLeg {
  bookmakerId: number | undefined;
  bookmaker: string;
  odds: number;
  effectiveOdds: number;
  lay: boolean;
  commission: number;
  /** Back: the stake. Lay: the lay (backer's) stake, as the exchange asks for it. */
  stake: number;
  /** What one step of that stake is (its step, or the whole stake of a fixed leg). */
  step: number;
  /** Money at risk: the stake of a back leg, the liability of a lay leg. */
  liability: number;
  /** What the leg pays back if it wins (money at risk included), after commission. */
  payout: number;
  /** True when the leg's maximum stopped it from taking one more step. */
  capped: boolean;
  /** The leg's maximum (money at risk), when it has one. */
  max: number | undefined;
}

export interface StakePlan {
  ok: true;
  legs: SolvedLeg[];
  bankroll: number;
  /** Σ money at risk. */
  total: number;
  /** bankroll − total. */
  unspent: number;
  /** min(payouts) − total. */
  worstProfit: number;
  /** worstProfit / total × 100. */
  worstProfitPct: number;
  /** 1 / Σ 1/effective odds − 1, × 100: the arb's profit after commission, before rounding. */
  profitPct: number;
  /** The same without commission (lay legs still read as lay bets). */
  profitPctBeforeCommission: number;
  /** Per leg: the odds, as the bookmaker or exchange would show them, at which the arb breaks even (a lay leg: the highest). */
  breakEven: number[];
  /**
   * Legs whose maximum bounds the stakes: the most they can return (at their cap) is less than the
   * return the whole bankroll would fund, so the stakes stay below the bankroll because of them —
   * whether or not the leg sits exactly at its cap (the step may make a stake under it better).
   */
  limitedBy: number[];
  /** How many candidates were evaluated (for benchmarks). */
  candidates: number;
}

export type SolveRefusal =
  | 'no-odds'
  | 'invalid-odds'
  | 'invalid-bankroll'
  | 'invalid-step'
  | 'no-guaranteed-profit'
  | 'bankroll-too-small'
  | 'leg-limits-conflict';

export interface SolveFailure {
  ok: false;
  reason: SolveRefusal;
  /** Set for 'no-guaranteed-profit': the arb's profit % after commission, before rounding. */
  profitPct?: number;
}

/** One leg in units of its step (exported for stake-modes.ts). */
export interface Unit {
  /** cents of money at risk for u units */
  cost(u: number): number;
  /** cents returned when this leg wins */
  pay(u: number): number;
  /** money at risk per unit (approximate for a lay leg) and return per unit, for estimates */
  costRate: number;
  payRate: number;
  lo: number;
  hi: number;
  /** cents per unit of the stake itself (the lay stake of a lay leg) */
  stakeCents: number;
  capCents: number | undefined;
}

/**
 * Rounds a cent amount that came out of a float product, half up: 4999.499999999 (float noise of an
 * exact 4999.5) → 5000. The nudge (a billionth of a cent, plus 1e-13 relative) is far above float
 * noise and far below any real fraction of a cent; no string conversion (this runs per candidate).
 */
const roundCents = (cents: number): number => Math.round(cents + 1e-9 + Math.abs(cents) * 1e-13);
export const toCents = (amount: number): number => roundCents(amount * 100);

export const fail = (reason: SolveRefusal, profitPct?: number): SolveFailure =>
  profitPct === undefined ? { ok: false, reason } : { ok: false, reason, profitPct };

export function unitOf(leg: StakeLegInput, budgetCents: number): Unit | SolveRefusal {
  const fixed = leg.fixed !== undefined ? toCents(leg.fixed) : undefined;
  if (fixed !== undefined && !(fixed >= 1)) return 'invalid-step';
  const S = fixed ?? toCents(leg.step);
  if (!Number.isFinite(S) || S < 1) return 'invalid-step';
  const c = leg.commission;
  const o = leg.odds;
  const cost = leg.lay ? (u: number) => roundCents(u * S * (o - 1)) : (u: number) => u * S;
  const win = leg.lay ? (u: number) => roundCents(u * S * (1 - c)) : (u: number) => roundCents(u * S * (o - 1) * (1 - c));
  const pay = (u: number) => cost(u) + win(u);
  const costRate = leg.lay ? S * (o - 1) : S;
  const payRate = leg.lay ? S * (o - c) : S * (1 + (o - 1) * (1 - c));
  const capCents = leg.max !== undefined ? toCents(leg.max) : undefined;
  // A fixed stake is what the bookmaker took: only the bankroll limits it.
  const limit = Math.min(fixed === undefined ? (capCents ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY, budgetCents);
  let hi = Math.floor(limit / costRate);
  while (hi > 0 && cost(hi) > limit) hi -= 1;
  while (cost(hi + 1) <= limit) hi += 1;
  const minCents = leg.min !== undefined && leg.min > 0 ? toCents(leg.min) : 0;
  let lo = Math.max(1, Math.ceil(minCents / S - 1e-9));
  if (fixed !== undefined) {
    lo = 1;
    if (hi < 1) return 'bankroll-too-small';
    hi = 1;
  }
  return { cost, pay, costRate, payRate, lo, hi, stakeCents: S, capCents };
}

/** The fewest units of `leg` in [lo, hi] whose return reaches `R`, or undefined. */
export function leastUnits(leg: Unit, R: number): number | undefined {
  let u = Math.max(leg.lo, Math.ceil(R / leg.payRate) - 1);
  if (u > leg.hi) return leg.pay(leg.hi) >= R ? leg.hi : undefined;
  while (u <= leg.hi && leg.pay(u) < R) u += 1;
  if (u > leg.hi) return undefined;
  while (u > leg.lo && leg.pay(u - 1) >= R) u -= 1;
  return u;
}

export interface Best {
  units: number[];
  total: number;
  worst: number;
  sumPay: number;
}

/** The plan's legs at `chosen` units each: what each stakes, risks and returns, and whether its cap stopped it. */
export function solvedLegs(legs: readonly StakeLegInput[], units: readonly Unit[], eff: readonly number[], chosen: readonly number[]): SolvedLeg[] {
  return legs.map((leg, i): SolvedLeg => {
    const unit = units[i] as Unit;
    const u = chosen[i] ?? 0;
    return {
      bookmakerId: leg.bookmakerId,
      bookmaker: leg.bookmaker,
      odds: leg.odds,
      effectiveOdds: eff[i] ?? 0,
      lay: leg.lay,
      commission: leg.commission,
      stake: (u * unit.stakeCents) / 100,
      step: unit.stakeCents / 100,
      liability: unit.cost(u) / 100,
      payout: unit.pay(u) / 100,
      capped: unit.capCents !== undefined && leg.fixed === undefined && unit.cost(u + 1) > unit.capCents,
      max: leg.max,
    };
  });
}

/** Per leg, the odds (as the bookmaker or exchange shows them) at which the others' prices break even. */
export function breakEvenOdds(legs: readonly StakeLegInput[], eff: readonly number[], sumInv: number): number[] {
  return legs.map((leg, i) => {
    const others = sumInv - 1 / (eff[i] ?? 1);
    return others >= 1 ? Number.POSITIVE_INFINITY : displayedFor(1 / (1 - others), leg.lay, leg.commission);
  });
}

/**
 * The legs whose cap sets how large the stakes can be (`StakePlan.limitedBy`): of the legs capped
 * below the bankroll, the one(s) whose largest return is the smallest, when that return costs less
 * than the bankroll to cover on every leg (Σ 1/o′ of it).
 */
export function capsLimiting(legs: readonly StakeLegInput[], units: readonly Unit[], budgetCents: number, sumInvSettled: number): number[] {
  const most = units.map((u, i) => (legs[i]?.fixed === undefined && u.capCents !== undefined && u.capCents < budgetCents ? u.pay(u.hi) : Number.POSITIVE_INFINITY));
  const tightest = Math.min(...most);
  if (!Number.isFinite(tightest) || tightest * sumInvSettled >= budgetCents) return [];
  return most.flatMap((pay, i) => (pay === tightest ? [i] : []));
}

/**
 * Solves the stakes of an arb's legs for `bankroll`. Refuses with 'no-guaranteed-profit' when no
 * stakes on the legs' grids have a positive worst case (including when the odds after commission
 * are no arb at all).
 */
export function solveStakes(legs: readonly StakeLegInput[], bankroll: number): StakePlan | SolveFailure {
  if (legs.length === 0) return fail('no-odds');
  for (const leg of legs) {
    if (typeof leg.odds !== 'number' || !Number.isFinite(leg.odds) || leg.odds <= 1) return fail('invalid-odds');
    if (!Number.isFinite(leg.commission) || leg.commission < 0 || leg.commission >= 1) return fail('invalid-odds');
    if (!Number.isFinite(leg.step) || leg.step <= 0) return fail('invalid-step');
  }
  if (!Number.isFinite(bankroll) || bankroll <= 0) return fail('invalid-bankroll');
  const B = toCents(bankroll);
  if (B < 1) return fail('invalid-bankroll');

  const eff = legs.map((l) => effectiveOdds(l.odds, l.lay, l.commission));
  const sumInv = eff.reduce((s, o) => s + 1 / o, 0);
  // The bounds below hold for the settled amounts, so they use the unrounded effective odds.
  const sumInvSettled = legs.reduce((s, l) => s + 1 / settledOdds(l.odds, l.lay, l.commission), 0);
  const sumInvRaw = legs.reduce((s, l) => s + 1 / effectiveOdds(l.odds, l.lay, 0), 0);
  const profitPct = (1 / sumInv - 1) * 100;
  if (sumInv >= 1) return fail('no-guaranteed-profit', profitPct);

  const units: Unit[] = [];
  for (const leg of legs) {
    const u = unitOf(leg, B);
    if (typeof u === 'string') return fail(u);
    units.push(u);
  }
  // A leg whose own minimum is over its own cap has no stake at all (the user's settings at that bookmaker).
  if (units.some((u, i) => legs[i]?.fixed === undefined && u.capCents !== undefined && u.cost(u.lo) > u.capCents)) return fail('leg-limits-conflict');
  if (units.some((u) => u.lo > u.hi)) return fail('bankroll-too-small');
  // Every leg's least stake does not fit: no stakes at all, which is not the odds' fault.
  if (units.reduce((sum, u) => sum + u.cost(u.lo), 0) > B) return fail('bankroll-too-small');

  const n = units.length;
  const slack = n + 2;
  // No candidate returns more than the bankroll can buy or a capped leg can pay.
  const ceilingR = Math.min((B + slack) / sumInvSettled, ...units.map((u) => u.pay(u.hi)));
  let best: Best | undefined;
  let candidates = 0;
  const chosen = new Array<number>(n).fill(0);
  // The coarsest legs first: they find a good profit quickly, which prunes the fine ones.
  const order = units.map((_, i) => i).sort((a, b) => (units[b]?.payRate ?? 0) - (units[a]?.payRate ?? 0));
  const consider = (units_: number[], total: number, worst: number, sumPay: number) => {
    if (!best || worst > best.worst || (worst === best.worst && (total < best.total || (total === best.total && sumPay > best.sumPay)))) {
      best = { units: [...units_], total, worst, sumPay };
    }
  };
  for (const j of order) {
    const leg = units[j];
    if (!leg) continue;
    const win = (u: number) => leg.pay(u) - leg.cost(u);
    let k = Math.min(leg.hi, Math.ceil(ceilingR / leg.payRate) + 1);
    while (k >= leg.lo) {
      const R = leg.pay(k);
      if (best && R * (1 - sumInvSettled) + slack < best.worst) break;
      if (R > ceilingR) {
        k -= 1;
        continue;
      }
      candidates += 1;
      let others = 0;
      let reachable = true;
      for (let i = 0; i < n; i++) {
        if (i === j) continue;
        const u = leastUnits(units[i] as Unit, R);
        if (u === undefined) {
          reachable = false;
          break;
        }
        chosen[i] = u;
        others += (units[i] as Unit).cost(u);
      }
      if (!reachable) {
        k -= 1;
        continue;
      }
      chosen[j] = k;
      // Below `next` some other leg needs fewer units; above it they stay as they are, and then
      // a smaller k only lowers leg j's winnings (W = win_j(k) − others): no need to try those k.
      let next = Number.NEGATIVE_INFINITY;
      let sumOthers = 0;
      for (let i = 0; i < n; i++) {
        if (i === j) continue;
        const other = units[i] as Unit;
        const u = chosen[i] ?? 0;
        sumOthers += other.pay(u);
        if (u > other.lo) next = Math.max(next, other.pay(u - 1));
      }
      let kNext = leg.lo - 1;
      if (Number.isFinite(next)) {
        kNext = Math.min(k - 1, Math.floor(next / leg.payRate) + 1);
        while (kNext >= leg.lo && leg.pay(kNext) > next) kNext -= 1;
      }
      const total = others + leg.cost(k);
      if (total <= B) {
        consider(chosen, total, R - total, sumOthers + R);
        // Ties within the range: a smaller k with the same winnings costs less.
        let t = k;
        while (t - 1 > kNext && win(t - 1) === win(k)) t -= 1;
        if (t < k) {
          chosen[j] = t;
          const tTotal = others + leg.cost(t);
          consider(chosen, tTotal, leg.pay(t) - tTotal, sumOthers + leg.pay(t));
        }
        k = kNext;
      } else {
        // Over the bankroll with these other legs: the largest k of leg j that fits with them.
        const left = B - others;
        let kFit = left < 0 ? leg.lo - 1 : Math.min(k - 1, Math.floor(left / leg.costRate) + 1);
        while (kFit >= leg.lo && leg.cost(kFit) > left) kFit -= 1;
        k = Math.max(kNext, kFit);
      }
    }
  }
  const found = best as Best | undefined;
  if (!found || found.worst <= 0) return fail('no-guaranteed-profit', profitPct);

  const solved = solvedLegs(legs, units, eff, found.units);
  const breakEven = breakEvenOdds(legs, eff, sumInv);
  return {
    ok: true,
    legs: solved,
    bankroll: B / 100,
    total: found.total / 100,
    unspent: (B - found.total) / 100,
    worstProfit: found.worst / 100,
    worstProfitPct: (found.worst / found.total) * 100,
    profitPct,
    profitPctBeforeCommission: (1 / sumInvRaw - 1) * 100,
    breakEven,
    limitedBy: capsLimiting(legs, units, B, sumInvSettled),
    candidates,
  };
}
