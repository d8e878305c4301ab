/**
 * Each position's figures are kept by the position only while nothing can change it: a stored
 * (frozen) position's are worked out once; a position a caller made and then changed is worked out
 * again, so /pnl never shows the figures of what it was.
 */
import { describe, expect, it } from 'vitest';
import { positionFigures } from '../../src/ledger/position-figures.js';
import { checkedPosition } from '../../src/store/ledger-books.js';
import { workedBook } from './worked.js';

describe('position figures', () => {
  const settledArb = () => structuredClone(workedBook().positions.find((p) => p.kind === 'arbs' && p.settledAt !== null)!);

  it('a stored (frozen) position’s figures are kept', () => {
    const p = checkedPosition(settledArb());
    expect(positionFigures(p)).toBe(positionFigures(p));
  });

  it('a position changed in place after it was summed is worked out again', () => {
    const p = settledArb();
    const before = positionFigures(p);
    const leg = p.legs.find((l) => l.result === 'won')!;
    leg.result = 'lost';
    const after = positionFigures(p);
    expect(after).not.toBe(before);
    expect(after.pnl).toBeLessThan(before.pnl);
  });
});
