/**
 * GET /app/api/ledger's answer: the figures and chart series of the period for the positions the
 * filters keep, the choices the filters offer, and the open positions. One pass over the book,
 * with each position's settle maths kept by the position (`position-figures.ts`) and the open ones
 * read from the store's index: at 20,000 positions an answer takes milliseconds.
 */
import { currencyOf, isSettled, type LedgerBook, type Position } from '../ledger/model.js';
import { UNDO_WINDOW_MS } from '../ledger/edits.js';
import { legResultChoices } from '../ledger/markets.js';
import { immutable } from '../ledger/position-figures.js';
import { positionPnl } from '../ledger/settle.js';
import { seriesBuilder, summaryBuilder, type IndexedBook } from '../ledger/summary.js';
import { MAX_OPEN_LISTED, type ApiPosition, type LedgerQuery, type LedgerView } from './contract.js';

const DAY_MS = 86_400_000;
const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

const keptLegs = new WeakMap<Position, ApiPosition['legs']>();

/** The legs as the page shows them, kept by a stored (frozen) position: the market's result choices are parsed once. */
function apiLegs(p: Position): ApiPosition['legs'] {
  const kept = keptLegs.get(p);
  if (kept) return kept;
  const legs = p.legs.map((l, index) => ({
    index,
    outcome: l.outcome,
    bookmaker: l.bookmaker,
    market: l.market,
    odds: l.odds,
    stake: l.stake,
    lay: l.lay,
    status: l.status,
    result: l.result,
    results: l.status === 'placed' ? legResultChoices(l) : [],
  }));
  if (immutable(p)) keptLegs.set(p, legs);
  return legs;
}

/** A position as the page shows it; the undo handle only while the chat's ↩️ would still work. */
export function apiPosition(p: Position, settings: LedgerBook['settings'], now: number): ApiPosition {
  const u = p.undo;
  const undoable = u && u.legs.length > 0 && now - u.at <= UNDO_WINDOW_MS;
  return {
    id: p.id,
    kind: p.kind,
    service: p.service,
    sport: p.sport,
    league: p.league,
    event: p.event,
    eventStart: p.eventStart,
    placedAt: p.placedAt,
    settledAt: p.settledAt,
    settled: isSettled(p),
    currency: currencyOf(p, settings),
    pnl: positionPnl(p) ?? null,
    legs: apiLegs(p),
    undo: undoable ? { n: u.n, until: u.at + UNDO_WINDOW_MS } : null,
  };
}

/** [from, to) of the query: whole UTC days, to today by default. */
export function queryRange(q: LedgerQuery, now: number): { from: number; to: number } {
  return { from: q.from ? dayStart(q.from) : 0, to: q.to ? dayStart(q.to) + DAY_MS : now + 1 };
}

/** The positions the query's service, sport and bookmaker keep. */
export const keptBy = (q: LedgerQuery) => (p: Position): boolean =>
  (!q.service || p.service === q.service) && (!q.sport || p.sport === q.sport) && (!q.bookmaker || p.legs.some((l) => l.bookmaker === q.bookmaker));

const filtered = (q: LedgerQuery): boolean => q.service !== undefined || q.sport !== undefined || q.bookmaker !== undefined;

/** `open` and `book` as read, with nothing awaited since `book` (its index is live). */
export function ledgerAnswer(book: IndexedBook, open: readonly Position[], q: LedgerQuery, now: number): LedgerView {
  const { from, to } = queryRange(q, now);
  const keeps = keptBy(q);
  const summary = summaryBuilder(book, from, to);
  const series = seriesBuilder(book, from, to);
  const listed = filtered(q) ? open.filter(keeps) : open;
  let choices: LedgerView['choices'];
  if (book.index) {
    book.index.fill(summary, series, from, to, filtered(q) ? keeps : undefined);
    summary.addOpen(listed.length);
    choices = book.index.choices();
  } else {
    const services = new Set<string>();
    const bookmakers = new Set<string>();
    const sports = new Set<string>();
    for (const p of book.positions) {
      services.add(p.service);
      sports.add(p.sport);
      for (const l of p.legs) bookmakers.add(l.bookmaker);
      if (!keeps(p)) continue;
      summary.add(p);
      series.add(p);
    }
    const sorted = (xs: Set<string>) => [...xs].filter((x) => x !== '').sort();
    choices = { services: sorted(services), bookmakers: sorted(bookmakers), sports: sorted(sports) };
  }
  return {
    from,
    to,
    currency: book.settings.currency ?? '',
    summary: summary.result(),
    days: series.result(),
    choices,
    open: listed.slice(0, MAX_OPEN_LISTED).map((p) => apiPosition(p, book.settings, now)),
    openTotal: listed.length,
  };
}
