/**
 * The tidy CSV (newcomer trial #27): the market code, its line and the selection in words each in
 * a column; "Lay" said once (in `side`); the currency filled from the position or the user's
 * setting; a refused leg at stake 0 with its hedge's row right after it; closing odds, their time
 * and CLV on every leg that has a close. And the chart (#28): both value axes titled, and one day
 * drawn as a line from zero.
 */
import { describe, expect, it } from 'vitest';
import { chartSvg } from '../../src/ledger/chart.js';
import { ledgerCsv, readLedgerCsv } from '../../src/ledger/csv.js';
import { closeKey, makeLeg, positionSchema, type LedgerBook } from '../../src/ledger/model.js';
import { selectionOf } from '../../src/ledger/selection.js';
import { summarize, dailySeries } from '../../src/ledger/summary.js';

const T = Date.parse('2026-11-28T12:00:00Z');

function book(currency: string | null): LedgerBook {
  const p = positionSchema.parse({
    id: '7',
    kind: 'arbs',
    service: 'arbs_prematch',
    itemId: 'i7',
    eventId: 'e7',
    event: 'Home – Away',
    eventStart: T + 3_600_000,
    placedAt: T,
    settledAt: T + 7_200_000,
    legs: [
      { ...makeLeg({ outcome: 0, bookmaker: 'Mostbet', market: 'AH1(-1.5)', odds: 2.9, stake: 340 }), result: 'won' },
      { ...makeLeg({ outcome: 1, bookmaker: 'Betfair Exchange', market: 'Lay TO(197.5)', odds: 1.58, stake: 645, lay: true, commission: 0.02 }), status: 'refused' },
      { ...makeLeg({ outcome: 1, bookmaker: 'Marathonbet', market: 'AH2(+1.5)', odds: 1.57, stake: 628 }), result: 'lost' },
    ],
  });
  return {
    settings: { startBank: null, devig: 'multiplicative', digestAt: null, nextId: 8, currency },
    positions: [p],
    closes: new Map([[closeKey('7', 0), { odds: 2.75, at: T + 3_000_000, fairOdds: null, market: null, index: 0 }]]),
  };
}

describe('selection', () => {
  it('splits code, line and words, and drops a lay prefix', () => {
    expect(selectionOf('AH1(-1.5)')).toEqual({ code: 'AH1', line: '-1.5', words: 'team 1 handicap -1.5' });
    expect(selectionOf('Lay TO(197.5)')).toEqual({ code: 'TO', line: '197.5', words: 'total over 197.5' });
    expect(selectionOf('X')).toEqual({ code: 'X', line: '', words: 'draw' });
    expect(selectionOf('Corners 1(3)')).toEqual({ code: 'Corners 1', line: '3', words: 'Corners 1 3' });
  });
});

describe('the tidy CSV', () => {
  it('fills selection, line and currency; a refused leg is at stake 0 with its hedge after it', () => {
    const b = book('EUR');
    const rows = readLedgerCsv(ledgerCsv(b, b.positions));
    expect(rows.map((r) => [r.bet_id, r.market, r.selection, r.line, r.side, r.stake, r.liability, r.currency, r.status, r.hedge_for])).toEqual([
      ['7-1', 'AH1', 'team 1 handicap -1.5', '-1.5', 'back', '340.00', '340.00', 'EUR', 'won', ''],
      ['7-2', 'TO', 'total over 197.5', '197.5', 'lay', '0.00', '0.00', 'EUR', 'refused', ''],
      ['7-3', 'AH2', 'team 2 handicap +1.5', '+1.5', 'back', '628.00', '628.00', 'EUR', 'lost', '7-2'],
    ]);
    expect(rows[1]!.note).toBe('refused at 1.58 × 645.00');
    // Turnover summed over the file is the ledger's: the refused 645 never counts.
    const s = summarize(b, -Infinity, Infinity);
    expect(rows.reduce((x, r) => x + Number(r.liability), 0)).toBeCloseTo(s.totals.turnover, 2);
    expect(rows.reduce((x, r) => x + Number(r.pnl || 0), 0)).toBeCloseTo(s.totals.pnl, 2);
  });

  it('an arb leg with a close has closing odds, their time and CLV; the user currency fills in', () => {
    const b = book('USD');
    const rows = readLedgerCsv(ledgerCsv(b, b.positions));
    expect([rows[0]!.closing_odds, rows[0]!.closing_at, rows[0]!.clv_pct, rows[0]!.devig_method]).toEqual(['2.75', '2026-11-28T12:50:00Z', '5.45', 'price']);
    expect(rows.map((r) => r.currency)).toEqual(['USD', 'USD', 'USD']);
  });
});

describe('the chart (#28)', () => {
  it('titles the P&L axis and the turnover axis, and draws one day as a line from zero', () => {
    const b = book('EUR');
    const days = dailySeries(b, -Infinity, Infinity);
    expect(days).toHaveLength(1);
    const svg = chartSvg(days, { title: 'Cumulative P&L', pnl: 'P&L', turnover: 'Turnover', clv: 'CLV %' }, 'EUR');
    expect(svg).toContain('P&amp;L (EUR)');
    expect(svg).toContain('Turnover (EUR)');
    // The day before the first settlement starts the line at zero.
    expect(svg).toContain('2026-11-27');
    expect(svg).toContain('2026-11-28');
  });
});
