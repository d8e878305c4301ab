/**
 * Strict parsers for what users type: numbers, ranges, settings values. Each returns a typed
 * value or a problem that names a message key, so the answer is in the user's language and
 * nothing is changed on a bad input.
 */
import { z } from 'zod';
import type { MessageKey, Vars } from '../../locales/i18n.js';
import type { Lang } from '../../store/schema.js';

export interface Problem {
  key: MessageKey;
  vars?: Vars;
}
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: Problem };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T>(key: MessageKey, vars?: Vars): Parsed<T> => ({ ok: false, problem: vars ? { key, vars } : { key } });

/** Longest text accepted where a short value is expected. */
export const MAX_SHORT_TEXT = 200;

const NUM = '[+-]?\\d+(?:[.,]\\d+)?';
// A percentage as people type it: "3", "3%", "2,5 %" (a space before the sign too).
const PCT = '(?:\\s*%)?';
const numberText = z.string().regex(new RegExp(`^${NUM}$`));
const percentText = new RegExp(`^(${NUM})${PCT}$`);
const rangeRe = new RegExp(`^(${NUM})\\s*(?:(?:-|–|—|\\.\\.)\\s*(${NUM}))?$`);
// "1-3%", "1 % – 3 %", "1.5%": a sign after either number or both.
const percentRangeRe = new RegExp(`^(${NUM})${PCT}\\s*(?:(?:-|–|—|\\.\\.)\\s*(${NUM})${PCT})?$`);

function toNumber(text: string): number {
  return Number(text.replace(',', '.'));
}

/** A plain decimal number ("1.5", "2,5", "-3"); no exponents, no units. `example` shows the right kind in a refusal. */
export function parseNumber(text: string, example = '1.5'): Parsed<number> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  if (!numberText.safeParse(value).success) return fail('bad_number', { value: clipEcho(value), example });
  const n = toNumber(value);
  return Number.isFinite(n) ? ok(n) : fail('bad_number', { value: clipEcho(value), example });
}

/**
 * A percentage as people type it: "3", "3%", "2.5 %", "1,5%". The one parser of every value asked
 * in % (the builder's overvalue, the one-line profits, a bookmaker's commission), so a sign the
 * question itself prints is never refused. Bounds are the caller's.
 */
export function parsePercent(text: string, example = '1.5'): Parsed<number> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  const m = percentText.exec(value);
  if (!m?.[1]) return fail('bad_number', { value: clipEcho(value), example });
  const n = toNumber(m[1]);
  return Number.isFinite(n) ? ok(n) : fail('bad_number', { value: clipEcho(value), example });
}

// Spaces people put between digit groups: plain, no-break, thin and narrow no-break; and "'" (1'000).
const GROUP_SPACES = /[ \u00a0\u2009\u202f']/g;

/**
 * An amount of money as people write it: "1000", "1 000 000" (any space, thin or no-break too),
 * "1,000", "1.000.000", "1,000.50", "1.000,50", "2,5". With both "." and "," the last one is the
 * decimal mark; one mark followed by exactly three digits (after a first group that is not 0) is
 * a thousands mark, since money has at most two decimals; several of the same mark are thousands
 * marks. Anything else is refused, with `example` (an amount of the right kind) in the answer.
 */
export function parseAmount(text: string, highest: number, example: string): Parsed<number> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  const refuse = (): Parsed<number> => fail('bad_amount', { value: clipEcho(value), example });
  // Spaces only between digits: "1 000" yes, "1 ,5" or "- 5" no.
  if (/\s|'/.test(value.replace(/(\d)[ \u00a0\u2009\u202f'](?=\d{3}(?!\d))/g, '$1'))) return refuse();
  const compact = value.replace(GROUP_SPACES, '');
  const m = /^([+-]?)(\d[\d.,]*)$/.exec(compact);
  if (!m?.[2]) return refuse();
  const sign = m[1] === '-' ? -1 : 1;
  const body = m[2];
  const dots = body.split('.').length - 1;
  const commas = body.split(',').length - 1;
  let intPart: string;
  let fraction = '';
  if (dots > 0 && commas > 0) {
    const decimal = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    const at = body.lastIndexOf(decimal);
    if (body.slice(0, at).includes(decimal)) return refuse();
    intPart = body.slice(0, at);
    fraction = body.slice(at + 1);
    if (!groupsOk(intPart, group)) return refuse();
    intPart = intPart.split(group).join('');
  } else if (dots + commas === 0) {
    intPart = body;
  } else {
    const mark = dots > 0 ? '.' : ',';
    const parts = body.split(mark);
    const single = parts.length === 2;
    const thousands = !single || (parts[1]?.length === 3 && !/^0/.test(parts[0] ?? ''));
    if (thousands) {
      if (!groupsOk(body, mark)) return refuse();
      intPart = parts.join('');
    } else {
      intPart = parts[0] ?? '';
      fraction = parts[1] ?? '';
    }
  }
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(fraction) || (fraction === '' && /[.,]$/.test(body))) return refuse();
  const n = sign * Number(fraction === '' ? intPart : `${intPart}.${fraction}`);
  if (!Number.isFinite(n)) return refuse();
  if (n <= 0) return fail('must_be_positive', { value: clipEcho(value), example });
  if (n > highest) return fail('value_too_high', { value: clipEcho(value), highest: String(highest) });
  return ok(n);
}

/** "1,000,000" split on `mark`: a first group of 1–3 digits, then groups of exactly 3. */
function groupsOk(text: string, mark: string): boolean {
  const [first, ...rest] = text.split(mark);
  return /^\d{1,3}$/.test(first ?? '') && rest.every((g) => /^\d{3}$/.test(g));
}

/**
 * How the user's own text is quoted back in an error, so they see what was read. A text longer
 * than MAX_ECHO characters is cut there with "…" (still recognisable, never a wall of text).
 * One kind of word is never quoted, not even in part: a long one (more than SECRET_WORD
 * characters) that is neither a number nor a word as people write it — the shape of a pasted
 * access key or secret ("Zx9-looks-like-a-secret-42"), whose prefix is a part of it. It reads
 * as "…" in the quote; the rest of the text stays. Control and format characters are left out.
 */
export const MAX_ECHO = 40;
const SECRET_WORD = 12;
// A number as typed: digits and the marks of amounts, times and ranges ("99999999999999", "1,000.50", "23:00-07:00").
const NUMBER_WORD = /^[+\-−]?[\d.,:'’%\-–—]+$/u;
// A word as people write it: all lower case, Capitalised or all capitals, parts joined by "-" or "'" (Saint-Étienne).
const PLAIN_WORD = /^(?:\p{Lu}?[\p{Ll}\p{M}]+|[\p{Lu}\p{M}]+)(?:['’-](?:\p{Lu}?[\p{Ll}\p{M}]+|[\p{Lu}\p{M}]+))*[.,!?;:]?$/u;

function quotableWord(word: string): boolean {
  return [...word].length <= SECRET_WORD || NUMBER_WORD.test(word) || PLAIN_WORD.test(word);
}

/** The user's own text as an error quotes it (escaped later by `t`): see MAX_ECHO. */
export function clipEcho(text: string): string {
  const words = text.replace(/[\p{Cc}\p{Cf}]/gu, ' ').trim().split(/\s+/u).filter(Boolean);
  const shown = words.map((w) => (quotableWord(w) ? w : '…')).join(' ').replace(/…(?: …)+/g, '…');
  if (shown === '') return '…';
  const chars = [...shown];
  return chars.length <= MAX_ECHO ? shown : `${chars.slice(0, MAX_ECHO - 1).join('').trimEnd()}…`;
}

/** The answer to a text over `max` characters, quoting its start. */
export const tooLong = <T>(text: string, max: number): Parsed<T> => fail('too_long', { max, value: clipEcho(text) });

/** Longest id quoted whole; a longer one is quoted by its first 20 characters and "…". */
export const MAX_ID_ECHO = 24;

/**
 * An id (already checked by `parseId`) as an answer quotes it. Ids of the shapes the service
 * issues (event ids of digits, item ids of hex) are quoted, clipped at the end past MAX_ID_ECHO,
 * so the user sees which id was meant. Any other text keeps the `clipEcho` rule: it may be a
 * pasted secret, and a part of a secret must not be written back.
 */
export function clipId(id: string): string {
  if (!/^[0-9A-Fa-f]+$/.test(id)) return clipEcho(id);
  return id.length <= MAX_ID_ECHO ? id : `${id.slice(0, 20)}…`;
}

export interface RangeRules {
  /** The lowest value allowed (0 for profits of arbs, -100 for middles, 1 for odds). */
  lowest: number;
  highest: number;
  /** Message when a value is under `lowest`. */
  lowKey: MessageKey;
}

/**
 * "1.5" (from 1.5) or "1.5-10" / "1.5–10" / "1.5..10" (from 1.5 to 10), checked against `rules`;
 * with `percent`, a "%" after either number is read as `parsePercent` reads it ("1-3%").
 */
export function parseRange(text: string, rules: RangeRules, percent = false): Parsed<{ min: number; max: number | null }> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  const m = (percent ? percentRangeRe : rangeRe).exec(value);
  if (!m?.[1]) return fail('bad_range', { value: clipEcho(value) });
  const min = toNumber(m[1]);
  const max = m[2] === undefined ? null : toNumber(m[2]);
  return checkBounds(min, max, rules);
}

/** Checks a (min, max) pair: inside the rules and not reversed. */
export function checkBounds(min: number, max: number | null, rules: RangeRules): Parsed<{ min: number; max: number | null }> {
  for (const v of [min, max]) {
    if (v === null) continue;
    if (!Number.isFinite(v)) return fail('bad_number', { value: clipEcho(String(v)), example: '1.5' });
    if (v < rules.lowest) return fail(rules.lowKey, { value: clipEcho(String(v)), lowest: String(rules.lowest) });
    if (v > rules.highest) return fail('value_too_high', { value: clipEcho(String(v)), highest: String(rules.highest) });
  }
  if (max !== null && max < min) return fail('range_reversed', { min: clipEcho(String(min)), max: clipEcho(String(max)) });
  return ok({ min, max });
}

/** A positive number up to `highest` (hours to start); `example` shows the right kind in a refusal. */
export function parsePositive(text: string, highest: number, example = '1.5'): Parsed<number> {
  const n = parseNumber(text, example);
  if (!n.ok) return n;
  if (n.value <= 0) return fail('must_be_positive', { value: clipEcho(String(n.value)), example });
  if (n.value > highest) return fail('value_too_high', { value: clipEcho(String(n.value)), highest: String(highest) });
  return n;
}

// A Map, not an object: "constructor" or "__proto__" must not find Object.prototype's members.
const LANG_WORDS: ReadonlyMap<string, Lang> = new Map(Object.entries({
  en: 'en',
  eng: 'en',
  english: 'en',
  английский: 'en',
  ru: 'ru',
  rus: 'ru',
  russian: 'ru',
  русский: 'ru',
} satisfies Record<string, Lang>));

export function parseLang(text: string): Parsed<Lang> {
  const value = text.trim().toLowerCase();
  const lang = LANG_WORDS.get(value);
  return lang ? ok(lang) : fail('bad_lang', { value: clipEcho(text.trim()) });
}

export const MAX_BANKROLL = 1_000_000_000;
export const MAX_STEP = 1_000_000;

const OFF_WORDS = new Set(['off', 'none', 'no', 'выкл', 'нет', 'выключить']);
// "23", "23:00", "7.30", "0730"? no: an hour, optionally with ":" or "." and minutes.
const hhmm = /^([01]?\d|2[0-3])(?:[:.]([0-5]\d))?$/;

/** "23:00-07:00", "23-7", "23.00 – 7.00" (over midnight is fine), "с 23 до 7", or "off". */
export function parseQuietHours(text: string): Parsed<{ from: string; to: string } | null> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  if (OFF_WORDS.has(value.toLowerCase())) return ok(null);
  const words = /^(?:from|с)\s+(\S+)\s+(?:to|till|until|до|по)\s+(\S+)$/i.exec(value);
  const parts = words ? [words[1] ?? '', words[2] ?? ''] : value.split(/\s*(?:-|–|—|\.\.)\s*/);
  if (parts.length !== 2) return fail('bad_quiet', { value: clipEcho(value) });
  const [a, b] = parts.map((p) => hhmm.exec(p));
  if (!a || !b) return fail('bad_quiet', { value: clipEcho(value) });
  const pad = (m: RegExpExecArray) => `${(m[1] ?? '').padStart(2, '0')}:${m[2] ?? '00'}`;
  const from = pad(a);
  const to = pad(b);
  if (from === to) return fail('quiet_same', { value: from });
  return ok({ from, to });
}

export type ChatTarget = { kind: 'here' } | { kind: 'id'; id: number } | { kind: 'username'; username: string };
const HERE_WORDS = new Set(['here', 'this', 'me', 'private', 'здесь', 'тут', 'сюда']);

/** Where alerts go: "here", a chat id (-100…) or a public @username. */
export function parseChatTarget(text: string): Parsed<ChatTarget> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  if (HERE_WORDS.has(value.toLowerCase())) return ok({ kind: 'here' });
  if (/^-?\d{1,16}$/.test(value)) return ok({ kind: 'id', id: Number(value) });
  if (/^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(value)) return ok({ kind: 'username', username: value });
  return fail('bad_chat_target', { value: clipEcho(value) });
}

/**
 * An item or event id as the service writes them: letters, digits and `._:-`, at most 100
 * characters, at least one letter or digit (an id of dots only would be a step up in a URL path).
 */
export function parseId(text: string): Parsed<string> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  if (!/^[\w.:-]{1,100}$/.test(value) || !/[A-Za-z0-9]/.test(value)) return fail('bad_id', { value: clipEcho(value) });
  return ok(value);
}
