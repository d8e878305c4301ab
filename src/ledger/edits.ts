/**
 * The ledger forgives mistakes: a position's results set leg by leg (half results and dead heats
 * included), a settled position reopened, a leg's odds, stake or bookmaker corrected, and the last
 * of these changes undone. Pure functions of a position, like `actions.ts`.
 *
 * Undo keeps the legs and settle time from before the change in the position itself (`undo`), so
 * it survives a restart and works in every process of a cluster. Each change is numbered; an
 * ↩️ Undo button carries that number, so an old button cannot undo a later change, and a change is
 * undone once. The window is UNDO_WINDOW_MS on the injected clock; later, ✏️ Edit or ↩️ Reopen
 * do the same by hand.
 */
import { legAt } from './actions.js';
import { legResultChoices } from './markets.js';
import { isSettled, type LedgerLeg, type LegResult, type Position } from './model.js';

/** How long a change can be undone with its button. */
export const UNDO_WINDOW_MS = 15 * 60_000;

/** One leg's result; `deadHeat` is the share of the stake paid at the full odds (dead_heat only). */
export interface LegOutcome {
  result: LegResult;
  deadHeat?: number;
}

/** `after`, remembering `before` for its undo; the change's number is one more than the last. */
export function withUndo(before: Position, after: Position, now: number): Position {
  return { ...after, undo: { n: (before.undo?.n ?? 0) + 1, at: now, legs: before.legs.map((l) => ({ ...l })), settledAt: before.settledAt } };
}

/**
 * Results for the legs given (index → outcome; placed legs only). Once every placed leg has one,
 * the position is settled at `now` and an open hedge is dropped (the event is over: a hedge not
 * placed by then never will be). Undefined when nothing fits (no such placed leg, a bad share).
 */
export function applyResults(p: Position, outcomes: ReadonlyMap<number, LegOutcome>, now: number): Position | undefined {
  if (outcomes.size === 0) return undefined;
  for (const [i, o] of outcomes) {
    if (p.legs[i]?.status !== 'placed') return undefined;
    if (o.result === 'dead_heat' && !(o.deadHeat !== undefined && o.deadHeat > 0 && o.deadHeat < 1)) return undefined;
  }
  let legs: LedgerLeg[] = p.legs.map((l, i) => {
    const o = outcomes.get(i);
    return o ? { ...l, result: o.result, deadHeat: o.result === 'dead_heat' ? (o.deadHeat ?? null) : null } : l;
  });
  const allResulted = legs.every((l) => l.status !== 'placed' || l.result !== null);
  if (allResulted) legs = legs.filter((l) => l.status !== 'open');
  const next: Position = { ...p, legs };
  // A corrected result keeps the day it was settled on (its period in /pnl and /export).
  const settledBefore = isSettled(p) && p.settledAt !== null ? p.settledAt : now;
  return { ...next, settledAt: isSettled(next) ? settledBefore : null };
}

/**
 * An unsettled position settled leg by leg in one go (the chat's per-leg settle buttons, the Mini
 * App's settle): `results` in leg order, null exactly for the legs not placed, each a result its
 * market allows. Undefined when they do not fit.
 */
export function settleLegs(p: Position, results: readonly (LegOutcome | null)[], now: number): Position | undefined {
  if (isSettled(p) || results.length !== p.legs.length) return undefined;
  const outcomes = new Map<number, LegOutcome>();
  for (const [i, o] of results.entries()) {
    const leg = p.legs[i]!;
    if ((o === null) !== (leg.status !== 'placed')) return undefined;
    if (o === null) continue;
    if (!legResultChoices(leg).includes(o.result)) return undefined;
    outcomes.set(i, o);
  }
  return applyResults(p, outcomes, now);
}

/** Every result taken back: the position is open again (undefined when no leg had one). */
export function reopen(p: Position): Position | undefined {
  if (!p.legs.some((l) => l.result !== null)) return undefined;
  return { ...p, settledAt: null, legs: p.legs.map((l) => ({ ...l, result: null, deadHeat: null })) };
}

/** A leg's odds, stake or bookmaker corrected; its result stays (the P&L follows). Refused legs are not edited. */
export function editLegValues(p: Position, index: number, taken: { odds: number; stake: number; bookmaker?: string; commission?: number }): Position | undefined {
  const leg = p.legs[index];
  if (!leg || leg.status === 'refused') return undefined;
  const changedBook = taken.bookmaker !== undefined && taken.bookmaker !== leg.bookmaker;
  const next = legAt(leg, taken, changedBook ? (taken.commission ?? 0) : leg.commission, leg.status);
  return { ...p, legs: p.legs.map((l, i) => (i === index ? { ...next, result: leg.result, deadHeat: leg.deadHeat } : l)) };
}

export type UndoOutcome = { ok: true; position: Position } | { ok: false; reason: 'none' | 'later-change' | 'done' | 'expired' };

/** Change number `n` undone: the legs and settle time from before it, if it is still the last change and inside the window. */
export function undoChange(p: Position, n: number, now: number): UndoOutcome {
  const u = p.undo;
  if (!u) return { ok: false, reason: 'none' };
  if (u.n !== n) return { ok: false, reason: u.n > n ? 'later-change' : 'none' };
  if (u.legs.length === 0) return { ok: false, reason: 'done' };
  if (now - u.at > UNDO_WINDOW_MS) return { ok: false, reason: 'expired' };
  return { ok: true, position: { ...p, legs: u.legs, settledAt: u.settledAt, undo: { ...u, legs: [], settledAt: null } } };
}
