/**
 * What the user does to a position, as pure functions of it: settle with one result (an arb's
 * winning outcome, a single's won / half / void / lost, a middle's hit or one leg), refuse a leg
 * (a hedge to place opens for its outcome, priced at the refused odds), take a leg or hedge at the
 * odds and stake actually got, give the hedge up. Each returns a new position (or undefined when
 * the action does not fit it), never changes the one given.
 */
import { hedgeFor, type Hedge } from './settle.js';
import { isSettled, makeLeg, MAX_MONEY, MAX_ODDS, type LedgerLeg, type LegResult, type Position } from './model.js';

export type SettleResult = LegResult | 'hit' | { outcome: number };

const SINGLE: readonly string[] = ['won', 'half_won', 'void', 'half_lost', 'lost'];

/** The position with every placed leg given its result and `settledAt`; open hedges dropped. */
export function settle(p: Position, result: SettleResult, now: number): Position | undefined {
  if (isSettled(p)) return undefined;
  const placed = p.legs.filter((l) => l.status === 'placed');
  if (placed.length === 0) return undefined;
  let resultOf: (leg: LedgerLeg) => LegResult;
  if (typeof result === 'object') {
    if (p.kind === 'valuebets' || !p.legs.some((l) => l.outcome === result.outcome)) return undefined;
    resultOf = (leg) => (leg.outcome === result.outcome ? 'won' : 'lost');
  } else if (result === 'hit') {
    if (p.kind !== 'middles') return undefined;
    resultOf = () => 'won';
  } else if (result === 'void') {
    resultOf = () => 'void';
  } else if (SINGLE.includes(result)) {
    if (p.kind !== 'valuebets') return undefined;
    resultOf = () => result;
  } else {
    return undefined;
  }
  const legs = p.legs.filter((l) => l.status !== 'open').map((l) => (l.status === 'placed' ? { ...l, result: resultOf(l) } : l));
  return { ...p, legs, settledAt: now };
}

/** The leg refused; for an arb or middle with legs still placed, a hedge opens for its outcome at its odds. */
export function refuse(p: Position, index: number): { position: Position; hedge: Hedge | undefined } | undefined {
  const leg = p.legs[index];
  if (!leg || leg.status === 'refused' || leg.result !== null || isSettled(p)) return undefined;
  const legs = p.legs.map((l, i) => (i === index ? { ...l, status: 'refused' as const } : l));
  const without: Position = { ...p, legs };
  if (p.kind === 'valuebets' || leg.status === 'open') return { position: without, hedge: undefined };
  const hedge = hedgeFor(without, leg.outcome, leg.effectiveOdds);
  if (!hedge || !legs.some((l) => l.status === 'placed')) return { position: without, hedge: undefined };
  // A lay hedge is typed as its lay stake: enough of it to put the hedge's liability at risk.
  const stake = leg.lay ? Math.ceil(Number(((hedge.stake * 100) / (leg.odds - 1)).toFixed(6))) / 100 : hedge.stake;
  const open = stake > 0 ? [makeLeg({ outcome: leg.outcome, bookmaker: leg.bookmaker, market: leg.market, odds: leg.odds, stake, commission: leg.commission, lay: leg.lay, status: 'open' })] : [];
  return { position: { ...without, legs: [...legs, ...open] }, hedge };
}

/** The leg (or open hedge) at the odds and stake actually taken, placed. */
export function takeLeg(p: Position, index: number, taken: { odds: number; stake: number; bookmaker?: string }): Position | undefined {
  const leg = p.legs[index];
  if (!leg || leg.result !== null || isSettled(p)) return undefined;
  const next = legAt(leg, taken, taken.bookmaker === undefined ? leg.commission : 0, 'placed');
  return { ...p, legs: p.legs.map((l, i) => (i === index ? next : l)) };
}

/** `leg` at other odds and stake (at another bookmaker too, with its `commission`): its outcome, market and side kept. */
export function legAt(leg: LedgerLeg, taken: { odds: number; stake: number; bookmaker?: string }, commission: number, status: LedgerLeg['status']): LedgerLeg {
  return makeLeg({ outcome: leg.outcome, bookmaker: taken.bookmaker ?? leg.bookmaker, market: leg.market, odds: taken.odds, stake: taken.stake, commission, lay: leg.lay, status });
}

/** The open hedges dropped: the position stays with what was placed. */
export function giveUp(p: Position): Position | undefined {
  if (!p.legs.some((l) => l.status === 'open')) return undefined;
  return { ...p, legs: p.legs.filter((l) => l.status !== 'open') };
}

/**
 * "2.05 100", "2,05 100", "2.05 / 100 Bet365", "2.05 x 100": the odds, the stake, and optionally
 * a bookmaker name (for a hedge placed elsewhere). Undefined for anything else, out-of-range values included.
 */
export function parseTaken(text: string): { odds: number; stake: number; bookmaker?: string } | undefined {
  const m = /^\s*(\d{1,4}(?:[.,]\d{1,4})?)\s*(?:[x×*@/;]\s*|\s+)(\d{1,9}(?:[.,]\d{1,2})?)(?:\s+(\S.{0,63}?))?\s*$/u.exec(text);
  if (!m) return undefined;
  const odds = Number(m[1]!.replace(',', '.'));
  const stake = Number(m[2]!.replace(',', '.'));
  if (!(odds > 1 && odds <= MAX_ODDS) || !(stake > 0 && stake <= MAX_MONEY)) return undefined;
  const bookmaker = m[3]?.replace(/[<>&]/g, '').trim();
  return bookmaker ? { odds, stake, bookmaker } : { odds, stake };
}
