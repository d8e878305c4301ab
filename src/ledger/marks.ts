/**
 * What other parts need to know of an unsettled position without reading the ledger: the alert's
 * "✅ Placed 495 / 505 · worst case +35.25" line (the notifier keeps it on later edits), the
 * legs whose closing odds the scheduler records, and when the event starts (the settle
 * digest). Kept per user by `${service}:${itemId}`, in memory in every store.
 */
import { isEmpty, isSettled, placedLegs, type Position } from './model.js';
import { worstCase } from './settle.js';

export interface PlacedMark {
  positionId: string;
  kind: Position['kind'];
  /** Stakes of the placed legs, in leg order (lay: the lay stake). */
  stakes: number[];
  /** Worst case of an arb or middle as placed; null for a valuebet. */
  worst: number | null;
  /** Legs refused and hedges still open. */
  refused: number;
  open: number;
  /** The placed valuebet leg whose closing line is recorded; null for other kinds. */
  watchLeg: number | null;
  /**
   * Every placed leg the alert priced (leg index = the item's outcome), whose closing line is
   * recorded: arbs' and middles' legs too. A hedge placed later is not the item's leg and has none.
   */
  watchLegs?: number[];
  eventStart: number | null;
  placedAt: number;
}

export const markKey = (service: string, itemId: string): string => `${service}:${itemId}`;

/** The mark of an unsettled position; undefined once it is settled or nothing of it was placed. */
export function placedMark(p: Position): PlacedMark | undefined {
  if (isSettled(p) || isEmpty(p)) return undefined;
  const worst = worstCase(p);
  const watch = p.kind === 'valuebets' ? p.legs.findIndex((l) => l.status === 'placed') : -1;
  return {
    positionId: p.id,
    kind: p.kind,
    stakes: placedLegs(p).map((l) => l.stake),
    worst: worst === undefined || !Number.isFinite(worst) ? null : Math.round(worst * 100) / 100,
    refused: p.legs.filter((l) => l.status === 'refused').length,
    open: p.legs.filter((l) => l.status === 'open').length,
    watchLeg: watch >= 0 ? watch : null,
    watchLegs: p.legs.flatMap((l, i) => (l.status === 'placed' && l.outcome === i ? [i] : [])),
    eventStart: p.eventStart,
    placedAt: p.placedAt,
  };
}
