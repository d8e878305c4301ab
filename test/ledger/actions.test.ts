/**
 * What a user does to a position, as pure functions: typed odds and stakes (as people type them;
 * absurd values refused), results that fit the position's kind only, a refusal opening a hedge,
 * giving the hedge up, nothing settled twice.
 */
import { describe, expect, it } from 'vitest';
import { giveUp, parseTaken, refuse, settle, takeLeg } from '../../src/ledger/actions.js';
import { makeLeg, positionSchema, type Position } from '../../src/ledger/model.js';
import { positionPnl } from '../../src/ledger/settle.js';

const arb = (): Position =>
  positionSchema.parse({
    id: '1', kind: 'arbs', service: 'arbs_prematch', itemId: 'i', eventId: 'e', placedAt: 0,
    legs: [makeLeg({ outcome: 0, bookmaker: 'A', odds: 2.1, stake: 495 }), makeLeg({ outcome: 1, bookmaker: 'B', odds: 2.05, stake: 505 })],
  });
const single = (): Position => ({ ...arb(), kind: 'valuebets', legs: [makeLeg({ outcome: 0, bookmaker: 'A', odds: 2.3, stake: 50 })] });

describe('typed odds and stake', () => {
  it('reads the ways people type them', () => {
    expect(parseTaken('2.05 100')).toEqual({ odds: 2.05, stake: 100 });
    expect(parseTaken(' 2,05   100,50 ')).toEqual({ odds: 2.05, stake: 100.5 });
    expect(parseTaken('2.05 x 100')).toEqual({ odds: 2.05, stake: 100 });
    expect(parseTaken('2.05@100 Pinnacle')).toEqual({ odds: 2.05, stake: 100, bookmaker: 'Pinnacle' });
    expect(parseTaken('2.05 100 <b>Evil</b>')).toEqual({ odds: 2.05, stake: 100, bookmaker: 'bEvil/b' });
  });
  it('refuses absurd or malformed values', () => {
    for (const bad of ['', '2.05', '1 100', '1.00 100', '0.5 100', '1001 100', '2.05 0', '2.05 -5', '2.05 999999999', '2e3 100', 'NaN 100', '2.05 100 ' + 'x'.repeat(80), 'Infinity 1'])
      expect(parseTaken(bad), bad).toBeUndefined();
  });
});

describe('settling', () => {
  it('takes only results that fit the kind, and never twice', () => {
    expect(settle(arb(), 'won', 1)).toBeUndefined();
    expect(settle(arb(), 'hit', 1)).toBeUndefined();
    expect(settle(arb(), { outcome: 5 }, 1)).toBeUndefined();
    expect(settle(single(), { outcome: 0 }, 1)).toBeUndefined();
    const done = settle(arb(), { outcome: 0 }, 1)!;
    expect(positionPnl(done)).toBeCloseTo(39.5, 6);
    expect(settle(done, 'void', 2)).toBeUndefined();
    expect(positionPnl(settle(single(), 'half_won', 1)!)).toBeCloseTo(32.5, 6);
    expect(positionPnl(settle(arb(), 'void', 1)!)).toBe(0);
  });

  it('a middle: hit pays both legs, a miss one of them', () => {
    const middle: Position = { ...arb(), kind: 'middles', legs: [makeLeg({ outcome: 0, bookmaker: 'A', odds: 2.1, stake: 495 }), makeLeg({ outcome: 1, bookmaker: 'B', odds: 2.05, stake: 505 })] };
    expect(positionPnl(settle(middle, 'hit', 1)!)).toBeCloseTo(544.5 + 530.25, 6);
    expect(positionPnl(settle(middle, { outcome: 1 }, 1)!)).toBeCloseTo(35.25, 6);
    expect(settle(middle, 'won', 1)).toBeUndefined();
  });

  it('a refused leg opens a hedge; settling drops an open hedge; giving up keeps what was placed', () => {
    const r = refuse(arb(), 1)!;
    expect(r.position.legs.map((l) => l.status)).toEqual(['placed', 'refused', 'open']);
    expect(refuse(r.position, 1)).toBeUndefined();
    expect(giveUp(r.position)!.legs.map((l) => l.status)).toEqual(['placed', 'refused']);
    expect(giveUp(arb())).toBeUndefined();
    const settled = settle(r.position, { outcome: 1 }, 1)!;
    expect(settled.legs.map((l) => l.status)).toEqual(['placed', 'refused']);
    expect(positionPnl(settled)).toBe(-495);
    const hedged = takeLeg(r.position, 2, { odds: 1.98, stake: 525, bookmaker: 'C' })!;
    expect(positionPnl(settle(hedged, { outcome: 1 }, 1)!)).toBeCloseTo(19.5, 6);
    // A refused valuebet leaves nothing placed and no hedge.
    expect(refuse(single(), 0)!.hedge).toBeUndefined();
  });
});
