/**
 * Time zones as people type them: an IANA name in any case ("europe/moscow"), an offset
 * ("GMT+3", "UTC-5", "+3", "+05:30"), or a city or country in English or Russian ("berlin",
 * "Москва"). The answer is always an IANA zone, so summer time keeps working where a place has
 * it; `describeZone` says it back in words so a wrong guess shows at once.
 */
import { isValidTimeZone } from '../../alerts/time.js';
import { clipEcho, fail, MAX_SHORT_TEXT, ok, tooLong, type Parsed } from './values.js';
import { MANY_ZONE_PLACES, ODD_OFFSETS, ZONE_PLACES } from './zone-names.js';

/** Lower case, "ё" as "е", and "-", "_" and runs of spaces as one space. */
function normalize(text: string): string {
  return text.trim().toLowerCase().replace(/ё/g, 'е').replace(/[\s_-]+/g, ' ');
}

interface ZoneIndex {
  /** Normalized IANA name ("europe/moscow") → its spelling. */
  names: Map<string, string>;
  /** Normalized place → zone (the table, then unique last parts of IANA names). */
  places: Map<string, string>;
  /** Normalized country spanning several zones → example cities. */
  many: Map<string, string>;
}

let index: ZoneIndex | undefined;

/** Built on first use (not on import) from the runtime's own zone list and the place table. */
function zoneIndex(): ZoneIndex {
  if (index) return index;
  const zones = [...Intl.supportedValuesOf('timeZone'), 'UTC'];
  const names = new Map<string, string>();
  const lastParts = new Map<string, string | null>();
  for (const zone of zones) {
    names.set(normalize(zone), zone);
    const last = normalize(zone.slice(zone.lastIndexOf('/') + 1));
    // A last part two zones share ("Etc/UTC", "UTC") is ambiguous only if the zones differ.
    const seen = lastParts.get(last);
    lastParts.set(last, seen === undefined || seen === zone ? zone : null);
  }
  const places = new Map<string, string>();
  for (const [last, zone] of lastParts) if (zone !== null && zone.includes('/') && !zone.startsWith('Etc/')) places.set(last, zone);
  for (const [zone, ...placeNames] of ZONE_PLACES) {
    if (!isValidTimeZone(zone)) continue;
    for (const name of placeNames) places.set(normalize(name), zone);
  }
  const many = new Map<string, string>();
  for (const [cities, ...countryNames] of MANY_ZONE_PLACES) for (const name of countryNames) many.set(normalize(name), cities);
  index = { names, places, many };
  return index;
}

const OFFSET = /^(?:gmt|utc|ut|z)?\s*([+\-−])\s*(\d{1,2})(?:[:.]?(\d{2}))?$/i;
const ZERO = /^(?:gmt|utc|ut|z|мск\s*[+\-−]\s*0)$/i;

/** "+3" → "Etc/GMT-3" (the Etc names count west as positive); half hours → a zone without DST. */
function offsetZone(sign: string, hoursText: string, minutesText: string | undefined): string | undefined {
  const hours = Number(hoursText);
  const minutes = minutesText === undefined ? 0 : Number(minutesText);
  if (minutes >= 60) return undefined;
  const total = (sign === '+' ? 1 : -1) * (hours * 60 + minutes);
  if (total === 0) return 'UTC';
  if (minutes !== 0) return ODD_OFFSETS.get(total);
  if (total > 14 * 60 || total < -12 * 60) return undefined;
  return `Etc/GMT${total > 0 ? '-' : '+'}${Math.abs(total) / 60}`;
}

/** The zone for what the user typed, or a refusal that shows what to send. */
export function parseTimeZone(text: string): Parsed<string> {
  const value = text.trim();
  if (value.length > MAX_SHORT_TEXT) return tooLong(value, MAX_SHORT_TEXT);
  if (ZERO.test(value)) return ok('UTC');
  const offset = OFFSET.exec(value);
  if (offset) {
    const zone = offsetZone(offset[1] ?? '+', offset[2] ?? '0', offset[3]);
    return zone ? ok(zone) : fail('bad_tz_offset', { value: clipEcho(value) });
  }
  const key = normalize(value);
  const { names, places, many } = zoneIndex();
  const zone = names.get(key) ?? places.get(key);
  if (zone) return ok(zone);
  const cities = many.get(key);
  if (cities) return fail('tz_many_zones', { value: clipEcho(value), cities });
  return fail('bad_timezone', { value: clipEcho(value) });
}

/**
 * The zone as the user would write it: "Etc/GMT-3" (the IANA name for UTC+3, whose sign counts
 * west as positive and so reads inverted) as "GMT+3", the way it was typed; any other name as it is.
 */
export function zoneLabel(tz: string): string {
  const etc = /^Etc\/GMT([+-])(\d{1,2})$/.exec(tz);
  if (!etc) return tz;
  return `GMT${etc[1] === '-' ? '+' : '-'}${etc[2] ?? '0'}`;
}

/** The zone's label and its offset now: "GMT+3 (UTC+3)", "Europe/Berlin (UTC+1)", "UTC". */
export function zoneWords(tz: string, now: number): string {
  const offset = offsetWords(tz, now);
  const label = zoneLabel(tz);
  return label === offset ? label : `${label} (${offset})`;
}

/** "UTC+3" / "UTC−5:30" / "UTC" for `tz` at the instant `now`. */
export function offsetWords(tz: string, now: number): string {
  const zone = isValidTimeZone(tz) ? tz : 'UTC';
  const part = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'shortOffset' })
    .formatToParts(now)
    .find((p) => p.type === 'timeZoneName')?.value;
  // Intl writes "GMT+3", and "GMT" or "UTC" (some zones "GMT+0") for zero.
  const words = (part ?? 'GMT').replace(/^(?:GMT|UTC)/, 'UTC');
  return words === 'UTC+0' ? 'UTC' : words;
}

/** The local clock in `tz` at `now`, 24-hour "HH:MM". */
export function localClock(tz: string, now: number): string {
  const zone = isValidTimeZone(tz) ? tz : 'UTC';
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(now);
}
