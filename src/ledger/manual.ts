/**
 * /add: a position placed outside any alert, read from what the user typed. One line holds one or
 * more legs separated by `;` and, anywhere, the event in quotes:
 *
 *   pinnacle W1 2.10 100 "Team A — Team B"
 *   pinnacle over 2.5 1.95 100; betfair lay TO(2.5) 2.02 100 "A — B"
 *
 * Each leg: the bookmaker (matched to the dictionaries by the caller's `findBook`), the market in
 * words or as a code, the odds, the stake, and "lay" (before the market or after the stake) for a
 * lay bet. Markets said in words become the dictionaries' codes in the user's language ("over 2.5"
 * → TO(2.5) / ТБ(2.5)), so a quarter line settles with its half results; other words are kept as
 * typed. Every value is checked with zod; every problem names a message key and quotes the input.
 */
import { z } from 'zod';
import { makeLeg, MAX_MONEY, MAX_ODDS, positionSchema, type Position } from './model.js';

export type AddLang = 'en' | 'ru';

/** A bookmaker found by name: its dictionary name and the user's commission there (a fraction). */
export type FoundBook = { ok: true; name: string; commission: number } | { ok: false; key: 'add_book_unknown' | 'add_book_ambiguous'; names?: string };

export interface ManualLeg {
  bookmaker: string;
  commission: number;
  market: string;
  odds: number;
  stake: number;
  lay: boolean;
}

export type AddError = { key: string; vars: Record<string, string | number> };
export type Parsed<T> = { ok: true; value: T } | ({ ok: false } & AddError);

const fail = (key: string, vars: Record<string, string | number> = {}): { ok: false } & AddError => ({ ok: false, key, vars });
const echo = (s: string): string => (s.length > 60 ? `${s.slice(0, 59)}…` : s);

const legSchema = z.object({
  odds: z.number().gt(1).max(MAX_ODDS),
  stake: z.number().gt(0).max(MAX_MONEY),
  market: z.string().trim().min(1).max(120),
});

/** Codes in both languages, by what they mean; `%s` is the line. */
const CODES: Record<string, { en: string; ru: string }> = {
  home: { en: '1', ru: 'П1' },
  draw: { en: 'X', ru: 'Х' },
  away: { en: '2', ru: 'П2' },
  homeDraw: { en: '1X', ru: '1Х' },
  drawAway: { en: 'X2', ru: 'Х2' },
  noDraw: { en: '12', ru: '12' },
  w1: { en: 'W1', ru: 'П1 (с ОТ)' },
  w2: { en: 'W2', ru: 'П2 (с ОТ)' },
  over: { en: 'TO(%s)', ru: 'ТБ(%s)' },
  under: { en: 'TU(%s)', ru: 'ТМ(%s)' },
  over1: { en: 'ITO1(%s)', ru: 'ИТБ1(%s)' },
  under1: { en: 'ITU1(%s)', ru: 'ИТМ1(%s)' },
  over2: { en: 'ITO2(%s)', ru: 'ИТБ2(%s)' },
  under2: { en: 'ITU2(%s)', ru: 'ИТМ2(%s)' },
  ah1: { en: 'AH1(%s)', ru: 'Ф1(%s)' },
  ah2: { en: 'AH2(%s)', ru: 'Ф2(%s)' },
  btsYes: { en: 'BTS: yes', ru: 'ОЗ: да' },
  btsNo: { en: 'BTS: no', ru: 'ОЗ: нет' },
  odd: { en: 'Odd', ru: 'Нечёт' },
  even: { en: 'Even', ru: 'Чёт' },
};

/** Words (lower case, spaces squeezed) for each fixed market. */
const FIXED_WORDS: Record<string, string> = {
  '1': 'home', home: 'home', 'home win': 'home', 'п1': 'home', 'победа хозяев': 'home',
  x: 'draw', 'х': 'draw', draw: 'draw', 'ничья': 'draw',
  '2': 'away', away: 'away', 'away win': 'away', 'п2': 'away', 'победа гостей': 'away',
  '1x': 'homeDraw', '1х': 'homeDraw', x2: 'drawAway', 'х2': 'drawAway', '12': 'noDraw',
  w1: 'w1', 'п1 (с от)': 'w1', w2: 'w2', 'п2 (с от)': 'w2',
  'bts yes': 'btsYes', 'bts: yes': 'btsYes', 'btts yes': 'btsYes', 'оз да': 'btsYes', 'оз: да': 'btsYes',
  'bts no': 'btsNo', 'bts: no': 'btsNo', 'btts no': 'btsNo', 'оз нет': 'btsNo', 'оз: нет': 'btsNo',
  odd: 'odd', 'нечёт': 'odd', 'нечет': 'odd', even: 'even', 'чёт': 'even', 'чет': 'even',
};

/** Words before a line, for each line market. */
const LINE_WORDS: Record<string, string> = {
  to: 'over', over: 'over', o: 'over', 'тб': 'over', 'больше': 'over',
  tu: 'under', under: 'under', u: 'under', 'тм': 'under', 'меньше': 'under',
  ito1: 'over1', 'итб1': 'over1', itu1: 'under1', 'итм1': 'under1', ito2: 'over2', 'итб2': 'over2', itu2: 'under2', 'итм2': 'under2',
  ah1: 'ah1', h1: 'ah1', 'ф1': 'ah1', 'handicap 1': 'ah1', ah2: 'ah2', h2: 'ah2', 'ф2': 'ah2', 'handicap 2': 'ah2',
};

/** The market as the dictionaries write it in `lang` when the words name one; else the words as typed. */
export function marketCode(words: string, lang: AddLang): string {
  const text = words.trim().replace(/\s+/g, ' ');
  const low = text.toLowerCase();
  const fixed = FIXED_WORDS[low];
  if (fixed) return CODES[fixed]![lang];
  const m = /^(.+?)\s*\(?\s*([+\-−]?\d{1,3}(?:[.,]\d{1,2})?)\s*\)?$/u.exec(low);
  const kind = m ? LINE_WORDS[m[1]!.trim()] : undefined;
  if (m && kind) {
    const n = Number(m[2]!.replace('−', '-').replace(',', '.'));
    const line = kind.startsWith('ah') && n > 0 ? `+${n}` : String(n);
    return CODES[kind]![lang].replace('%s', line);
  }
  return text;
}

const NUMBER = /^\d{1,9}(?:[.,]\d{1,4})?$/;
const num = (s: string): number => Number(s.replace(',', '.'));
const LAY = /^(?:lay|против)$/i;

/** One leg's words (the event already taken out). */
export function parseLeg(text: string, lang: AddLang, findBook: (name: string) => FoundBook): Parsed<ManualLeg> {
  let words = text.trim().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return fail('add_leg_empty');
  let lay = false;
  const lastWord = words[words.length - 1]!.toLowerCase();
  if (LAY.test(lastWord) || lastWord === 'back' || lastWord === 'за') {
    lay = LAY.test(lastWord);
    words = words.slice(0, -1);
  }
  const numbers = words.map((w) => NUMBER.test(w));
  const n = words.length;
  if (n < 4 || !numbers[n - 1] || !numbers[n - 2]) return fail('add_leg_shape', { value: echo(text.trim()) });
  const odds = num(words[n - 2]!);
  const stake = num(words[n - 1]!);
  const before = words.slice(0, n - 2);
  // The longest run of first words that names one bookmaker; the rest is the market.
  let found: FoundBook | undefined;
  let split = 0;
  for (let k = before.length - 1; k >= 1; k--) {
    const r = findBook(before.slice(0, k).join(' '));
    if (r.ok) {
      found = r;
      split = k;
      break;
    }
    if (k === 1) found = r;
  }
  if (!found?.ok) {
    const first = before[0] ?? '';
    return fail(found?.key ?? 'add_book_unknown', { value: echo(first), names: found && !found.ok ? (found.names ?? '') : '' });
  }
  let marketWords = before.slice(split);
  if (marketWords.length > 0 && LAY.test(marketWords[0]!)) {
    lay = true;
    marketWords = marketWords.slice(1);
  }
  const market = marketCode(marketWords.join(' '), lang);
  const checked = legSchema.safeParse({ odds, stake, market });
  if (!checked.success) {
    const field = String(checked.error.issues[0]?.path[0] ?? 'market');
    if (field === 'odds') return fail('add_bad_odds', { value: words[n - 2]!, max: MAX_ODDS });
    if (field === 'stake') return fail('add_bad_stake', { value: words[n - 1]!, max: MAX_MONEY });
    return fail('add_bad_market', { value: echo(marketWords.join(' ')) });
  }
  return { ok: true, value: { bookmaker: found.name, commission: found.commission, market: checked.data.market, odds, stake, lay } };
}

/** The event in quotes ("…", «…», “…”) and the rest of the line. */
export function takeEvent(line: string): { event: string; rest: string } {
  const m = /["«“„]([^"»”“]{0,200})["»”“]/u.exec(line);
  if (!m) return { event: '', rest: line };
  return { event: m[1]!.trim(), rest: `${line.slice(0, m.index)} ${line.slice(m.index + m[0].length)}` };
}

/** A whole /add line: up to 16 legs separated by `;`, and the event. */
export function parseAddLine(line: string, lang: AddLang, findBook: (name: string) => FoundBook): Parsed<{ event: string; legs: ManualLeg[] }> {
  if (line.length > 1_000) return fail('add_too_long', { max: 1_000 });
  const { event, rest } = takeEvent(line);
  const parts = rest.split(';').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) return fail('add_usage');
  if (parts.length > 16) return fail('add_too_many_legs', { n: parts.length });
  const legs: ManualLeg[] = [];
  for (const [i, part] of parts.entries()) {
    const leg = parseLeg(part, lang, findBook);
    if (!leg.ok) return parts.length > 1 ? { ...leg, vars: { ...leg.vars, leg: i + 1 } } : leg;
    legs.push(leg.value);
  }
  return { ok: true, value: { event, legs } };
}

/** The service name of positions added by hand (shown as such in /pnl and the CSV). */
export const MANUAL_SERVICE = 'manual';

/**
 * The position of an /add: one leg is a single bet (settled won / half / void / lost like a
 * valuebet); several are legs of one position, each its own outcome, settled like an arb's.
 */
export function manualPosition(id: string, now: number, event: string, legs: readonly ManualLeg[], currency = ''): Position {
  return positionSchema.parse({
    id,
    kind: legs.length === 1 ? 'valuebets' : 'arbs',
    service: MANUAL_SERVICE,
    itemId: `${MANUAL_SERVICE}-${id}`,
    eventId: '',
    event: event.slice(0, 200),
    placedAt: now,
    currency: currency.slice(0, 8),
    legs: legs.map((l, i) => makeLeg({ outcome: i, bookmaker: l.bookmaker, market: l.market, odds: l.odds, stake: l.stake, commission: l.commission, lay: l.lay })),
  });
}
