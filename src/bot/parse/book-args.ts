/**
 * `/book <bookmaker id or name> [commission=N] [max=N] [min=N] [step=N] [status=ok|limited|closed]`
 * and `/book <bookmaker> reset`, read into a checked change of the user's settings for one
 * bookmaker. The bookmaker is found in the dictionaries by id, by its whole name, or by a part of
 * its name that only one bookmaker has (an exchange wins over its own sportsbook: "betfair" is the
 * exchange); `findBookmaker` is the one reader of a typed bookmaker name. Every problem names a
 * message key and quotes what was typed; nothing here touches the store.
 */
import { isKnownExchange } from '../../alerts/leg-pricing.js';
import { BOOK_LIMITS, BOOK_STATUSES, type BookSettings, type BookStatus } from '../../store/book-settings.js';
import { fmtMoney } from '../../alerts/printed.js';
import { matchName, nameKey } from './dict-names.js';
import { clipEcho, fail, MAX_SHORT_TEXT, ok, parseNumber, parsePercent, tooLong, type Parsed } from './values.js';

export type BookChange = { bookmakerId: number; name: string; reset: true } | { bookmakerId: number; name: string; reset: false; set: BookSettings };

const OPTIONS = ['commission', 'max', 'min', 'step', 'status'] as const;
type Option = (typeof OPTIONS)[number];

/**
 * The bookmaker a user typed, wherever one is typed (/book, /books, a hedge placed elsewhere): an
 * id, a whole name, or a part only one name has (exchanges first), read in `bookmakers` (the
 * user's language) and `alt` (English; the name returned is the one in `bookmakers`). Case, spaces
 * and punctuation do not count. Anything else is refused with "did you mean" when a name is near.
 */
export function findBookmaker(
  query: string,
  bookmakers: Readonly<Record<string, string>>,
  alt?: Readonly<Record<string, string>>,
): Parsed<{ id: number; name: string }> {
  const trimmed = query.trim();
  const q = nameKey(trimmed);
  if (trimmed === '') return fail('book_usage');
  if (/^\d{1,9}$/.test(trimmed)) {
    const name = bookmakers[trimmed];
    return name === undefined ? fail('book_unknown', { value: clipEcho(trimmed) }) : ok({ id: Number(trimmed), name });
  }
  const lists = [bookmakers, ...(alt ? [alt] : [])];
  const named = (pick: (key: string) => boolean): [string, string][] => {
    const ids = new Set(lists.flatMap((dict) => Object.entries(dict).filter(([, name]) => pick(nameKey(name))).map(([id]) => id)));
    return [...ids].filter((id) => bookmakers[id] !== undefined && Number.isSafeInteger(Number(id))).map((id) => [id, bookmakers[id] ?? id]);
  };
  const exact = q === '' ? [] : named((key) => key === q);
  let found = exact.length > 0 || q === '' ? exact : named((key) => key.includes(q));
  // One brand's exchange and sportsbook ("Betfair Exchange", "Betfair Sportsbook"): the word means the exchange.
  const brand = (name: string) => name.toLowerCase().split(/\s+/)[0] ?? '';
  const exchanges = found.filter(([, name]) => isKnownExchange(name));
  const [exchange] = exchanges;
  if (found.length > 1 && exchanges.length === 1 && exchange && found.every(([, name]) => brand(name) === brand(exchange[1]))) found = exchanges;
  const [only] = found;
  if (found.length === 1 && only) return ok({ id: Number(only[0]), name: only[1] });
  if (found.length > 1) return fail('book_ambiguous', { names: found.slice(0, 6).map(([id, name]) => `${name} (${id})`).join(', ') });
  const near = matchName(trimmed, lists);
  if (!near.ok && near.suggestions.length > 0) return fail('book_unknown_guess', { value: clipEcho(trimmed), list: near.suggestions.join(', ') });
  return fail('book_unknown', { value: clipEcho(trimmed) });
}

/** Reads the text after `/book`. */
export function parseBookArgs(text: string, bookmakers: Readonly<Record<string, string>>, alt?: Readonly<Record<string, string>>): Parsed<BookChange> {
  const line = text.trim();
  if (line === '') return fail('book_usage');
  if (line.length > MAX_SHORT_TEXT) return tooLong(line, MAX_SHORT_TEXT);
  const words = line.split(/\s+/);
  const first = words.findIndex((w) => w.includes('=') || w.toLowerCase() === 'reset');
  const nameWords = first < 0 ? words : words.slice(0, first);
  const rest = first < 0 ? [] : words.slice(first);
  const book = findBookmaker(nameWords.join(' '), bookmakers, alt);
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

/** One amount setting (`commission=2`'s "2"), checked as the one-line form checks it; a refusal quotes what was typed. */
export function parseBookValue(option: 'commission' | 'max' | 'min' | 'step', value: string): Parsed<BookSettings> {
  const typed = clipEcho(value.trim());
  if (option === 'commission') {
    const n = parsePercent(value, '2');
    if (!n.ok) return n;
    if (n.value < 0 || n.value > BOOK_LIMITS.commissionMax) return fail('book_bad_commission', { value: typed, max: BOOK_LIMITS.commissionMax });
    // Two decimals of a per cent, as the alerts print it and their maths use it (docs/maths.md).
    return ok({ commission: Math.round(n.value * 100) / 100 });
  }
  const n = parseNumber(value, '300');
  if (!n.ok) return n;
  // A long number is quoted as the number it is (digits are no pasted secret; clipEcho would say "…").
  const shown = typed === '…' ? String(n.value).slice(0, 24) : typed;
  if (!(n.value > 0)) return fail('book_bad_amount', { option, value: shown });
  if (n.value > BOOK_LIMITS.amountMax) return fail('book_amount_too_large', { option, value: shown, max: fmtMoney(BOOK_LIMITS.amountMax, { whole: true }) });
  // Cents at most: a step of 0.001 is no stake a bookmaker takes.
  if (Math.abs(Math.round(n.value * 100) - n.value * 100) > 1e-6) return fail('book_amount_cents', { option, value: shown });
  return ok({ [option]: n.value });
}

/**
 * The user's settings with `change` applied: a reset (or a change that leaves nothing but the
 * defaults) removes the bookmaker. Undefined, with the problem's key, when min would exceed max.
 */
export function applyBookChange(
  books: Readonly<Record<string, BookSettings>>,
  change: BookChange,
  roundingStep?: number,
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
  // A back stake is a multiple of the step (the bookmaker's own, else the user's rounding step):
  // a max under it leaves no stake at all. (An exchange's lay stakes have their own step, so
  // there only its own step counts.)
  const step = merged.step ?? (isKnownExchange(change.name) ? undefined : roundingStep);
  if (merged.max !== undefined && step !== undefined && merged.max < step) {
    return fail(merged.step === undefined ? 'book_max_under_user_step' : 'book_max_under_step', { name: change.name, max: fmtMoney(merged.max, { whole: true }), step: fmtMoney(step, { whole: true }) });
  }
  const isEmpty =
    merged.commission === undefined && merged.max === undefined && merged.min === undefined && merged.step === undefined && (merged.status ?? 'ok') === 'ok';
  if (isEmpty) delete next[key];
  else next[key] = merged;
  return ok(next);
}
