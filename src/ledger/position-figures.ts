/**
 * What the figures of /pnl, the chart and the Mini App read of one position (its P&L per leg,
 * money at risk, worst case, settle day), worked out once per stored position. The stores hold
 * positions frozen and replace them on every change (never edit one in place), so a frozen
 * position's figures can be kept by the object itself: a 20,000-position book is summed again
 * without re-running the settle maths of each (that was ~100 ms a call). A position that is not
 * frozen (made by a caller, not read from a store) is worked out afresh every time.
 */
import { isSettled, placedLegs, type Position } from './model.js';
import { legPnls, positionRisk, worstCase } from './settle.js';

export interface PositionFigures {
  settled: boolean;
  /** Unsettled with something placed or a hedge open (what /open lists). */
  open: boolean;
  /** Per leg, as `legPnls`. */
  perLeg: readonly (number | undefined)[];
  /** Sum of `perLeg` (0 while unsettled). */
  pnl: number;
  risk: number;
  /** Arbs' and middles' worst case as placed (`worstCase`). */
  worst: number | undefined;
  /** The UTC day it was settled on (YYYY-MM-DD); null while unsettled. */
  day: string | null;
}

const kept = new WeakMap<Position, PositionFigures>();

function workOut(p: Position): PositionFigures {
  const settled = isSettled(p);
  const perLeg = legPnls(p);
  return {
    settled,
    open: !settled && (placedLegs(p).length > 0 || p.legs.some((l) => l.status === 'open')),
    perLeg,
    pnl: perLeg.reduce<number>((sum, x) => sum + (x ?? 0), 0),
    risk: positionRisk(p),
    worst: settled ? worstCase(p) : undefined,
    day: settled && p.settledAt !== null ? new Date(p.settledAt).toISOString().slice(0, 10) : null,
  };
}

/** Frozen down to its legs: nothing can change it after its figures are kept. */
export const immutable = (p: Position): boolean => Object.isFrozen(p) && Object.isFrozen(p.legs) && p.legs.every((l) => Object.isFrozen(l));

export function positionFigures(p: Position): PositionFigures {
  const hit = kept.get(p);
  if (hit) return hit;
  const f = workOut(p);
  if (immutable(p)) kept.set(p, f);
  return f;
}
