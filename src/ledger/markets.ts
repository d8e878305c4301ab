/**
 * What a leg's market allows at settlement, read from the market as the ledger keeps it (the
 * dictionary's short title with its line, "AH1(-0.25)", "ТБ(2.75)", "Lay TO(2.5)", or a user's
 * own words from /add). Totals and handicaps settle by comparing one score (the total, a team's
 * total, or the margin) with the line: more than a quarter above wins, a quarter above half wins,
 * level is void, a quarter below half loses, more below loses. So for a position whose legs all
 * hang on the same score, every result the market allows can be listed by running that score over
 * the integers near the lines — an arb on AH ±0.25 offers "1 won", "1 ½ lost · 2 ½ won", "2 won";
 * a middle on TO(2.25) / TU(3.75) its hit, its half-misses and misses — instead of buttons for
 * results that cannot happen. Markets with fixed outcomes (1X2, BTS, odd/even) never split a stake;
 * a market the bot cannot read (the user's words) may split it any way, dead heat included.
 */
import type { LegResult, LedgerLeg, Position } from './model.js';

/** The score a line is compared with. */
type Score = 'total' | 'total1' | 'total2' | 'margin';

export interface LineMarket {
  score: Score;
  /** +1: the leg wins when the score is above the line (over, AH1); −1: below (under, AH2 — whose margin is the away side's). */
  sense: 1 | -1;
  line: number;
  /** A lay of the selection (its results are the selection's turned over). */
  lay: boolean;
}

/** Codes of line markets in both languages (the dictionaries' short titles): code → score and sense. */
const LINE_CODES: Record<string, { score: Score; sense: 1 | -1 }> = {
  TO: { score: 'total', sense: 1 },
  TU: { score: 'total', sense: -1 },
  'ТБ': { score: 'total', sense: 1 },
  'ТМ': { score: 'total', sense: -1 },
  ITO1: { score: 'total1', sense: 1 },
  ITU1: { score: 'total1', sense: -1 },
  ITO2: { score: 'total2', sense: 1 },
  ITU2: { score: 'total2', sense: -1 },
  'ИТБ1': { score: 'total1', sense: 1 },
  'ИТМ1': { score: 'total1', sense: -1 },
  'ИТБ2': { score: 'total2', sense: 1 },
  'ИТМ2': { score: 'total2', sense: -1 },
  AH1: { score: 'margin', sense: 1 },
  AH2: { score: 'margin', sense: -1 },
  'Ф1': { score: 'margin', sense: 1 },
  'Ф2': { score: 'margin', sense: -1 },
};

/** Dictionary codes with fixed outcomes: a whole win or loss (or a void), never a split stake. */
const FIXED_CODES = new Set(
  ['1', 'X', '2', '1X', 'X2', '12', 'W1', 'W2', 'BTS: yes', 'BTS: no', 'Odd', 'Even', 'П1', 'Х', 'П2', '1Х', 'Х2', 'П1 (с ОТ)', 'П2 (с ОТ)', 'ОЗ: да', 'ОЗ: нет', 'Нечёт', 'Чёт'].map((c) =>
    c.toLowerCase(),
  ),
);
const LAY_WORD = /^(?:lay|против)\s+/i;

/** The line market of `market` ("AH2(+0.25)", "Lay TO(2.5)"), or undefined for any other market. */
export function lineMarket(market: string): LineMarket | undefined {
  const text = market.trim();
  const lay = LAY_WORD.test(text);
  const m = /^(\S+?)\s*\(\s*([+\-−]?\d{1,3}(?:[.,]\d{1,2})?)\s*\)$/u.exec(text.replace(LAY_WORD, ''));
  if (!m) return undefined;
  const code = LINE_CODES[m[1]!.toUpperCase()] ?? LINE_CODES[m[1]!];
  if (!code) return undefined;
  const line = Number(m[2]!.replace('−', '-').replace(',', '.'));
  if (!Number.isFinite(line) || !Number.isInteger(line * 4)) return undefined;
  return { ...code, line, lay };
}

/** A line ending in .25 or .75: the stake is split over the two lines beside it. */
export const isQuarterLine = (line: number): boolean => Math.abs(Math.round(line * 4)) % 2 === 1;

/** A market of the dictionaries the bot knows the rules of (a line market or a fixed one). */
export function knownMarket(market: string): boolean {
  return lineMarket(market) !== undefined || FIXED_CODES.has(market.trim().replace(LAY_WORD, '').toLowerCase());
}

/**
 * Dead heat: ties share a place, and each tied selection is paid on stake × its share. Markets the
 * dictionaries name never dead-heat (a tie is a push or its own outcome); a market in the user's
 * own words (an outright, a top scorer, a placing) may.
 */
export const allowsDeadHeat = (market: string): boolean => !knownMarket(market);

const TURNED: Record<LegResult, LegResult> = { won: 'lost', half_won: 'half_lost', void: 'void', half_lost: 'half_won', lost: 'won', dead_heat: 'dead_heat' };

/** The result of a line leg when the score (total or home margin) is `score`. */
export function lineResult(m: LineMarket, score: number): LegResult {
  const d = m.score === 'margin' ? m.sense * score + m.line : m.sense * (score - m.line);
  const r: LegResult = d > 0.25 ? 'won' : d === 0.25 ? 'half_won' : d === 0 ? 'void' : d === -0.25 ? 'half_lost' : 'lost';
  return m.lay ? TURNED[r] : r;
}

/** Results best first, as buttons list them. */
export const RESULT_ORDER: readonly LegResult[] = ['won', 'half_won', 'dead_heat', 'void', 'half_lost', 'lost'];

/**
 * The results of a leg a user may pick alone (the edit's per-leg result buttons): on a line, those
 * the score can give (AH1(+0.25): won, half won, lost) and void (a match called off); on a fixed
 * market won, void, lost; on the user's own words anything, dead heat included.
 */
export function legResultChoices(leg: Pick<LedgerLeg, 'market'> & Partial<Pick<LedgerLeg, 'lay'>>): LegResult[] {
  const line = lineMarket(leg.market);
  if (line) {
    const m = { ...line, lay: line.lay || leg.lay === true };
    const edge = m.score === 'margin' ? -m.line * m.sense : m.line;
    const found = new Set<LegResult>(['void']);
    for (let s = Math.floor(edge) - 1; s <= Math.ceil(edge) + 1; s++) found.add(lineResult(m, s));
    return RESULT_ORDER.filter((r) => found.has(r));
  }
  if (knownMarket(leg.market)) return ['won', 'void', 'lost'];
  return ['won', 'half_won', 'void', 'half_lost', 'lost', 'dead_heat'];
}

/**
 * Every combination of results the legs of `p` can end with, when all its placed legs are line
 * markets on one score (legs in `p.legs` order; refused and open legs get null): the score run over
 * the integers from below the lowest line to above the highest. Undefined when the legs do not
 * share one score (the caller then offers results per outcome).
 */
export function lineCombos(p: Position): (LegResult | null)[][] | undefined {
  // A lay's market may say so ("Lay TO(2.5)") or not (a lay typed in /add): the leg's flag decides either way.
  const markets = p.legs.map((l) => {
    const m = l.status === 'placed' ? lineMarket(l.market) : undefined;
    return m && { ...m, lay: m.lay || l.lay };
  });
  const placed = p.legs.map((l, i) => ({ l, m: markets[i] })).filter(({ l }) => l.status === 'placed');
  if (placed.length === 0 || placed.some(({ m }) => m === undefined)) return undefined;
  const score = placed[0]!.m!.score;
  if (placed.some(({ m }) => m!.score !== score)) return undefined;
  // The margin where AH1(h) changes is −h; a total's at its line.
  const edges = placed.map(({ m }) => (m!.score === 'margin' ? -m!.line * m!.sense : m!.line));
  const from = Math.floor(Math.min(...edges)) - 1;
  const to = Math.ceil(Math.max(...edges)) + 1;
  if (to - from > 200) return undefined;
  const seen = new Set<string>();
  const combos: (LegResult | null)[][] = [];
  for (let s = from; s <= to; s++) {
    if (score !== 'margin' && s < 0) continue;
    const combo = p.legs.map((l, i) => (l.status === 'placed' && markets[i] ? lineResult(markets[i]!, s) : null));
    const key = combo.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      combos.push(combo);
    }
  }
  return combos;
}
