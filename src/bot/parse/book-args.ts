/**
 * `/book <bookmaker id or name> [commission=N] [max=N] [min=N] [step=N] [status=ok|limited|closed]`
 * and `/book <bookmaker> reset`, read into a checked change of the user's settings for one
 * bookmaker. The bookmaker is found in the dictionaries by id, by its whole name, or by a part of
 * its name that only one bookmaker has (an exchange wins over its own sportsbook: "betfair" is the
 * exchange). Every problem names a message key; nothing here touches the store.
 */
import { isKnownExchange } from '../../alerts/leg-pricing.js';
import { BOOK_LIMITS, BOOK_STATUSES, type BookSettings, type BookStatus } from '../../store/book-settings.js';
import { clipEcho, fail, MAX_SHORT_TEXT, ok, parseNumber, type Parsed } from './values.js';

export type BookChange = { bookmakerId: number; name: string; reset: true } | { bookmakerId: number; name: string; reset: false; set: BookSettings };

const OPTIONS = ['commission', 'max', 'min', 'step', 'status'] as const;
type Option = (typeof OPTIONS)[number];

/** The bookmaker a user typed: an id, a whole name, or a part only one name has (exchanges first). */
export function findBookmaker(query: string, bookmakers: Readonly<Record<string, string>>): Parsed<{ id: number; name: string }> {
  const q = query.trim().toLowerCase();
  if (q === '') return fail('book_usage');
  if (/^\d{1,9}$/.test(q)) {
    const name = bookmakers[q];
    return name === undefined ? fail('book_unknown', { value: clipEcho(query) }) : ok({ id: Number(q), name });
  }
  const all = Object.entries(bookmakers);
  const exact = all.filter(([, name]) => name.toLowerCase() === q);
  let found = exact.length > 0 ? exact : all.filter(([, name]) => name.toLowerCase().includes(q));
  // One brand's exchange and sportsbook ("Betfair Exchange", "Betfair Sportsbook"): the word means the exchange.
  const brand = (name: string) => name.toLowerCase().split(/\s+/)[0] ?? '';
  const exchanges = found.filter(([, name]) => isKnownExchange(name));
  const [exchange] = exchanges;
  if (found.length > 1 && exchanges.length === 1 && exchange && found.every(([, name]) => brand(name) === brand(exchange[1]))) found = exchanges;
  const [only] = found;
  if (found.length === 1 && only) return ok({ id: Number(only[0]), name: only[1] });
  if (found.length === 0) return fail('book_unknown', { value: clipEcho(query) });
  return fail('book_ambiguous', { names: found.slice(0, 6).map(([id, name]) => `${name} (${id})`).join(', ') });
}

/** Reads the text after `/book`. */
export function parseBookArgs(text: string, bookmakers: Readonly<Record<string, string>>): Parsed<BookChange> {
  const line = text.trim();
  if (line === '') return fail('book_usage');
  if (line.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  const words = line.split(/\s+/);
  const first = words.findIndex((w) => w.includes('=') || w.toLowerCase() === 'reset');
  const nameWords = first < 0 ? words : words.slice(0, first);
  const rest = first < 0 ? [] : words.slice(first);
  const book = findBookmaker(nameWords.join(' '), bookmakers);
  if (!book.ok) return book;
  const { id, name } = book.value;
  if (rest.length === 0) return fail('book_nothing_to_set', { name });
  if (rest.some((w) => w.toLowerCase() === 'reset')) {
    return rest.length === 1 ? ok({ bookmakerId: id, name, reset: true }) : fail('book_reset_alone');
  }
  const set: BookSettings = {};
  const seen = new Set<Option>();
  for (const word of rest) {
    const eq = word.indexOf('=');
    const key = word.slice(0, eq).toLowerCase();
    const value = word.slice(eq + 1);
    if (eq < 0 || !(OPTIONS as readonly string[]).includes(key)) return fail('book_unknown_option', { value: clipEcho(word) });
    const option = key as Option;
    if (seen.has(option)) return fail('book_option_twice', { value: option });
    seen.add(option);
    if (option === 'status') {
      const status = value.toLowerCase();
      if (!(BOOK_STATUSES as readonly string[]).includes(status)) return fail('book_bad_status', { value: clipEcho(value) });
      set.status = status as BookStatus;
      continue;
    }
    const one = parseBookValue(option, value);
    if (!one.ok) return one;
    Object.assign(set, one.value);
  }
  return ok({ bookmakerId: id, name, reset: false, set });
}

/** One amount setting (`commission=2`'s "2"), checked as the one-line form checks it. */
export function parseBookValue(option: 'commission' | 'max' | 'min' | 'step', value: string): Parsed<BookSettings> {
  const n = parseNumber(value);
  if (!n.ok) return n;
  if (option === 'commission') {
    if (n.value < 0 || n.value > BOOK_LIMITS.commissionMax) return fail('book_bad_commission', { max: BOOK_LIMITS.commissionMax });
    return ok({ commission: n.value });
  }
  if (!(n.value > 0) || n.value > BOOK_LIMITS.amountMax) return fail('book_bad_amount', { option });
  // Cents at most: a step of 0.001 is no stake a bookmaker takes.
  if (Math.round(n.value * 100) !== n.value * 100 && Math.abs(Math.round(n.value * 100) - n.value * 100) > 1e-6) {
    return fail('book_bad_amount', { option });
  }
  return ok({ [option]: n.value });
}

/**
 * The user's settings with `change` applied: a reset (or a change that leaves nothing but the
 * defaults) removes the bookmaker. Undefined, with the problem's key, when min would exceed max.
 */
export function applyBookChange(
  books: Readonly<Record<string, BookSettings>>,
  change: BookChange,
): Parsed<Record<string, BookSettings>> {
  const key = String(change.bookmakerId);
  const next: Record<string, BookSettings> = { ...books };
  if (change.reset) {
    delete next[key];
    return ok(next);
  }
  const merged: BookSettings = { ...books[key], ...change.set };
  if (merged.min !== undefined && merged.max !== undefined && merged.min > merged.max) {
    return fail('book_min_over_max', { min: merged.min, max: merged.max });
  }
  const isEmpty =
    merged.commission === undefined && merged.max === undefined && merged.min === undefined && merged.step === undefined && (merged.status ?? 'ok') === 'ok';
  if (isEmpty) delete next[key];
  else next[key] = merged;
  return ok(next);
}
