/**
 * Whether an arb is one for this user: some stakes on their steps, minimums and caps at each
 * bookmaker (and after their commissions) give a guaranteed profit. The alert's own stake solver
 * answers it (alert-stakes.ts), so the headline, the notifier's "send it or not" and the maths
 * block can never disagree: an item the solver refuses with 'no-guaranteed-profit' is never pushed
 * as a new alert, and wherever it is still shown (/item, /event, inline, an alert edited after its
 * odds moved) its title says "Not an arb for you", never "Arb".
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { alertStakes, type StakeView } from './alert-stakes.js';

/**
 * True for an arb whose odds are shown and on which no stakes within the user's settings give a
 * guaranteed profit (a negative or zero profit after commission included). Hidden odds, other
 * kinds and refusals for other reasons (no bankroll set …) are not this: the alert says those itself.
 */
export function notAnArbForYou(item: Opportunity, names: Pick<Names, 'oddsType' | 'bookmaker'>, view: StakeView): boolean {
  if (item.kind !== 'arbs' || item.masked) return false;
  const plan = alertStakes(item, names, view);
  return plan !== undefined && !plan.ok && plan.reason === 'no-guaranteed-profit';
}
