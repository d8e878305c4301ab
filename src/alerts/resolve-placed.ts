/**
 * ✏️ Placed differently, re-solved: once the user says a leg was taken at other odds or another
 * stake, the legs not yet answered are solved again around the answered ones (their odds and
 * stakes fixed) with the solver, caps and steps of ✏️ Leg limited (`alertStakes`' inputs,
 * `solveStakes`), so the bot can offer stakes that still make the arb whole. Pure.
 */
import type { LedgerLeg } from '../ledger/model.js';
import type { AlertPrint } from '../ledger/prints.js';
import { stakeInput, type StakeView } from './alert-stakes.js';
import { effectiveOdds, type PricedLeg } from './leg-pricing.js';
import { solveStakes } from './stake-solver.js';

/**
 * Stakes for every leg (those up to `answered` as they are), or undefined when the solver finds no
 * stakes with a guaranteed profit on the user's steps, caps and bankroll.
 */
export function resolveAround(p: { legs: readonly LedgerLeg[] }, print: AlertPrint, answered: number, view: StakeView): number[] | undefined {
  const inputs = p.legs.map((l, i) => {
    const priced: PricedLeg = {
      bookmakerId: print.legs[i]?.bookmakerId ?? undefined,
      bookmaker: l.bookmaker,
      odds: l.odds,
      lay: l.lay,
      commission: l.commission,
      commissionIsDefault: false,
      effectiveOdds: effectiveOdds(l.odds, l.lay, l.commission),
    };
    return stakeInput(priced, view, i <= answered ? l.stake : undefined);
  });
  const plan = solveStakes(inputs, view.bankroll);
  return plan.ok ? plan.legs.map((l) => l.stake) : undefined;
}
