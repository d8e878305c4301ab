/**
 * The figures of /pnl over settled positions (stake-maths §5): P&L, turnover (money at risk of
 * settled legs: a back's stake, a lay's liability), yield = P&L ÷ turnover, ROI on the starting
 * bank (always labelled so), win rate (positions in profit among those that won or lost; voids and
 * break-evens left out), by service, bookmaker and sport; arbs' expected (worst case as placed) vs
 * realised profit; valuebets' CLV (mean, stake-weighted, share beating the close; voids skipped)
 * and, apart, the price CLV of arbs' and middles' legs.
 * One pass over the positions: 10,000 legs take milliseconds.
 */
import { clv, devig } from './devig.js';
import { closeKey, effectiveBackOdds, isSettled, layAsBackOdds, type Close, type DevigMethod, type LedgerBook, type LedgerLeg, type Position } from './model.js';
import { positionFigures } from './position-figures.js';

export interface Totals {
  pnl: number;
  turnover: number;
  /** Positions (or legs, for bookmakers). */
  count: number;
  /** P&L ÷ turnover × 100; null on no turnover. */
  yieldPct: number | null;
}

export interface ClvStats {
  count: number;
  meanPct: number;
  weightedPct: number;
  beatSharePct: number;
}

export interface LedgerSummary {
  totals: Totals;
  startBank: number | null;
  roiOnBankPct: number | null;
  winRatePct: number | null;
  byService: [string, Totals][];
  byBookmaker: [string, Totals][];
  bySport: [string, Totals][];
  arbs: { count: number; expected: number; realised: number };
  clv: ClvStats | null;
  /** Arbs' and middles' legs: price CLV against each leg's own close. */
  legsClv: ClvStats | null;
  /** Positions not settled yet (any period). */
  open: number;
}

const empty = (): Totals => ({ pnl: 0, turnover: 0, count: 0, yieldPct: null });
function add(map: Map<string, Totals>, key: string, pnl: number, turnover: number): void {
  const t = map.get(key) ?? empty();
  t.pnl += pnl;
  t.turnover += turnover;
  t.count += 1;
  map.set(key, t);
}
const withYield = (t: Totals): Totals => ({ ...t, yieldPct: t.turnover > 0 ? (t.pnl / t.turnover) * 100 : null });
const rows = (map: Map<string, Totals>): [string, Totals][] => [...map].map(([k, v]) => [k, withYield(v)] as [string, Totals]).sort((a, b) => b[1].turnover - a[1].turnover);

/** The fair closing probability of a leg's selection, by `method`; undefined without a usable close. */
export function fairCloseProbability(close: Close, method: DevigMethod): number | undefined {
  if (close.market && close.market.length >= 2) return devig(close.market, method)[close.index];
  return close.fairOdds === null ? undefined : 1 / close.fairOdds;
}

/**
 * A leg's CLV (fraction) from its close; undefined for a void, a leg not placed or no close. With
 * a fair closing price (a valuebet's service gives one) it is the de-vigged CLV; without one (an
 * arb's or middle's leg) the price CLV: the odds taken over the closing odds at that bookmaker,
 * both after commission (a lay as the back of "not the selection"), less 1.
 */
export function legClv(leg: LedgerLeg, close: Close | undefined, method: DevigMethod): number | undefined {
  if (!close || leg.status !== 'placed' || leg.result === 'void') return undefined;
  const p = fairCloseProbability(close, method);
  if (p !== undefined) return clv(leg.effectiveOdds, p);
  const closing = leg.lay ? layAsBackOdds(close.odds, leg.commission) : effectiveBackOdds(close.odds, leg.commission);
  return leg.effectiveOdds / closing - 1;
}

function clvStats(clvs: readonly { clv: number; stake: number }[]): ClvStats | null {
  if (clvs.length === 0) return null;
  const staked = clvs.reduce((s, x) => s + x.stake, 0);
  return {
    count: clvs.length,
    meanPct: (clvs.reduce((s, x) => s + x.clv, 0) / clvs.length) * 100,
    weightedPct: staked > 0 ? (clvs.reduce((s, x) => s + x.clv * x.stake, 0) / staked) * 100 : 0,
    beatSharePct: (clvs.filter((x) => x.clv > 0).length / clvs.length) * 100,
  };
}

/** Settled positions whose settlement falls in [from, to). */
export const settledIn = (positions: readonly Position[], from: number, to: number): Position[] =>
  positions.filter((p) => p.settledAt !== null && p.settledAt >= from && p.settledAt < to && isSettled(p));

/** An accumulator of the figures: positions added one at a time (in slices, by a caller that lets the event loop run), then the result. */
export interface Builder<T> {
  add(p: Position): void;
  result(): T;
}

export function summarize(book: LedgerBook, from: number, to: number): LedgerSummary {
  return build(summaryBuilder(book, from, to), book.positions);
}

function build<T>(b: Builder<T>, positions: readonly Position[]): T {
  for (const p of positions) b.add(p);
  return b.result();
}

/** The figures of some settled positions, mergeable: a builder's own, and the ledger index's of each day (`ledger-index.ts`). */
export interface SummaryPart {
  totals: Totals;
  byService: Map<string, Totals>;
  byBookmaker: Map<string, Totals>;
  bySport: Map<string, Totals>;
  arbs: { count: number; expected: number; realised: number };
  wins: number;
  decided: number;
  clvs: { clv: number; stake: number }[];
  legClvs: { clv: number; stake: number }[];
}

const emptyPart = (): SummaryPart => ({
  totals: empty(), byService: new Map(), byBookmaker: new Map(), bySport: new Map(), arbs: { count: 0, expected: 0, realised: 0 }, wins: 0, decided: 0, clvs: [], legClvs: [],
});

/** What a position's CLV is worked out from: the book's closing lines and de-vig method. */
export interface ClvSource {
  closes: ReadonlyMap<string, Close>;
  settings: { devig: DevigMethod };
}

/** A settled position's figures added to `s` (closing lines and de-vig method from `book`). */
function addSettled(s: SummaryPart, book: ClvSource, p: Position): void {
  const f = positionFigures(p);
  const perLeg = f.perLeg;
  const pnl = f.pnl;
  const risk = f.risk;
  s.totals.pnl += pnl;
  s.totals.turnover += risk;
  s.totals.count += 1;
  if (Math.abs(pnl) >= 0.005) {
    s.decided += 1;
    if (pnl > 0) s.wins += 1;
  }
  add(s.byService, p.service, pnl, risk);
  add(s.bySport, p.sport || '—', pnl, risk);
  const closes = book.closes.size > 0;
  p.legs.forEach((leg, i) => {
    if (leg.status !== 'placed') return;
    add(s.byBookmaker, leg.bookmaker, perLeg[i] ?? 0, leg.liability);
    const c = closes ? legClv(leg, book.closes.get(closeKey(p.id, i)), book.settings.devig) : undefined;
    if (c !== undefined) (p.kind === 'valuebets' ? s.clvs : s.legClvs).push({ clv: c, stake: leg.liability });
  });
  if (p.kind === 'arbs') {
    s.arbs.count += 1;
    s.arbs.expected += f.worst ?? 0;
    s.arbs.realised += pnl;
  }
}

/** The part of settled `positions` (all of them, whatever their settle time). */
export function summaryPart(book: ClvSource, positions: Iterable<Position>): SummaryPart {
  const s = emptyPart();
  for (const p of positions) addSettled(s, book, p);
  return s;
}

function mergeTotals(into: Map<string, Totals>, from: ReadonlyMap<string, Totals>): void {
  for (const [key, t] of from) {
    const x = into.get(key) ?? empty();
    x.pnl += t.pnl;
    x.turnover += t.turnover;
    x.count += t.count;
    into.set(key, x);
  }
}

export interface SummaryBuilder extends Builder<LedgerSummary> {
  /** A part of positions all settled inside [from, to) (not taken again by `add`). */
  merge(part: SummaryPart): void;
  /** Unsettled positions counted elsewhere (the index's). */
  addOpen(n: number): void;
}

export function summaryBuilder(book: LedgerBook, from: number, to: number): SummaryBuilder {
  const s = emptyPart();
  let open = 0;
  const take = (p: Position): void => {
    const f = positionFigures(p);
    if (!f.settled) {
      if (f.open) open += 1;
      return;
    }
    if (p.settledAt === null || p.settledAt < from || p.settledAt >= to) return;
    addSettled(s, book, p);
  };
  const merge = (part: SummaryPart): void => {
    s.totals.pnl += part.totals.pnl;
    s.totals.turnover += part.totals.turnover;
    s.totals.count += part.totals.count;
    s.wins += part.wins;
    s.decided += part.decided;
    mergeTotals(s.byService, part.byService);
    mergeTotals(s.byBookmaker, part.byBookmaker);
    mergeTotals(s.bySport, part.bySport);
    s.arbs.count += part.arbs.count;
    s.arbs.expected += part.arbs.expected;
    s.arbs.realised += part.arbs.realised;
    for (const x of part.clvs) s.clvs.push(x);
    for (const x of part.legClvs) s.legClvs.push(x);
  };
  const result = (): LedgerSummary => {
    const startBank = book.settings.startBank;
    return {
      totals: withYield(s.totals),
      startBank,
      roiOnBankPct: startBank ? (s.totals.pnl / startBank) * 100 : null,
      winRatePct: s.decided > 0 ? (s.wins / s.decided) * 100 : null,
      byService: rows(s.byService),
      byBookmaker: rows(s.byBookmaker),
      bySport: rows(s.bySport),
      arbs: { ...s.arbs },
      clv: clvStats(s.clvs),
      legsClv: clvStats(s.legClvs),
      open,
    };
  };
  return { add: take, result, merge, addOpen: (n) => void (open += n) };
}

/** What a store keeps indexed of a book for its figures (`ledger-index.ts`). */
export interface FiguresIndex {
  /** The positions settled in [from, to) (with `keeps`, only those it keeps) into the builders. */
  fill(summary: SummaryBuilder, series: SeriesBuilder, from: number, to: number, keeps?: (p: Position) => boolean): void;
  /** Works out ahead, in slices with the event loop let run between, what `fill` of [from, to) would. */
  prepare(from: number, to: number, slice: number): Promise<void>;
  /** Unsettled positions with something placed or a hedge open. */
  openCount(): number;
  /** The services, bookmakers and sports the book names, sorted. */
  choices(): { services: string[]; bookmakers: string[]; sports: string[] };
}

/** A book as a store gives it: with the store's index, live (read it before anything else awaits). */
export interface IndexedBook extends LedgerBook {
  index?: FiguresIndex;
}

/** Positions a slice of the figures takes before the event loop runs again (a few ms). */
const FIGURES_SLICE = 1_000;

/**
 * /pnl's figures and the chart's series of [from, to) in one pass over the book, in slices of
 * FIGURES_SLICE positions with the event loop let run between them: a 20,000-position ledger
 * never holds the process at once.
 */
export async function ledgerFigures(book: IndexedBook, from: number, to: number): Promise<[LedgerSummary, DayPoint[]]> {
  const figures = summaryBuilder(book, from, to);
  const series = seriesBuilder(book, from, to);
  if (book.index) {
    await book.index.prepare(from, to, FIGURES_SLICE);
    // What changed meanwhile is in the index too: it is read whole here, as it is now.
    book.index.fill(figures, series, from, to);
    figures.addOpen(book.index.openCount());
    return [figures.result(), series.result()];
  }
  for (let i = 0; i < book.positions.length; i += FIGURES_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const p of book.positions.slice(i, i + FIGURES_SLICE)) {
      figures.add(p);
      series.add(p);
    }
  }
  return [figures.result(), series.result()];
}

/** One day of the chart: P&L settled that day, cumulative P&L, turnover, mean CLV of valuebets (%). */
export interface DayPoint {
  day: string;
  pnl: number;
  cumulative: number;
  turnover: number;
  clvPct: number | null;
}

/** Settled positions in [from, to) by UTC day, oldest first, with the running P&L. */
export function dailySeries(book: LedgerBook, from: number, to: number): DayPoint[] {
  return build(seriesBuilder(book, from, to), book.positions);
}

export interface SeriesBuilder extends Builder<DayPoint[]> {
  /** A whole day's part (positions all settled on `day`, inside [from, to), not taken again by `add`). */
  addDay(day: string, part: SummaryPart): void;
}

export function seriesBuilder(book: LedgerBook, from: number, to: number): SeriesBuilder {
  const days = new Map<string, { pnl: number; turnover: number; clv: number[] }>();
  const add = (p: Position): void => {
    const f = positionFigures(p);
    if (p.settledAt === null || p.settledAt < from || p.settledAt >= to || f.day === null) return;
    const day = f.day;
    const d = days.get(day) ?? { pnl: 0, turnover: 0, clv: [] };
    d.pnl += f.pnl;
    d.turnover += f.risk;
    if (p.kind === 'valuebets' && book.closes.size > 0) {
      p.legs.forEach((leg, i) => {
        const c = legClv(leg, book.closes.get(closeKey(p.id, i)), book.settings.devig);
        if (c !== undefined) d.clv.push(c);
      });
    }
    days.set(day, d);
  };
  const result = (): DayPoint[] => {
    let running = 0;
    return [...days]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, d]) => {
        running += d.pnl;
        return { day, pnl: d.pnl, cumulative: running, turnover: d.turnover, clvPct: d.clv.length ? (d.clv.reduce((s, x) => s + x, 0) / d.clv.length) * 100 : null };
      });
  };
  const addDay = (day: string, part: SummaryPart): void => {
    if (part.totals.count === 0) return;
    const d = days.get(day) ?? { pnl: 0, turnover: 0, clv: [] };
    d.pnl += part.totals.pnl;
    d.turnover += part.totals.turnover;
    for (const x of part.clvs) d.clv.push(x.clv);
    days.set(day, d);
  };
  return { add, result, addDay };
}
