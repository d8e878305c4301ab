/**
 * A position from an alert, with the stakes and odds the alert shows now: the same maths the alert
 * printed (src/alerts/alert-stakes.ts for an arb — the user's staking mode, their caps, minimums
 * and steps per bookmaker, commission and lay legs; a middle's split and a valuebet's quarter-Kelly
 * stake on the effective odds). Each leg keeps the odds as the bookmaker or exchange shows them,
 * its lay flag and the user's commission there; `makeLeg` derives the effective odds and liability.
 * Pure: the bot supplies the id, the time and where the alert is.
 */
import { alertStakes, type StakeView } from './alert-stakes.js';
import { legOdds, printedProbability, pricedLegs } from './headline-figures.js';
import type { PricedLeg } from './leg-pricing.js';
import { middleOutcomes, valuebetMaths, type CannotCompute } from './stakes.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { makeLeg, positionSchema, type LegInput, type Position } from '../ledger/model.js';

/** The legs as the alert shows them now, and the alert's profit % (arb after commission, middle miss) or EV % (valuebet). */
export function alertLegs(item: Opportunity, names: Names, view: StakeView): { legs: LegInput[]; profitPct: number | null } | CannotCompute {
  const priced = item.masked ? undefined : pricedLegs(item, { names, books: view.books });
  if (!priced) return { ok: false, reason: 'no-odds' };
  const leg = (i: number, stake: number): LegInput => {
    const l = item.legs[i]!;
    const p = priced[i] as PricedLeg;
    return { outcome: i, bookmaker: p.bookmaker, market: names.market(l.typeId, l.line), odds: p.odds, stake, commission: p.commission, lay: p.lay };
  };
  const effective = priced.map((p) => p.effectiveOdds);
  switch (item.kind) {
    case 'arbs': {
      const r = alertStakes(item, names, view);
      if (!r) return { ok: false, reason: 'no-odds' };
      // No guaranteed profit on the grid, a bankroll too small: the alert printed no stakes to place.
      if (!r.ok) return { ok: false, reason: 'invalid-odds' };
      return { legs: r.legs.map((l, i) => leg(i, l.stake)), profitPct: r.profitPct };
    }
    case 'middles': {
      const [a, b] = effective;
      if (effective.length !== 2 || a === undefined || b === undefined) return { ok: false, reason: 'invalid-odds' };
      const r = middleOutcomes([a, b], view.bankroll, view.roundingStep);
      if (!r.ok) return r;
      return { legs: r.stakes.map((s, i) => leg(i, s)), profitPct: r.ifMiss.pct };
    }
    case 'valuebets': {
      const first = priced[0];
      if (first === undefined) return { ok: false, reason: 'no-odds' };
      const p = printedProbability(item, first.odds);
      if (typeof p !== 'number') return p;
      const r = valuebetMaths(first.effectiveOdds, p, null, view.bankroll, view.roundingStep);
      if (!r.ok) return r;
      return { legs: [leg(0, r.kellyStake > 0 ? r.kellyStake : view.roundingStep)], profitPct: r.evPct };
    }
  }
}

/** Where and when a position is recorded. */
export interface PlacedAt {
  id: string;
  now: number;
  chatId: number | null;
  messageId: number | null;
  currency?: string;
}

/** What a position (and a print) says of the item and its event, within the ledger's lengths. */
export function itemFields(item: Opportunity, names: Names) {
  return {
    kind: item.kind,
    service: item.service,
    itemId: item.id.slice(0, 64),
    eventId: item.event.id.slice(0, 64),
    sport: names.sport(item.event.sportId).slice(0, 64),
    league: item.event.league.slice(0, 120),
    event: `${item.event.team1} – ${item.event.team2}`.slice(0, 200),
    eventStart: item.event.startsAt ?? null,
  };
}

export function positionFromAlert(item: Opportunity, names: Names, view: StakeView, at: PlacedAt): Position | CannotCompute {
  const shown = alertLegs(item, names, view);
  if ('ok' in shown) return shown;
  return positionSchema.parse({
    id: at.id,
    ...itemFields(item, names),
    placedAt: at.now,
    currency: (at.currency ?? '').slice(0, 8),
    alertProfitPct: shown.profitPct !== null && Number.isFinite(shown.profitPct) ? shown.profitPct : null,
    chatId: at.chatId,
    messageId: at.messageId,
    legs: shown.legs.map((l) => makeLeg(l)),
  });
}

/** The valuebet's fair odds as the service gives them now (its probability, else from the overvalue), for the closing line. */
export function serviceFairOdds(item: Opportunity): number | null {
  const odds = legOdds(item)?.[0];
  if (odds === undefined) return null;
  const p = printedProbability(item, odds);
  return typeof p === 'number' && p > 0 && 1 / p > 1 ? 1 / p : null;
}
