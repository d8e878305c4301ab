/**
 * /export's CSV: one row per leg, `position_id` grouping a position's legs, the columns of
 * stake-maths §5.3, ISO-8601 UTC times, decimal points, amounts to the cent. Made with
 * csv-stringify (quoting). A text cell that a spreadsheet would run as a formula (one beginning
 * with =, +, -, @, a tab or a carriage return) is neutralised with a leading apostrophe; numbers are
 * written by the bot itself and are plain. A leg's P&L is written once its position is settled (a leg
 * given its result before the others counts nowhere yet, as in /pnl). `readLedgerCsv` reads such a file back (a test imports
 * the export to the same totals).
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { isSettled, closeKey, type DevigMethod, type LedgerBook, type Position } from './model.js';
import { legPnls } from './settle.js';
import { fairCloseProbability, legClv } from './summary.js';

export const CSV_COLUMNS = [
  'bet_id', 'position_id', 'placed_at', 'settled_at', 'kind', 'service', 'sport', 'league', 'event', 'event_start', 'market', 'selection', 'line',
  'bookmaker', 'side', 'odds', 'commission_rate', 'stake', 'liability', 'currency', 'status', 'pnl', 'closing_odds', 'fair_close_odds', 'devig_method',
  'clv_pct', 'alert_profit_pct', 'note',
] as const;

/** A text cell safe to open in a spreadsheet. */
export function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
const fixed = (x: number | null | undefined, digits: number): string => (x === null || x === undefined || !Number.isFinite(x) ? '' : x.toFixed(digits));

/** The rows of `positions` (in order), one per leg. */
export function ledgerRows(book: LedgerBook, positions: readonly Position[], method: DevigMethod = book.settings.devig): string[][] {
  const rows: string[][] = [];
  for (const p of positions) {
    const pnls = legPnls(p);
    const settled = isSettled(p);
    p.legs.forEach((leg, i) => {
      const close = book.closes.get(closeKey(p.id, i));
      const fair = close ? fairCloseProbability(close, method) : undefined;
      const clv = p.kind === 'valuebets' ? legClv(leg, close, method) : undefined;
      const status = leg.status !== 'placed' ? leg.status : (leg.result ?? 'pending');
      rows.push([
        `${p.id}-${i + 1}`, p.id, iso(p.placedAt), settled ? iso(p.settledAt) : '', p.kind, safeText(p.service), safeText(p.sport), safeText(p.league), safeText(p.event),
        iso(p.eventStart), safeText(leg.market), '', '', safeText(leg.bookmaker), leg.lay ? 'lay' : 'back', fixed(leg.odds, 2), fixed(leg.commission, 4),
        fixed(leg.stake, 2), fixed(leg.liability, 2), safeText(p.currency), status, settled ? fixed(pnls[i], 2) : '', fixed(close?.odds, 2),
        fair === undefined ? '' : fixed(1 / fair, 4), close ? method : '', fixed(clv === undefined ? undefined : clv * 100, 2), i === 0 ? fixed(p.alertProfitPct, 2) : '', safeText(p.note),
      ]);
    });
  }
  return rows;
}

export function ledgerCsv(book: LedgerBook, positions: readonly Position[]): string {
  return stringify([[...CSV_COLUMNS], ...ledgerRows(book, positions)], { record_delimiter: '\n' });
}

/** The file read back: one record per row, by column name. */
export function readLedgerCsv(text: string): Record<(typeof CSV_COLUMNS)[number], string>[] {
  return parse(text, { columns: true, skip_empty_lines: true }) as Record<(typeof CSV_COLUMNS)[number], string>[];
}
