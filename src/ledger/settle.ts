/**
 * Settlement maths: what each leg and each position made. Commission is charged as exchanges
 * charge it, on the net winnings of one market (Betfair's "net winnings × market base rate",
 * Smarkets' net settlement): the legs of a position at one exchange on one market are netted
 * first, and commission is taken from a positive net only. Each leg's share of that commission
 * goes to the legs that won, in proportion, so per-leg figures (CSV, by bookmaker) add up to the
 * position's P&L. Refused and open legs count for nothing.
 */
import { placedLegs, type LedgerLeg, type LegResult, type Position } from './model.js';

/** Share of a leg's win or loss a result pays: won 1, half-won ½, void 0, half-lost −½, lost −1 (a dead heat: see legGross). */
export const RESULT_FACTOR: Record<LegResult, number> = { won: 1, half_won: 0.5, void: 0, half_lost: -0.5, lost: -1, dead_heat: 0 };

/** A leg's result before commission (undefined while it has none or does not count). */
export function legGross(leg: LedgerLeg): number | undefined {
  if (leg.status !== 'placed' || leg.result === null) return undefined;
  if (leg.result === 'dead_heat') {
    // The backer is paid stake × share × odds and loses the stake: stake × (share × odds − 1); a lay is the other side of it.
    const back = leg.stake * ((leg.deadHeat ?? 1) * leg.odds - 1);
    return leg.lay ? -back : back;
  }
  const f = RESULT_FACTOR[leg.result];
  if (leg.lay) return f > 0 ? f * leg.stake : f * leg.liability;
  return f > 0 ? f * leg.stake * (leg.odds - 1) : f * leg.stake;
}

/** Per leg (same order as `p.legs`): P&L after commission, or undefined for a leg without a result or that does not count. */
export function legPnls(p: Position): (number | undefined)[] {
  const gross = p.legs.map(legGross);
  const out = [...gross];
  const markets = new Map<string, number[]>();
  p.legs.forEach((leg, i) => {
    if (gross[i] === undefined || leg.commission <= 0) return;
    const key = `${leg.bookmaker}\u0000${leg.market}`;
    markets.set(key, [...(markets.get(key) ?? []), i]);
  });
  for (const idx of markets.values()) {
    const net = idx.reduce((s, i) => s + (gross[i] ?? 0), 0);
    if (net <= 0) continue;
    const rate = Math.max(...idx.map((i) => p.legs[i]?.commission ?? 0));
    const wins = idx.filter((i) => (gross[i] ?? 0) > 0);
    const won = wins.reduce((s, i) => s + (gross[i] ?? 0), 0);
    for (const i of wins) out[i] = (gross[i] ?? 0) - (rate * net * (gross[i] ?? 0)) / won;
  }
  return out;
}

/** The position's P&L once settled (sum of its legs'); undefined while any placed leg has no result. */
export function positionPnl(p: Position): number | undefined {
  const placed = placedLegs(p);
  if (placed.length === 0 || placed.some((l) => l.result === null)) return undefined;
  return legPnls(p).reduce<number>((s, x) => s + (x ?? 0), 0);
}

/** Money at risk of the placed legs (back: stake; lay: liability). */
export const positionRisk = (p: Position): number => placedLegs(p).reduce((s, l) => s + l.liability, 0);

const toCents = (x: number): number => Math.round(Number((x * 100).toFixed(6)));

/**
 * What a placed leg pays back if it wins, settled to the cent as the alert printed it: a back leg
 * stake × effective odds; a lay leg its liability plus the lay stake less commission.
 */
export function legReturn(l: LedgerLeg): number {
  return (l.lay ? toCents(l.liability) + toCents(l.stake * (1 - l.commission)) : toCents(l.stake * l.effectiveOdds)) / 100;
}

/** What each covered outcome would pay back (placed legs only): outcome → Σ of its legs' returns. */
function payouts(p: Position, outcomes: number): number[] {
  const pay = new Array<number>(outcomes).fill(0);
  for (const l of placedLegs(p)) pay[l.outcome] = (pay[l.outcome] ?? 0) + legReturn(l);
  return pay;
}

const outcomeCount = (p: Position): number => Math.max(...p.legs.map((l) => l.outcome)) + 1;

/**
 * The worst case of an arb or middle as placed: min over the outcomes of (payout − money at risk);
 * a middle's hit pays both legs, so its worst case is the miss. Undefined for a valuebet.
 */
export function worstCase(p: Position): number | undefined {
  if (p.kind === 'valuebets') return undefined;
  const risk = positionRisk(p);
  return Math.min(...payouts(p, outcomeCount(p)).map((x) => x - risk));
}

/** What a middle makes if it hits (every placed leg wins). */
export function middleHit(p: Position): number {
  const risk = positionRisk(p);
  return placedLegs(p).reduce((s, l) => s + legReturn(l), 0) - risk;
}

/** After a refused leg: the odds the missing outcome must get to break even, and the hedge for given odds. */
export interface Hedge {
  /** The outcome no placed leg covers. */
  outcome: number;
  /** What the placed legs return at worst if one of their outcomes wins. */
  cover: number;
  /** Money at risk on the placed legs. */
  spent: number;
  /** 1 + spent / (cover − spent); Infinity when the placed legs cannot break even whatever the hedge. */
  breakEven: number;
  /** Money at risk at `atOdds` (the least cent amount) that makes the missing outcome pay `cover`, and the worst case with it: cover − spent − stake. */
  stake: number;
  atOdds: number;
  worst: number;
}

/**
 * The least money (cents) at odds `effective` whose return, settled to the cent, reaches
 * `coverCents`: a hedge's stake. Rounding the ideal cover/odds to the nearest cent could leave the
 * hedged outcome a cent short, and rounding it up can cost a cent more than needed.
 */
export function leastStakeCents(coverCents: number, effective: number): number {
  let s = Math.max(0, Math.floor(coverCents / effective) - 1);
  while (Math.round(Number((s * effective).toFixed(6))) < coverCents) s += 1;
  return s;
}

/**
 * The hedge of a refused leg (stake-maths §1.5): with placed legs paying at least `m = cover` on
 * their outcomes and `spent` at risk, a hedge at odds o needs stake m/o (the least cent amount that
 * returns m); break-even odds 1 + spent/(m − spent). `atOdds` are the hedge's effective odds (e.g.
 * the refused leg's as shown). The worst case is then m − spent − stake, to the cent.
 */
export function hedgeFor(p: Position, outcome: number, atOdds: number): Hedge | undefined {
  const n = outcomeCount(p);
  const pay = payouts(p, n);
  const others = pay.filter((_, i) => i !== outcome);
  if (others.length === 0 || !(atOdds > 1)) return undefined;
  // What the placed legs pay is settled to the cent.
  const coverCents = toCents(Math.min(...others));
  const cover = coverCents / 100;
  const spent = positionRisk(p);
  const breakEven = cover > spent ? 1 + spent / (cover - spent) : Number.POSITIVE_INFINITY;
  const stakeCents = leastStakeCents(coverCents, atOdds);
  return { outcome, cover, spent, breakEven, stake: stakeCents / 100, atOdds, worst: (coverCents - Math.round(spent * 100) - stakeCents) / 100 };
}
