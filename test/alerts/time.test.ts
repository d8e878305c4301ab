import { describe, expect, it } from 'vitest';
import {
  formatCountdown,
  formatDuration,
  formatStart,
  isQuietNow,
  isValidTimeZone,
  quietUntil,
} from '../../src/alerts/time.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('formatStart', () => {
  const noonUtc = Date.UTC(2026, 0, 3, 12, 0); // Saturday 3 January 2026

  it('reads "Sat 3 Jan 12:00" in English and "сб 3 янв 12:00" in Russian', () => {
    expect(formatStart(noonUtc, 'UTC', 'en')).toBe('Sat 3 Jan 12:00');
    expect(formatStart(noonUtc, 'UTC', 'ru')).toBe('сб 3 янв 12:00');
  });

  it("shows the user's own zone, including the day change", () => {
    expect(formatStart(noonUtc, 'Europe/Moscow', 'en')).toBe('Sat 3 Jan 15:00');
    expect(formatStart(noonUtc, 'America/New_York', 'en')).toBe('Sat 3 Jan 07:00');
    expect(formatStart(Date.UTC(2026, 0, 3, 23, 30), 'Asia/Tokyo', 'en')).toBe('Sun 4 Jan 08:30');
    expect(formatStart(Date.UTC(2026, 0, 3, 21, 15), 'Europe/Moscow', 'ru')).toBe('вс 4 янв 00:15');
  });

  it('uses the Russian genitive month without the abbreviation dot', () => {
    expect(formatStart(Date.UTC(2026, 4, 3, 12, 0), 'UTC', 'ru')).toBe('вс 3 мая 12:00');
    expect(formatStart(Date.UTC(2026, 8, 3, 12, 0), 'UTC', 'ru')).toBe('чт 3 сент 12:00');
  });

  it('falls back to UTC for a zone the runtime does not know', () => {
    expect(formatStart(noonUtc, 'Mars/Olympus', 'en')).toBe('Sat 3 Jan 12:00');
  });
});

describe('formatCountdown', () => {
  it('counts down in hours and minutes', () => {
    expect(formatCountdown(2 * HOUR + 5 * MIN + 30_000, 'en')).toBe('in 2 h 05 min');
    expect(formatCountdown(2 * HOUR + 5 * MIN, 'ru')).toBe('через 2 ч 05 мин');
    expect(formatCountdown(45 * MIN, 'en')).toBe('in 45 min');
    expect(formatCountdown(26 * HOUR, 'en')).toBe('in 1 d 2 h');
    expect(formatCountdown(48 * HOUR, 'ru')).toBe('через 2 д');
    expect(formatCountdown(20_000, 'en')).toBe('starting now');
  });

  it('says how long ago an event started, and "live" for live events', () => {
    expect(formatCountdown(-12 * MIN, 'en')).toBe('started 12 min ago');
    expect(formatCountdown(-12 * MIN, 'ru')).toBe('началось 12 мин назад');
    expect(formatCountdown(-(HOUR + 3 * MIN), 'en')).toBe('started 1 h 03 min ago');
    expect(formatCountdown(-10_000, 'en')).toBe('just started');
    expect(formatCountdown(-30 * MIN, 'en', true)).toBe('live');
    expect(formatCountdown(-30 * MIN, 'ru', true)).toBe('лайв');
  });
});

describe('formatDuration', () => {
  it('reads "4 min 10 s" / "4 мин 10 с" and shorter or longer forms', () => {
    expect(formatDuration(250_000, 'en')).toBe('4 min 10 s');
    expect(formatDuration(250_000, 'ru')).toBe('4 мин 10 с');
    expect(formatDuration(35_000, 'en')).toBe('35 s');
    expect(formatDuration(2 * MIN, 'en')).toBe('2 min');
    expect(formatDuration(HOUR + 5 * MIN + 9_000, 'en')).toBe('1 h 05 min');
    expect(formatDuration(50 * HOUR, 'ru')).toBe('2 д 2 ч');
  });

  it('reads "0 s" for negative or invalid input, never NaN', () => {
    expect(formatDuration(-5, 'en')).toBe('0 s');
    expect(formatDuration(Number.NaN, 'ru')).toBe('0 с');
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names and rejects the rest', () => {
    expect(isValidTimeZone('Europe/Moscow')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone(' Europe/Moscow')).toBe(false);
    expect(isValidTimeZone('<b>')).toBe(false);
  });
});

describe('quiet hours', () => {
  const night = { from: '23:00', to: '07:00' };
  const at = (h: number, m = 0) => Date.UTC(2026, 0, 3, h, m);

  it('a range over midnight holds late evening and early morning, [from, to)', () => {
    expect(isQuietNow(night, 'UTC', at(23, 30))).toBe(true);
    expect(isQuietNow(night, 'UTC', at(23, 0))).toBe(true);
    expect(isQuietNow(night, 'UTC', at(3, 0))).toBe(true);
    expect(isQuietNow(night, 'UTC', at(6, 59))).toBe(true);
    expect(isQuietNow(night, 'UTC', at(7, 0))).toBe(false);
    expect(isQuietNow(night, 'UTC', at(12, 0))).toBe(false);
    expect(isQuietNow(night, 'UTC', at(22, 59))).toBe(false);
  });

  it('a range within one day', () => {
    const siesta = { from: '13:00', to: '15:00' };
    expect(isQuietNow(siesta, 'UTC', at(14, 0))).toBe(true);
    expect(isQuietNow(siesta, 'UTC', at(15, 0))).toBe(false);
    expect(isQuietNow(siesta, 'UTC', at(1, 0))).toBe(false);
  });

  it("is read in the user's zone", () => {
    // 21:00 UTC is 00:00 in Moscow (UTC+3): quiet there, not in UTC
    expect(isQuietNow(night, 'Europe/Moscow', at(21, 0))).toBe(true);
    expect(isQuietNow(night, 'UTC', at(21, 0))).toBe(false);
    // 05:00 UTC is 08:00 in Moscow: over
    expect(isQuietNow(night, 'Europe/Moscow', at(5, 0))).toBe(false);
  });

  it('off, empty or malformed ranges never hold anything', () => {
    expect(isQuietNow(null, 'UTC', at(3, 0))).toBe(false);
    expect(isQuietNow({ from: '22:00', to: '22:00' }, 'UTC', at(22, 30))).toBe(false);
    expect(isQuietNow({ from: '25:00', to: '07:00' }, 'UTC', at(3, 0))).toBe(false);
  });

  it('quietUntil gives the end of the current quiet period', () => {
    expect(quietUntil(night, 'UTC', at(23, 30))).toBe(Date.UTC(2026, 0, 4, 7, 0));
    expect(quietUntil(night, 'UTC', at(3, 15))).toBe(at(7, 0));
    // Moscow 00:00:30 → 07:00 Moscow = 04:00 UTC next day
    expect(quietUntil(night, 'Europe/Moscow', Date.UTC(2026, 0, 3, 21, 0, 30))).toBe(Date.UTC(2026, 0, 4, 4, 0));
    expect(quietUntil(night, 'UTC', at(12, 0))).toBeNull();
    expect(quietUntil(null, 'UTC', at(3, 0))).toBeNull();
  });

  it('quietUntil accounts for a daylight-saving change inside the period', () => {
    const q = { from: '01:00', to: '09:00' };
    // New York springs forward on 8 March 2026: 01:30 EST (06:30 UTC) → 09:00 EDT = 13:00 UTC
    expect(quietUntil(q, 'America/New_York', Date.UTC(2026, 2, 8, 6, 30))).toBe(Date.UTC(2026, 2, 8, 13, 0));
    // and falls back on 1 November 2026: 01:30 EDT (05:30 UTC) → 09:00 EST = 14:00 UTC
    expect(quietUntil(q, 'America/New_York', Date.UTC(2026, 10, 1, 5, 30))).toBe(Date.UTC(2026, 10, 1, 14, 0));
  });
});
