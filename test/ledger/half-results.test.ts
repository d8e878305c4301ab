/**
 * Half results, dead heats and what a market allows, against P&L computed by hand (the worked
 * examples of docs/maths.md, "Settling: half results and dead heats"): quarter-line singles (back
 * and lay, with commission), a quarter-line arb whose legs split, a quarter-line middle's hit,
 * half-hit and misses, dead heats (back and lay, with commission); and the results each market
 * offers (a whole line no halves, a fixed market no halves, the user's own words a dead heat too).
 */
import { describe, expect, it } from 'vitest';
import { applyResults, type LegOutcome } from '../../src/ledger/edits.js';
import { isQuarterLine, legResultChoices, lineCombos, lineMarket } from '../../src/ledger/markets.js';
import { makeLeg, positionSchema, type LegInput, type Position } from '../../src/ledger/model.js';
import { legPnls, positionPnl } from '../../src/ledger/settle.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');

function position(kind: Position['kind'], legs: Omit<LegInput, 'outcome'>[]): Position {
  return positionSchema.parse({
    id: '1',
    kind,
    service: 'manual',
    itemId: 'manual-1',
    eventId: '',
    placedAt: NOW - 3_600_000,
    legs: legs.map((l, i) => makeLeg({ outcome: i, ...l })),
  });
}

/** The position settled with one outcome per leg (in order). */
function settled(p: Position, ...outcomes: LegOutcome[]): Position {
  const next = applyResults(p, new Map(outcomes.map((o, i) => [i, o])), NOW);
  if (!next) throw new Error('not applicable');
  return next;
}

const cents = (x: number | undefined) => Math.round((x ?? NaN) * 100) / 100;
const won = { result: 'won' } as const;
const halfWon = { result: 'half_won' } as const;
const halfLost = { result: 'half_lost' } as const;
const lost = { result: 'lost' } as const;

describe('quarter lines: half won and half lost, to the cent after commission', () => {
  it('a back at a bookmaker: AH1(-0.25) 1.95 × 100 half won +47.50, half lost −50.00', () => {
    const p = position('valuebets', [{ bookmaker: 'Pinnacle', market: 'AH1(-0.25)', odds: 1.95, stake: 100 }]);
    // ½ × 100 × (1.95 − 1) = 47.50; ½ × 100 = 50.
    expect(cents(positionPnl(settled(p, halfWon)))).toBe(47.5);
    expect(cents(positionPnl(settled(p, halfLost)))).toBe(-50);
  });

  it('a back at an exchange: TO(2.75) 2.10 × 100, 5 % commission, half won +52.25', () => {
    const p = position('valuebets', [{ bookmaker: 'Betfair Exchange', market: 'TO(2.75)', odds: 2.1, stake: 100, commission: 0.05 }]);
    // ½ × 100 × 1.10 = 55.00 gross; 5 % of it is 2.75: 52.25.
    expect(cents(positionPnl(settled(p, halfWon)))).toBe(52.25);
    expect(cents(positionPnl(settled(p, halfLost)))).toBe(-50);
  });

  it('a lay: Lay TO(2.75) 2.50 × 100 (liability 150), 2 % commission: half won +49.00, half lost −75.00', () => {
    const p = position('valuebets', [{ bookmaker: 'Smarkets', market: 'Lay TO(2.75)', odds: 2.5, stake: 100, commission: 0.02, lay: true }]);
    // The layer's half win is half the backer's stake, 50, less 2 %: 49.00. A half loss is half the liability, 75.
    expect(cents(positionPnl(settled(p, halfWon)))).toBe(49);
    expect(cents(positionPnl(settled(p, halfLost)))).toBe(-75);
  });

  it('an arb on AH ±0.25 offers exactly its three results, and the draw splits both legs: +6.88', () => {
    const p = position('arbs', [
      { bookmaker: 'Pinnacle', market: 'AH1(-0.25)', odds: 2.1, stake: 500 },
      { bookmaker: 'Betfair Exchange', market: 'AH2(+0.25)', odds: 2.04, stake: 520, commission: 0.05 },
    ]);
    expect(lineCombos(p)).toEqual([
      ['lost', 'won'],
      ['half_lost', 'half_won'],
      ['won', 'lost'],
    ]);
    // Home wins: 500 × 1.10 − 520 = +30.00.
    expect(cents(positionPnl(settled(p, won, lost)))).toBe(30);
    // Draw: −250 on leg 1; leg 2 ½ × 520 × 1.04 = 270.40 less 5 % (13.52) = 256.88; together +6.88.
    const draw = settled(p, halfLost, halfWon);
    expect(legPnls(draw).map(cents)).toEqual([-250, 256.88]);
    expect(cents(positionPnl(draw))).toBe(6.88);
    // Away wins: −500 + 520 × 1.04 × 0.95 = −500 + 513.76 = +13.76.
    expect(cents(positionPnl(settled(p, lost, won)))).toBe(13.76);
  });

  it('a back/lay arb on one quarter line: the lay turns the back’s result over', () => {
    const p = position('arbs', [
      { bookmaker: 'Pinnacle', market: 'TO(2.25)', odds: 2.1, stake: 100 },
      { bookmaker: 'Smarkets', market: 'Lay TO(2.25)', odds: 2.0, stake: 100, commission: 0.02, lay: true },
    ]);
    expect(lineCombos(p)).toEqual([
      ['lost', 'won'],
      ['half_lost', 'half_won'],
      ['won', 'lost'],
    ]);
    // Total 2: −50 on the back; the lay wins ½ × 100 = 50 less 2 % = 49: −1.00.
    expect(cents(positionPnl(settled(p, halfLost, halfWon)))).toBe(-1);
  });

  it('a lay typed in /add whose market does not say "Lay" is turned over all the same', () => {
    const p = position('arbs', [
      { bookmaker: 'Pinnacle', market: 'AH1(-0.25)', odds: 2.1, stake: 500 },
      { bookmaker: 'Smarkets', market: 'AH1(-0.25)', odds: 2.04, stake: 520, commission: 0.02, lay: true },
    ]);
    expect(lineCombos(p)).toEqual([
      ['lost', 'won'],
      ['half_lost', 'half_won'],
      ['won', 'lost'],
    ]);
  });

  it('a middle on TO(2.75) / TU(3.25): hit, half-hit (both half won, one at 2 % commission) and misses', () => {
    const p = position('middles', [
      { bookmaker: 'Pinnacle', market: 'TO(2.75)', odds: 2.0, stake: 100 },
      { bookmaker: 'Smarkets', market: 'TU(3.25)', odds: 2.0, stake: 100, commission: 0.02 },
    ]);
    expect(lineCombos(p)).toEqual([
      ['lost', 'won'],
      ['half_won', 'half_won'],
      ['won', 'lost'],
    ]);
    // Total 3: each leg half won: 50 + (50 − 1) = +99.00.
    expect(cents(positionPnl(settled(p, halfWon, halfWon)))).toBe(99);
    // Total 2 or less: −100 + (100 − 2) = −2.00.
    expect(cents(positionPnl(settled(p, lost, won)))).toBe(-2);
  });

  it('a middle on TO(2.25) / TU(3.75): the full hit and the half-misses beside it', () => {
    const p = position('middles', [
      { bookmaker: 'Pinnacle', market: 'TO(2.25)', odds: 2.0, stake: 100 },
      { bookmaker: 'Marathonbet', market: 'TU(3.75)', odds: 2.0, stake: 100 },
    ]);
    expect(lineCombos(p)).toEqual([
      ['lost', 'won'],
      ['half_lost', 'won'],
      ['won', 'won'],
      ['won', 'half_lost'],
      ['won', 'lost'],
    ]);
    expect(cents(positionPnl(settled(p, won, won)))).toBe(200);
    expect(cents(positionPnl(settled(p, halfLost, won)))).toBe(50);
  });
});

describe('dead heat: stake × share at the full odds', () => {
  it('a back: Top scorer 6.00 × 50, dead heat ½: +100.00; at 5 % commission +95.00', () => {
    const p = position('valuebets', [{ bookmaker: 'Pinnacle', market: 'Top scorer', odds: 6, stake: 50 }]);
    // 50 × ½ × 6 = 150 back, less the 50 staked: +100.
    expect(cents(positionPnl(settled(p, { result: 'dead_heat', deadHeat: 1 / 2 })))).toBe(100);
    const ex = position('valuebets', [{ bookmaker: 'Betfair Exchange', market: 'Top scorer', odds: 6, stake: 50, commission: 0.05 }]);
    expect(cents(positionPnl(settled(ex, { result: 'dead_heat', deadHeat: 1 / 2 })))).toBe(95);
  });

  it('a lay: 6.00 × 50 (liability 250), dead heat ⅓ −50.00; ⅑ +16.67, at 5 % commission +15.83', () => {
    const p = position('valuebets', [{ bookmaker: 'Betfair Exchange', market: 'Top scorer', odds: 6, stake: 50, commission: 0.05, lay: true }]);
    // The backer gets 50 × ⅓ × 6 − 50 = +50: the layer pays it.
    expect(cents(positionPnl(settled(p, { result: 'dead_heat', deadHeat: 1 / 3 })))).toBe(-50);
    // ⅑: the backer 50 × 6/9 − 50 = −16.67; the layer wins 16.67 less 5 % = 15.83.
    expect(cents(positionPnl(settled(p, { result: 'dead_heat', deadHeat: 1 / 9 })))).toBe(15.83);
  });

  it('more places than one: Top 3 finish 4.00 × 30, 3 tied for 2 places (⅔) +50.00; 4 tied for 3 (¾) at 5 % +57.00', () => {
    const p = position('valuebets', [{ bookmaker: 'Pinnacle', market: 'Top 3 finish', odds: 4, stake: 30 }]);
    // 30 × ⅔ × 4 = 80 back, less the 30 staked.
    expect(cents(positionPnl(settled(p, { result: 'dead_heat', deadHeat: 2 / 3 })))).toBe(50);
    const ex = position('valuebets', [{ bookmaker: 'Betfair Exchange', market: 'Top 3 finish', odds: 4, stake: 30, commission: 0.05 }]);
    // 30 × ¾ × 4 − 30 = 60, less 5 % (3.00).
    expect(cents(positionPnl(settled(ex, { result: 'dead_heat', deadHeat: 3 / 4 })))).toBe(57);
  });

  it('needs a share between 0 and 1', () => {
    const p = position('valuebets', [{ bookmaker: 'Pinnacle', market: 'Top scorer', odds: 6, stake: 50 }]);
    expect(applyResults(p, new Map([[0, { result: 'dead_heat' as const }]]), NOW)).toBeUndefined();
    expect(applyResults(p, new Map([[0, { result: 'dead_heat' as const, deadHeat: 1 }]]), NOW)).toBeUndefined();
  });
});

describe('what each market allows', () => {
  it('reads lines in both languages and knows a quarter line', () => {
    expect(lineMarket('AH2(+0.25)')).toEqual({ score: 'margin', sense: -1, line: 0.25, lay: false });
    expect(lineMarket('Против ТБ(2.75)')).toEqual({ score: 'total', sense: 1, line: 2.75, lay: true });
    expect(lineMarket('Ф1(−1)')).toEqual({ score: 'margin', sense: 1, line: -1, lay: false });
    expect(lineMarket('W1')).toBeUndefined();
    expect([0.25, 0.75, -1.25, 2.5, 2, 0].map(isQuarterLine)).toEqual([true, true, true, false, false, false]);
  });

  it('halves only on quarter lines, dead heat only where the market is the user’s own words', () => {
    expect(legResultChoices({ market: 'TO(2.25)' })).toEqual(['won', 'void', 'half_lost', 'lost']);
    expect(legResultChoices({ market: 'TO(2.75)' })).toEqual(['won', 'half_won', 'void', 'lost']);
    expect(legResultChoices({ market: 'AH1(+0.25)' })).toEqual(['won', 'half_won', 'void', 'lost']);
    expect(legResultChoices({ market: 'AH1(+0.25)', lay: true })).toEqual(['won', 'void', 'half_lost', 'lost']);
    expect(legResultChoices({ market: 'TO(2.5)' })).toEqual(['won', 'void', 'lost']);
    expect(legResultChoices({ market: 'AH1(-1)' })).toEqual(['won', 'void', 'lost']);
    expect(legResultChoices({ market: 'П1' })).toEqual(['won', 'void', 'lost']);
    expect(legResultChoices({ market: 'BTS: yes' })).toEqual(['won', 'void', 'lost']);
    expect(legResultChoices({ market: 'Top scorer' })).toContain('dead_heat');
  });

  it('a whole-line AH arb has a push, not halves; markets on different scores are not enumerated', () => {
    const whole = position('arbs', [
      { bookmaker: 'A', market: 'AH1(-1)', odds: 2.1, stake: 100 },
      { bookmaker: 'B', market: 'AH2(+1)', odds: 2.0, stake: 100 },
    ]);
    expect(lineCombos(whole)).toEqual([
      ['lost', 'won'],
      ['void', 'void'],
      ['won', 'lost'],
    ]);
    const mixed = position('arbs', [
      { bookmaker: 'A', market: 'TO(2.5)', odds: 2.1, stake: 100 },
      { bookmaker: 'B', market: 'ITU1(1.5)', odds: 2.0, stake: 100 },
    ]);
    expect(lineCombos(mixed)).toBeUndefined();
  });
});
