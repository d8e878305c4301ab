/**
 * Strict parsers for what users type: numbers, ranges, settings values. Each returns a typed
 * value or a problem that names a message key, so the answer is in the user's language and
 * nothing is changed on a bad input.
 */
import { z } from 'zod';
import { isValidTimeZone } from '../../alerts/time.js';
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
const numberText = z.string().regex(new RegExp(`^${NUM}$`));
const rangeRe = new RegExp(`^(${NUM})\\s*(?:(?:-|–|—|\\.\\.)\\s*(${NUM}))?$`);

function toNumber(text: string): number {
  return Number(text.replace(',', '.'));
}

/** A plain decimal number ("1.5", "2,5", "-3"); no exponents, no units. */
export function parseNumber(text: string): Parsed<number> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  if (!numberText.safeParse(value).success) return fail('bad_number', { value: clipEcho(value) });
  const n = toNumber(value);
  return Number.isFinite(n) ? ok(n) : fail('bad_number', { value: clipEcho(value) });
}

/**
 * Longest piece of the user's own text quoted back in an answer. Any longer word could be a
 * pasted secret (4 or more characters without spaces), and a prefix of it is a part of it, so a
 * longer text is not quoted at all.
 */
export const MAX_ECHO = 12;

/** The user's own text as an error may quote it (escaped later by `t`): short text whole, else "…". */
export function clipEcho(text: string): string {
  return text.length <= MAX_ECHO ? text : '…';
}

export interface RangeRules {
  /** The lowest value allowed (0 for profits of arbs, -100 for middles, 1 for odds). */
  lowest: number;
  highest: number;
  /** Message when a value is under `lowest`. */
  lowKey: MessageKey;
}

/** "1.5" (from 1.5) or "1.5-10" / "1.5–10" / "1.5..10" (from 1.5 to 10), checked against `rules`. */
export function parseRange(text: string, rules: RangeRules): Parsed<{ min: number; max: number | null }> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  const m = rangeRe.exec(value);
  if (!m?.[1]) return fail('bad_range', { value: clipEcho(value) });
  const min = toNumber(m[1]);
  const max = m[2] === undefined ? null : toNumber(m[2]);
  return checkBounds(min, max, rules);
}

/** Checks a (min, max) pair: inside the rules and not reversed. */
export function checkBounds(min: number, max: number | null, rules: RangeRules): Parsed<{ min: number; max: number | null }> {
  for (const v of [min, max]) {
    if (v === null) continue;
    if (!Number.isFinite(v)) return fail('bad_number', { value: clipEcho(String(v)) });
    if (v < rules.lowest) return fail(rules.lowKey, { value: clipEcho(String(v)), lowest: String(rules.lowest) });
    if (v > rules.highest) return fail('value_too_high', { value: clipEcho(String(v)), highest: String(rules.highest) });
  }
  if (max !== null && max < min) return fail('range_reversed', { min: clipEcho(String(min)), max: clipEcho(String(max)) });
  return ok({ min, max });
}

/** A positive number up to `highest` (hours to start, bankroll, rounding step). */
export function parsePositive(text: string, highest: number): Parsed<number> {
  const n = parseNumber(text);
  if (!n.ok) return n;
  if (n.value <= 0) return fail('must_be_positive', { value: clipEcho(String(n.value)) });
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

/** An IANA time zone, returned in its canonical spelling ("europe/moscow" → "Europe/Moscow"). */
export function parseTimeZone(text: string): Parsed<string> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(value) || !isValidTimeZone(value)) {
    return fail('bad_timezone', { value: clipEcho(value) });
  }
  try {
    return ok(new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone);
  } catch {
    return fail('bad_timezone', { value: clipEcho(value) });
  }
}

export const MAX_BANKROLL = 1_000_000_000;
export const MAX_STEP = 1_000_000;

const OFF_WORDS = new Set(['off', 'none', 'no', 'выкл', 'нет', 'выключить']);
const hhmm = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** "23:00-07:00" (over midnight is fine) or "off". */
export function parseQuietHours(text: string): Parsed<{ from: string; to: string } | null> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  if (OFF_WORDS.has(value.toLowerCase())) return ok(null);
  const parts = value.split(/\s*(?:-|–|—)\s*/);
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
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
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
  if (value.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  if (!/^[\w.:-]{1,100}$/.test(value) || !/[A-Za-z0-9]/.test(value)) return fail('bad_id', { value: clipEcho(value) });
  return ok(value);
}
