/**
 * The print of one message: the legs and stakes an alert or card shows the user now, as the
 * ledger will record them from its ✅ Placed (`src/ledger/prints.ts`). The stakes come from the
 * same call as the message's text (`alertLegs`), so what is printed and what is recorded cannot
 * differ; an arb that is "not an arb for you" printed odds but no stakes, and its print says so
 * (stake 0), so the bot asks for the stakes actually placed. Hidden odds print nothing to record.
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { printId, type AlertPrint } from '../ledger/prints.js';
import type { StakeView } from './alert-stakes.js';
import { pricedLegs } from './headline-figures.js';
import { alertLegs, itemFields } from './position-from-alert.js';

/** The print of `item` as shown to `userId` with `view`, sent at `now`; undefined when its odds are hidden. */
export function printOf(userId: number, item: Opportunity, names: Names, view: StakeView, now: number): AlertPrint | undefined {
  const priced = item.masked ? undefined : pricedLegs(item, { names, books: view.books });
  if (!priced || priced.length === 0 || priced.length > 16) return undefined;
  const shown = alertLegs(item, names, view);
  const stakes = 'ok' in shown ? undefined : shown.legs.map((l) => l.stake);
  const profitPct = 'ok' in shown || shown.profitPct === null || !Number.isFinite(shown.profitPct) ? null : shown.profitPct;
  const content: Omit<AlertPrint, 'id' | 'sentAt'> = {
    ...itemFields(item, names),
    profitPct,
    legs: priced.map((p, i) => {
      const leg = item.legs[i]!;
      return {
        outcome: i,
        bookmakerId: p.bookmakerId ?? null,
        bookmaker: p.bookmaker.slice(0, 64),
        market: names.market(leg.typeId, leg.line).slice(0, 120),
        odds: p.odds,
        stake: stakes?.[i] ?? 0,
        commission: Math.min(p.commission, 0.5),
        lay: p.lay,
      };
    }),
  };
  return { id: printId(userId, content), sentAt: now, ...content };
}
