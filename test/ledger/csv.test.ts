/**
 * /export's CSV: the columns of stake-maths §5.3, one row per leg grouped by position, ISO-8601
 * UTC, decimal points; text a spreadsheet would run as a formula is neutralised; the file read
 * back gives the same P&L and turnover as the ledger's figures.
 */
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, ledgerCsv, readLedgerCsv, safeText } from '../../src/ledger/csv.js';
import { summarize } from '../../src/ledger/summary.js';
import { workedBook } from './worked.js';

describe('ledger CSV', () => {
  const book = workedBook();
  const text = ledgerCsv(book, book.positions);
  const rows = readLedgerCsv(text);

  it('has the §5.3 header and one row per leg, grouped by position', () => {
    expect(text.split('\n')[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows).toHaveLength(9);
    expect(rows.map((r) => r.position_id)).toEqual(['a1', 'a1', 'v1', 'b1', 'b1', 'v2', 'v3', 'v4', 'v5']);
  });

  it('writes the worked example’s lay leg as ledger.mjs does', () => {
    const lay = rows[4]!;
    expect([lay.bookmaker, lay.side, lay.odds, lay.commission_rate, lay.stake, lay.liability, lay.status, lay.pnl]).toEqual(['Betfair', 'lay', '2.10', '0.0200', '105.77', '116.35', 'won', '103.65']);
    expect(lay.placed_at).toBe('2026-11-09T18:00:00Z');
    expect(lay.settled_at).toBe('2026-11-09T21:00:00Z');
    expect(rows[8]!.status).toBe('pending');
    expect(rows[2]!.clv_pct).toBe('6.15');
    expect(rows[2]!.fair_close_odds).toBe('2.1667');
    expect(rows[2]!.devig_method).toBe('multiplicative');
  });

  it('reads back to the same totals', () => {
    const s = summarize(book, -Infinity, Infinity);
    const settled = rows.filter((r) => ['won', 'half_won', 'void', 'half_lost', 'lost'].includes(r.status));
    expect(settled.reduce((x, r) => x + Number(r.pnl), 0)).toBeCloseTo(s.totals.pnl, 2);
    expect(settled.reduce((x, r) => x + Number(r.liability), 0)).toBeCloseTo(s.totals.turnover, 2);
  });

  it('neutralises cells a spreadsheet would run as formulas, and quotes what needs quoting', () => {
    for (const bad of ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tx', '\rx']) expect(safeText(bad).startsWith("'")).toBe(true);
    expect(safeText('Bet365')).toBe('Bet365');
    const evil = { ...book, positions: [{ ...book.positions[0]!, event: '=cmd|" /C calc"!A0', league: 'A, "B"\nC' }] };
    const back = readLedgerCsv(ledgerCsv(evil, evil.positions));
    expect(back[0]!.event).toBe('\'=cmd|" /C calc"!A0');
    expect(back[0]!.league).toBe('A, "B"\nC');
    // Negative amounts are numbers the bot writes, not text: they stay numbers.
    expect(back[1]!.pnl).toBe('-505.00');
  });
});
