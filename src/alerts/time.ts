/**
 * Times as the user reads them: start times in their own time zone, countdowns, durations and
 * quiet hours. Everything takes the time as an argument (never `Date.now()`), so the scheduler's
 * injected clock drives it and tests are exact.
 */
import type { Lang } from '../store/schema.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Unit words per language; the short forms are what people write in chat. */
const UNITS = {
  en: {
    d: 'd',
    h: 'h',
    min: 'min',
    s: 's',
    in: 'in',
    ago: 'ago',
    started: 'started',
    live: 'live',
    now: 'starting now',
    justStarted: 'just started',
  },
  ru: {
    d: 'д',
    h: 'ч',
    min: 'мин',
    s: 'с',
    in: 'через',
    ago: 'назад',
    started: 'началось',
    live: 'лайв',
    now: 'начинается',
    justStarted: 'только что началось',
  },
} as const;

/**
 * Intl formatters are slow to build and an alert needs one per (language, zone): keep them, but
 * bounded, since time zones come from users.
 */
const formatterCache = new Map<string, Intl.DateTimeFormat>();
const FORMATTER_CACHE_MAX = 256;

function formatter(key: string, build: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let f = formatterCache.get(key);
  if (!f) {
    if (formatterCache.size >= FORMATTER_CACHE_MAX) formatterCache.clear();
    f = build();
    formatterCache.set(key, f);
  }
  return f;
}

/**
 * Answers of `isValidTimeZone` by zone name. The check builds an Intl formatter, which costs far
 * more than the alert it guards, and every alert asks again for the same few zones; the answer
 * never changes within a process (the runtime's tz data is fixed). Bounded like the formatters,
 * since the names come from users.
 */
const zoneValidity = new Map<string, boolean>();
const ZONE_VALIDITY_MAX = 1024;

/** True when `tz` is an IANA time zone name this runtime knows ("Europe/Moscow", "UTC"). */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64 || tz.trim() !== tz) return false;
  const known = zoneValidity.get(tz);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    valid = true;
  } catch {
    valid = false;
  }
  if (zoneValidity.size >= ZONE_VALIDITY_MAX) zoneValidity.clear();
  zoneValidity.set(tz, valid);
  return valid;
}

/** The zone to use: the user's when valid, else UTC (a stored zone can outlive a runtime's tz data). */
function safeZone(tz: string): string {
  return isValidTimeZone(tz) ? tz : 'UTC';
}

/**
 * A start time in the user's zone: "Sat 3 Jan 12:00" (en) / "сб 3 янв 12:00" (ru), 24-hour clock.
 * An invalid zone falls back to UTC rather than failing an alert.
 */
export function formatStart(ms: number, timeZone: string, lang: Lang): string {
  const zone = safeZone(timeZone);
  const locale = lang === 'ru' ? 'ru-RU' : 'en-GB';
  // Events start at the same few moments, and every alert and edit of an item names its start.
  const key = `${locale}|${zone}|${ms}`;
  const known = startTexts.get(key);
  if (known !== undefined) return known;
  const text = formatStartAnew(ms, zone, locale);
  if (startTexts.size >= START_TEXTS_MAX) startTexts.clear();
  startTexts.set(key, text);
  return text;
}

/** Start texts by locale, zone and time (a pure function of the three); bounded, like the formatters. */
const startTexts = new Map<string, string>();
const START_TEXTS_MAX = 4096;

function formatStartAnew(ms: number, zone: string, locale: string): string {
  const f = formatter(`start|${locale}|${zone}`, () =>
    new Intl.DateTimeFormat(locale, {
      timeZone: zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }),
  );
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = p.value;
  // ICU abbreviates with a dot in Russian ("янв.", "сб"); the compact form reads better in an alert.
  const clean = (s: string | undefined) => (s ?? '').replace(/\.$/, '');
  return `${clean(parts.weekday)} ${parts.day ?? ''} ${clean(parts.month)} ${parts.hour ?? ''}:${parts.minute ?? ''}`;
}

/** "2 h 05 min", "45 min", "1 d 3 h" — the span part of a countdown, whole minutes. */
function span(ms: number, lang: Lang): string {
  const u = UNITS[lang];
  const totalMin = Math.floor(ms / MINUTE);
  if (ms >= DAY) {
    const days = Math.floor(ms / DAY);
    const hours = Math.floor((ms % DAY) / HOUR);
    return hours > 0 ? `${days} ${u.d} ${hours} ${u.h}` : `${days} ${u.d}`;
  }
  if (ms >= HOUR) {
    const hours = Math.floor(totalMin / 60);
    const min = totalMin % 60;
    return `${hours} ${u.h} ${String(min).padStart(2, '0')} ${u.min}`;
  }
  return `${totalMin} ${u.min}`;
}

/**
 * How far away a start is: "in 2 h 05 min" / "через 2 ч 05 мин" for the future, "started 12 min
 * ago" / "началось 12 мин назад" for the past, "live" / "лайв" when `live` is set.
 * `msFromNow` is start − now.
 */
export function formatCountdown(msFromNow: number, lang: Lang, live = false): string {
  const u = UNITS[lang];
  if (live) return u.live;
  if (!Number.isFinite(msFromNow)) return '';
  if (msFromNow >= 0) {
    if (msFromNow < MINUTE) return u.now;
    return `${u.in} ${span(msFromNow, lang)}`;
  }
  const ago = -msFromNow;
  if (ago < MINUTE) return u.justStarted;
  return `${u.started} ${span(ago, lang)} ${u.ago}`;
}

/**
 * A length of time: "4 min 10 s" / "4 мин 10 с"; "35 s"; "1 h 05 min"; "2 d 3 h". Negative or
 * invalid input reads "0 s".
 */
export function formatDuration(ms: number, lang: Lang): string {
  const u = UNITS[lang];
  const safe = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (safe >= HOUR) return span(safe, lang);
  const totalSec = Math.floor(safe / 1000);
  const min = Math.floor(totalSec / 60);
  const sec = totalSec % 60;
  if (min === 0) return `${sec} ${u.s}`;
  return sec === 0 ? `${min} ${u.min}` : `${min} ${u.min} ${sec} ${u.s}`;
}

/** Quiet hours as stored: "HH:MM" local times; `from` > `to` means the range crosses midnight. */
export interface QuietHours {
  from: string;
  to: string;
}

function parseHhmm(s: string): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** Minutes since local midnight (0..1439) and the seconds/ms past that minute, in `timeZone`. */
function localClock(nowMs: number, timeZone: string): { minutes: number; subMinuteMs: number } {
  const zone = safeZone(timeZone);
  const f = formatter(`hm|${zone}`, () =>
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
  );
  let hour = 0;
  let minute = 0;
  for (const p of f.formatToParts(nowMs)) {
    if (p.type === 'hour') hour = Number(p.value);
    else if (p.type === 'minute') minute = Number(p.value);
  }
  // Zones are offset by whole minutes, so the part past the minute is the same everywhere.
  const subMinuteMs = ((nowMs % MINUTE) + MINUTE) % MINUTE;
  return { minutes: hour * 60 + minute, subMinuteMs };
}

function inRange(minutes: number, from: number, to: number): boolean {
  if (from === to) return false; // an empty range: "22:00–22:00" never silences anything
  return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
}

/**
 * True when `nowMs` falls within the quiet hours in the user's zone. The range is [from, to):
 * "23:00–07:00" crosses midnight; equal ends mean no quiet time; `null` means off.
 */
export function isQuietNow(quiet: QuietHours | null, timeZone: string, nowMs: number): boolean {
  if (!quiet) return false;
  const from = parseHhmm(quiet.from);
  const to = parseHhmm(quiet.to);
  if (from === undefined || to === undefined) return false;
  return inRange(localClock(nowMs, timeZone).minutes, from, to);
}

/**
 * When the current quiet period ends (ms since the epoch), or `null` when it is not quiet now.
 * Lets the caller hold alerts until then. A daylight-saving change inside the period is
 * accounted for by checking the local time at the computed end once and correcting.
 */
export function quietUntil(quiet: QuietHours | null, timeZone: string, nowMs: number): number | null {
  if (!quiet || !isQuietNow(quiet, timeZone, nowMs)) return null;
  const to = parseHhmm(quiet.to);
  if (to === undefined) return null;
  const { minutes, subMinuteMs } = localClock(nowMs, timeZone);
  const ahead = (to - minutes + 1440) % 1440;
  let end = nowMs - subMinuteMs + ahead * MINUTE;
  const seen = localClock(end, timeZone).minutes;
  if (seen !== to) {
    // The clocks jumped in between: shift by the difference (at most a few hours).
    let diff = to - seen;
    if (diff > 720) diff -= 1440;
    if (diff < -720) diff += 1440;
    end += diff * MINUTE;
  }
  return end > nowMs ? end : nowMs + MINUTE;
}
