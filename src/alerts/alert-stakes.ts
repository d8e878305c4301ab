/**
 * The stakes an alert shows, as one pure call: an item's legs priced (lay, commission), each leg
 * given the user's step, minimum and maximum at its bookmaker, and the exact solver run for the
 * user's bankroll. The alert's text and anything that records what the alert showed (a bet
 * ledger's "✅ Placed") call this same function, so they can never disagree.
 *
 * A lay leg's step defaults to a cent: exchanges take any amount, and rounding lay stakes to look
 * less like an arber is a bookmaker concern. A user's `/book … step=N` overrides it.
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import type { BookSettings } from '../store/book-settings.js';
import { pricedLegs } from './headline-figures.js';
import type { PricedLeg } from './leg-pricing.js';
import { solveProfitOn } from './stake-modes.js';
import { solveStakes, type SolveFailure, type StakeLegInput, type StakePlan } from './stake-solver.js';

/** The default step of a lay leg's stake. */
export const LAY_STEP = 0.01;

/** What the stakes depend on besides the item. */
export interface StakeView {
  bankroll: number;
  roundingStep: number;
  books?: Readonly<Record<string, BookSettings>> | undefined;
  /** 'high' / 'low': all profit on the leg with the highest / lowest odds (PROPPR's RF High / RF Low). */
  stakingMode?: 'equal' | 'high' | 'low' | undefined;
  /** All profit on this leg (index), overriding the mode. */
  profitOn?: number | undefined;
}

/** The leg that carries all the profit under the view's mode, or undefined for equal profit. */
export function profitLeg(legs: readonly PricedLeg[], view: StakeView): number | undefined {
  if (view.profitOn !== undefined) return view.profitOn >= 0 && view.profitOn < legs.length ? view.profitOn : undefined;
  if (!view.stakingMode || view.stakingMode === 'equal' || legs.length === 0) return undefined;
  const odds = legs.map((l) => l.effectiveOdds);
  const pick = view.stakingMode === 'high' ? Math.max(...odds) : Math.min(...odds);
  return odds.indexOf(pick);
}

/** A leg's solver input from its pricing and the user's settings at its bookmaker. */
export function stakeInput(leg: PricedLeg, view: StakeView, fixed?: number): StakeLegInput {
  const own = leg.bookmakerId === undefined ? undefined : view.books?.[String(leg.bookmakerId)];
  return {
    bookmakerId: leg.bookmakerId,
    bookmaker: leg.bookmaker,
    odds: leg.odds,
    lay: leg.lay,
    commission: leg.commission,
    step: own?.step ?? (leg.lay ? LAY_STEP : view.roundingStep),
    ...(own?.min !== undefined ? { min: own.min } : {}),
    ...(own?.max !== undefined ? { max: own.max } : {}),
    ...(fixed !== undefined ? { fixed } : {}),
  };
}

/**
 * The stakes the alert for `item` shows for `view`, or undefined when its odds are hidden.
 * `fixed` (leg index → amount) pins legs already placed or limited by the bookmaker.
 */
export function alertStakes(
  item: Opportunity,
  names: Pick<Names, 'oddsType' | 'bookmaker'>,
  view: StakeView,
  fixed: Readonly<Record<number, number>> = {},
): StakePlan | SolveFailure | undefined {
  if (item.masked) return undefined;
  const legs = pricedLegs(item, { names, books: view.books });
  if (!legs) return undefined;
  const inputs = legs.map((leg, i) => stakeInput(leg, view, fixed[i]));
  // A fixed leg ("✏️ Leg limited") is re-solved for equal profit: the mode's leg may be the fixed one.
  const onLeg = Object.keys(fixed).length > 0 ? undefined : profitLeg(legs, view);
  return onLeg === undefined ? solveStakes(inputs, view.bankroll) : solveProfitOn(inputs, view.bankroll, onLeg);
}
