/**
 * The other ways to stake an arb, beside the equal-profit solver (stake-solver.ts): all the profit
 * on one leg with the others breaking even, and the hedge of a leg a bookmaker rejected after the
 * other legs were placed. Pure; money in integer cents inside, as in the solver.
 */
import { leastStakeCents } from '../ledger/settle.js';
import { displayedFor, effectiveOdds, settledOdds } from './leg-pricing.js';
import {
  breakEvenOdds,
  capsLimiting,
  fail,
  leastUnits,
  solvedLegs,
  solveStakes,
  toCents,
  unitOf,
  type Best,
  type SolvedLeg,
  type SolveFailure,
  type StakeLegInput,
  type StakePlan,
  type Unit,
} from './stake-solver.js';

/** A leg rejected after the other legs were placed: how to hedge it at new odds. */
export interface HedgePlan {
  /** The smallest return of the placed legs (cents-exact, in currency units). */
  covered: number;
  /** Σ money at risk of the placed legs. */
  spent: number;
  /**
   * The odds (as the bookmaker or exchange shows them, for the rejected leg's side and commission)
   * at which a hedge breaks even; Infinity when no odds would (the placed legs return no more than they cost).
   */
  breakEvenOdds: number;
}

/** What a hedge at `odds` gives: its stake (a lay leg: the lay stake), money at risk, and the worst case. */
export interface HedgeAt {
  stake: number;
  liability: number;
  worstProfit: number;
}

/**
 * A rejected leg (stake-maths.md §1.5): with the placed legs returning at least `covered` whichever
 * of them wins and `spent` at risk, a hedge of the rejected outcome at effective odds o' needs
 * covered/o' at risk, breaks even at o' = 1 + spent/(covered − spent) and then makes
 * covered − spent − covered/o'.
 */
export function hedgePlan(placed: readonly SolvedLeg[], rejected: Pick<StakeLegInput, 'lay' | 'commission'>): HedgePlan {
  const covered = Math.min(...placed.map((l) => l.payout));
  const spent = placed.reduce((s, l) => s + l.liability, 0);
  const effective = covered > spent ? 1 + spent / (covered - spent) : Number.POSITIVE_INFINITY;
  return { covered, spent, breakEvenOdds: displayedFor(effective, rejected.lay, rejected.commission) };
}

/** The hedge at `odds` (as shown): the least cent amount whose settled return reaches `covered`. */
export function hedgeAt(plan: HedgePlan, odds: number, rejected: Pick<StakeLegInput, 'lay' | 'commission'>): HedgeAt | undefined {
  if (!Number.isFinite(odds) || odds <= 1) return undefined;
  const effective = settledOdds(odds, rejected.lay, rejected.commission);
  if (!Number.isFinite(effective) || effective <= 1) return undefined;
  const liabilityCents = leastStakeCents(Math.round(plan.covered * 100), effective);
  // In cents, as settled: float products of currency units round the wrong way at a half cent.
  const cents = (x: number): number => Math.round(Number(x.toFixed(6)));
  // A lay hedge is staked as its lay stake: liability / (L − 1), up to the cent.
  const stakeCents = rejected.lay ? Math.ceil(Number((liabilityCents / (odds - 1)).toFixed(6))) : liabilityCents;
  const moneyCents = rejected.lay ? cents(stakeCents * (odds - 1)) : liabilityCents;
  const returnCents = rejected.lay ? moneyCents + cents(stakeCents * (1 - rejected.commission)) : cents(liabilityCents * effective);
  const worstCents = Math.min(Math.round(plan.covered * 100), returnCents) - Math.round(plan.spent * 100) - moneyCents;
  const stake = stakeCents / 100;
  const money = moneyCents / 100;
  const worstProfit = worstCents / 100;
  return { stake, liability: money, worstProfit };
}

/**
 * The hedge's break-even odds as printed: three decimals, rounded to the side the user can take (up
 * for a back hedge, down for a lay hedge), then checked against the hedge as it is staked, to the
 * cent, so that at the printed odds the hedge loses nothing (1 + 340/646 = 1.52632 → 1.527, where
 * 1.526 loses 0.14). Infinity when no odds would do.
 */
export function shownHedgeBreakEven(plan: HedgePlan, rejected: Pick<StakeLegInput, 'lay' | 'commission'>): number {
  const exact = plan.breakEvenOdds;
  if (!Number.isFinite(exact)) return exact;
  const dir = rejected.lay ? -1 : 1;
  let k = rejected.lay ? Math.floor(exact * 1000 + 1e-9) : Math.ceil(exact * 1000 - 1e-9);
  // A few thousandths at most: the stake's cent is all the rounding there is.
  for (let i = 0; i < 100 && k > 1000; i++, k += dir) {
    const at = hedgeAt(plan, k / 1000, rejected);
    if (at && at.worstProfit >= 0) return k / 1000;
  }
  return rejected.lay ? Number.POSITIVE_INFINITY : k / 1000;
}

/**
 * Stakes with all the profit on leg `p` and every other outcome breaking even or better
 * (stake-maths.md §1.5, "Algorithm B"): for each unit count of leg p, the other legs take the
 * least fixed point of u_j = max(lo_j, fewest units whose return reaches the total T(u)), found by
 * iterating from the minimums. The map is monotone (more units → more total → more units), so the
 * iteration from below reaches its least fixed point (Knaster–Tarski): the cheapest way to keep
 * every other outcome ≥ 0 for that count, hence the best profit on leg p for it. The best count
 * wins (ties: the smaller total). Counts are scanned from the top down and the scan stops once the
 * bound u_p·(return − cost/f), f = 1 − Σ_{j≠p} 1/o'_j, falls below the best found.
 */
export function solveProfitOn(legs: readonly StakeLegInput[], bankroll: number, p: number): StakePlan | SolveFailure {
  const base = solveStakes(legs, bankroll);
  if (!base.ok && base.reason !== 'no-guaranteed-profit') return base;
  if (p < 0 || p >= legs.length) return fail('no-odds');
  const B = toCents(bankroll);
  const eff = legs.map((l) => effectiveOdds(l.odds, l.lay, l.commission));
  const sumInv = eff.reduce((s, o) => s + 1 / o, 0);
  const profitPct = (1 / sumInv - 1) * 100;
  if (sumInv >= 1) return fail('no-guaranteed-profit', profitPct);
  const units: Unit[] = [];
  for (const leg of legs) {
    const u = unitOf(leg, B);
    if (typeof u === 'string') return fail(u);
    units.push(u);
  }
  const lp = units[p] as Unit;
  // A bound on the settled amounts: the unrounded effective odds.
  const settled = legs.map((l) => settledOdds(l.odds, l.lay, l.commission));
  const f = 1 - settled.reduce((s, o, i) => (i === p ? s : s + 1 / o), 0);
  const slack = units.length + 2;
  let best: Best | undefined;
  let candidates = 0;
  const chosen = new Array<number>(units.length).fill(0);
  for (let k = lp.hi; k >= lp.lo; k--) {
    const bound = lp.pay(k) - lp.cost(k) / f + slack;
    if (best && bound < best.worst) break;
    candidates += 1;
    units.forEach((u, i) => (chosen[i] = i === p ? k : u.lo));
    let feasible = true;
    for (let round = 0; round < 1000; round++) {
      const total = units.reduce((s, u, i) => s + u.cost(chosen[i] ?? 0), 0);
      if (total > B) {
        feasible = false;
        break;
      }
      let changed = false;
      for (let i = 0; i < units.length; i++) {
        if (i === p) continue;
        const need = leastUnits(units[i] as Unit, total);
        if (need === undefined) {
          feasible = false;
          break;
        }
        if (need > (chosen[i] ?? 0)) {
          chosen[i] = need;
          changed = true;
        }
      }
      if (!feasible || !changed) break;
    }
    if (!feasible) continue;
    const total = units.reduce((s, u, i) => s + u.cost(chosen[i] ?? 0), 0);
    if (total > B) continue;
    const pays = units.map((u, i) => u.pay(chosen[i] ?? 0));
    if (pays.some((pay, i) => i !== p && pay < total)) continue;
    const onP = (pays[p] ?? 0) - total;
    const sumPay = pays.reduce((a, b) => a + b, 0);
    // `worst` holds the profit on leg p here (the objective); the plan's worst case is computed below.
    if (!best || onP > best.worst || (onP === best.worst && total < best.total)) best = { units: [...chosen], total, worst: onP, sumPay };
  }
  if (!best || best.worst <= 0) return fail('no-guaranteed-profit', profitPct);
  const chosenBest = best;
  const solved = solvedLegs(legs, units, eff, chosenBest.units);
  const worstCents = Math.min(...solved.map((l) => Math.round(l.payout * 100))) - chosenBest.total;
  return {
    ok: true,
    legs: solved,
    bankroll: B / 100,
    total: chosenBest.total / 100,
    unspent: (B - chosenBest.total) / 100,
    worstProfit: worstCents / 100,
    worstProfitPct: (worstCents / chosenBest.total) * 100,
    profitPct,
    profitPctBeforeCommission: base.ok ? base.profitPctBeforeCommission : profitPct,
    breakEven: breakEvenOdds(legs, eff, sumInv),
    limitedBy: capsLimiting(legs, units, B, 1 - f + 1 / (settled[p] ?? 1)),
    candidates,
  };
}
