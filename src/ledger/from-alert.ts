/**
 * A position from an alert, with the stakes and odds the alert shows now for the user's bankroll
 * and rounding (today's stake maths in src/alerts/stakes.ts: an arb's and a middle's split, a
 * valuebet's quarter-Kelly stake, at least one step). Exchange legs get the exchange's usual
 * commission on net winnings (stake-maths §2.2; effective odds follow from it in `makeLeg`).
 * Pure: the bot supplies the id, the time and where the alert is.
 */
import { legOdds, printedProbability } from '../alerts/headline-figures.js';
import { arbStakes, middleOutcomes, valuebetMaths, type CannotCompute } from '../alerts/stakes.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { makeLeg, positionSchema, type LegInput, type Position } from './model.js';

/** Usual commission on net winnings by exchange name (stake-maths §2.2); 0 for a bookmaker. */
export function exchangeCommission(bookmaker: string): number {
  const name = bookmaker.toLowerCase();
  // Betfair's sportsbook is a bookmaker: no commission there.
  if (name.includes('sportsbook')) return 0;
  if (name.includes('betfair')) return 0.05;
  if (name.includes('smarkets') || name.includes('matchbook') || name.includes('betdaq')) return 0.02;
  return 0;
}

/** The legs as the alert shows them now, and the alert's profit % (arb, middle miss) or EV % (valuebet). */
export function alertLegs(item: Opportunity, names: Names, money: { bankroll: number; step: number }): { legs: LegInput[]; profitPct: number | null } | CannotCompute {
  const odds = item.masked ? undefined : legOdds(item);
  if (!odds) return { ok: false, reason: 'no-odds' };
  const leg = (i: number, stake: number): LegInput => {
    const l = item.legs[i]!;
    const bookmaker = names.bookmaker(l.bookmakerId);
    return { outcome: i, bookmaker, market: names.market(l.typeId, l.line), odds: odds[i]!, stake, commission: exchangeCommission(bookmaker) };
  };
  switch (item.kind) {
    case 'arbs': {
      const r = arbStakes(odds, money.bankroll, money.step);
      if (!r.ok) return r;
      return { legs: r.stakes.map((s, i) => leg(i, s)), profitPct: r.profitPct };
    }
    case 'middles': {
      const [a, b] = odds;
      if (odds.length !== 2 || a === undefined || b === undefined) return { ok: false, reason: 'invalid-odds' };
      const r = middleOutcomes([a, b], money.bankroll, money.step);
      if (!r.ok) return r;
      return { legs: r.stakes.map((s, i) => leg(i, s)), profitPct: r.ifMiss.pct };
    }
    case 'valuebets': {
      const first = odds[0];
      if (first === undefined) return { ok: false, reason: 'no-odds' };
      const p = printedProbability(item, first);
      if (typeof p !== 'number') return p;
      const r = valuebetMaths(first, p, null, money.bankroll, money.step);
      if (!r.ok) return r;
      return { legs: [leg(0, r.kellyStake > 0 ? r.kellyStake : money.step)], profitPct: r.evPct };
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

export function positionFromAlert(item: Opportunity, names: Names, money: { bankroll: number; step: number }, at: PlacedAt): Position | CannotCompute {
  const shown = alertLegs(item, names, money);
  if ('ok' in shown) return shown;
  return positionSchema.parse({
    id: at.id,
    kind: item.kind,
    service: item.service,
    itemId: item.id.slice(0, 64),
    eventId: item.event.id.slice(0, 64),
    sport: names.sport(item.event.sportId).slice(0, 64),
    league: item.event.league.slice(0, 120),
    event: `${item.event.team1} – ${item.event.team2}`.slice(0, 200),
    eventStart: item.event.startsAt ?? null,
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
