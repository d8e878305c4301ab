/**
 * /export's CSV: one row per leg, `position_id` grouping a position's legs, the columns of
 * stake-maths §5.3, ISO-8601 UTC times, decimal points, amounts to the cent. The market's code,
 * line and selection in words each in a column (`selection.ts`); every leg's closing odds, when
 * they were read and its CLV; a refused leg with stake 0 (it never counted) and its hedge's row
 * right after it (`hedge_for` naming the refused leg). Made with
 * csv-stringify (quoting). A text cell that a spreadsheet would run as a formula (one beginning
 * with =, +, -, @, a tab or a carriage return) is neutralised with a leading apostrophe; numbers are
 * written by the bot itself and are plain. A leg's P&L is written once its position is settled (a leg
 * given its result before the others counts nowhere yet, as in /pnl). `readLedgerCsv` reads such a file back (a test imports
 * the export to the same totals).
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { isSettled, closeKey, currencyOf, type DevigMethod, type LedgerBook, type Position } from './model.js';
import { legPnls } from './settle.js';
import { selectionOf } from './selection.js';
import { fairCloseProbability, legClv } from './summary.js';

export const CSV_COLUMNS = [
  'bet_id', 'position_id', 'placed_at', 'settled_at', 'kind', 'service', 'sport', 'league', 'event', 'event_start', 'market', 'selection', 'line',
  'bookmaker', 'side', 'odds', 'commission_rate', 'stake', 'liability', 'currency', 'status', 'pnl', 'closing_odds', 'closing_at', 'fair_close_odds', 'devig_method',
  'clv_pct', 'alert_profit_pct', 'hedge_for', 'note',
] as const;

/** A text cell safe to open in a spreadsheet. */
export function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
const fixed = (x: number | null | undefined, digits: number): string => (x === null || x === undefined || !Number.isFinite(x) ? '' : x.toFixed(digits));

/** A position's legs in CSV order: each hedge right after the refused leg it covers. */
function legOrder(p: Position): number[] {
  const order: number[] = [];
  const hedges = p.legs.map((l, i) => i).filter((i) => i >= 1 && p.legs[i]!.outcome !== i);
  p.legs.forEach((leg, i) => {
    if (hedges.includes(i)) return;
    order.push(i);
    if (leg.status === 'refused') order.push(...hedges.filter((h) => p.legs[h]!.outcome === leg.outcome));
  });
  for (const h of hedges) if (!order.includes(h)) order.push(h);
  return order;
}

/** The rows of `positions` (in order), one per leg. */
export function ledgerRows(book: LedgerBook, positions: readonly Position[], method: DevigMethod = book.settings.devig): string[][] {
  const rows: string[][] = [];
  for (const p of positions) {
    const pnls = legPnls(p);
    const settled = isSettled(p);
    const currency = currencyOf(p, book.settings);
    for (const i of legOrder(p)) {
      const leg = p.legs[i]!;
      const close = book.closes.get(closeKey(p.id, i));
      const fair = close ? fairCloseProbability(close, method) : undefined;
      const clv = legClv(leg, close, method);
      const status = leg.status !== 'placed' ? leg.status : (leg.result ?? 'pending');
      const refused = leg.status === 'refused';
      const sel = selectionOf(leg.market);
      const covers = leg.outcome !== i ? p.legs.findIndex((l, j) => j !== i && l.outcome === leg.outcome && l.status === 'refused') : -1;
      const note = refused ? [`refused at ${fixed(leg.odds, 2)} × ${fixed(leg.stake, 2)}`, p.note].filter(Boolean).join('; ') : p.note;
      rows.push([
        `${p.id}-${i + 1}`, p.id, iso(p.placedAt), settled ? iso(p.settledAt) : '', p.kind, safeText(p.service), safeText(p.sport), safeText(p.league), safeText(p.event),
        iso(p.eventStart), safeText(sel.code), safeText(sel.words), sel.line, safeText(leg.bookmaker), leg.lay ? 'lay' : 'back', fixed(leg.odds, 2), fixed(leg.commission, 4),
        fixed(refused ? 0 : leg.stake, 2), fixed(refused ? 0 : leg.liability, 2), safeText(currency), status, settled ? fixed(pnls[i], 2) : '', fixed(close?.odds, 2), close ? iso(close.at) : '',
        fair === undefined ? '' : fixed(1 / fair, 4), close ? (fair === undefined ? 'price' : method) : '', fixed(clv === undefined ? undefined : clv * 100, 2),
        i === 0 ? fixed(p.alertProfitPct, 2) : '', covers >= 0 ? `${p.id}-${covers + 1}` : '', safeText(note),
      ]);
    }
  }
  return rows;
}

export function ledgerCsv(book: LedgerBook, positions: readonly Position[]): string {
  return stringify([[...CSV_COLUMNS], ...ledgerRows(book, positions)], { record_delimiter: '\n' });
}

/**
 * Rows made between two yields, in ms of work (their quoting takes about as long again). A budget
 * in time, not in positions: 250 positions took 5 ms warm but 33 ms on a cold start and 15 ms on a
 * busy machine.
 */
const SLICE_MS = 3;

/**
 * The CSV in pieces (the header first, then the rows of a few ms of work at a time), letting the
 * event loop run between them: an export of 20,000 positions (about 8 MB) never holds the process
 * for more than one piece's work.
 */
export async function* ledgerCsvChunks(book: LedgerBook, positions: readonly Position[]): AsyncGenerator<string> {
  yield stringify([[...CSV_COLUMNS]], { record_delimiter: '\n' });
  let next = 0;
  while (next < positions.length) {
    const start = performance.now();
    const rows: string[][] = [];
    do rows.push(...ledgerRows(book, positions.slice(next, ++next)));
    while (next < positions.length && performance.now() - start < SLICE_MS);
    yield stringify(rows, { record_delimiter: '\n' });
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The CSV as bytes, one buffer per piece (the header first): each piece is encoded as it is made,
 * so no step holds the process for the whole file (joining and encoding 8 MB at once took 27 ms,
 * several times that on a busy machine).
 */
export async function ledgerCsvSlices(book: LedgerBook, positions: readonly Position[]): Promise<Buffer[]> {
  const slices: Buffer[] = [];
  for await (const piece of ledgerCsvChunks(book, positions)) slices.push(Buffer.from(piece, 'utf8'));
  return slices;
}

/** What an export of [from, to) holds: settled positions by settlement time, unsettled ones by when placed. */
export function exportedPositions(book: LedgerBook, from: number, to: number, keep: (p: Position) => boolean = () => true): Position[] {
  return book.positions.filter((p) => {
    const at = isSettled(p) ? (p.settledAt ?? p.placedAt) : p.placedAt;
    return at >= from && at < to && keep(p);
  });
}

/** The file read back: one record per row, by column name. */
export function readLedgerCsv(text: string): Record<(typeof CSV_COLUMNS)[number], string>[] {
  return parse(text, { columns: true, skip_empty_lines: true }) as Record<(typeof CSV_COLUMNS)[number], string>[];
}
