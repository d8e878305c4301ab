/**
 * The values of the settings that say how alerts sound (alerts/loudness.ts), as a user types them
 * after `/settings`:
 * - `loud 3` (every service), `loud arbs_live 2.5`, `loud off`: the profit % from which an alert buzzes;
 * - `loud_rise 1`, `loud_rise arbs_live 2`: the rise in points that buzzes again;
 * - `stale drop|quiet|show`: what a live alert whose every leg is stale does; `stale 90`,
 *   `stale prematch 10m`: the age past which a leg is stale (live when not named).
 * A value that does not read answers with what was typed and an example, and changes nothing.
 */
import { parseService, SERVICES, type Service } from '../../service/services.js';
import { clipEcho, fail, ok, type Parsed } from './values.js';

export type StaleMode = 'show' | 'quiet' | 'drop';

export type SoundChange =
  | { field: 'loud'; value: { services: Service[]; from: number | null } }
  | { field: 'loud_rise'; value: { services: Service[]; rise: number } }
  | { field: 'stale'; value: { mode: StaleMode } | { which: 'live' | 'prematch'; seconds: number } };

/** The highest loud threshold and rise, in points of profit. */
export const MAX_LOUD = 100;
/** The longest stale-leg limit: a day. */
export const MAX_STALE_SECONDS = 86_400;

const OFF_WORDS = new Set(['off', 'none', 'all', 'выкл', 'нет', 'все']);
// Maps, not objects: a typed word like "constructor" must never reach Object.prototype.
const MODE_WORDS: ReadonlyMap<string, StaleMode> = new Map(Object.entries({
  drop: 'drop',
  skip: 'drop',
  убрать: 'drop',
  пропускать: 'drop',
  quiet: 'quiet',
  silent: 'quiet',
  тихо: 'quiet',
  show: 'show',
  показывать: 'show',
  показать: 'show',
} satisfies Record<string, StaleMode>));
const WHICH_WORDS: ReadonlyMap<string, 'live' | 'prematch'> = new Map(Object.entries({
  live: 'live',
  лайв: 'live',
  prematch: 'prematch',
  прематч: 'prematch',
} satisfies Record<string, 'live' | 'prematch'>));

/** "3", "+3", "3%", "2,5" → the number; undefined when it is not one. */
function readPoints(text: string): number | undefined {
  const m = /^\+?(\d{1,6}(?:[.,]\d{1,4})?)\s*%?$/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1].replace(',', '.'));
}

/** "90", "90s", "2m", "1.5 min", "2 мин" → seconds; undefined when it is not a duration. */
function readSeconds(text: string): number | undefined {
  const m = /^(\d{1,6}(?:[.,]\d{1,3})?)\s*(s|sec|с|сек|m|min|м|мин|h|ч)?$/i.exec(text);
  if (m?.[1] === undefined) return undefined;
  const n = Number(m[1].replace(',', '.'));
  const unit = (m[2] ?? 's').toLowerCase();
  const factor = /^(m|min|м|мин)$/.test(unit) ? 60 : /^(h|ч)$/.test(unit) ? 3600 : 1;
  return Math.round(n * factor);
}

/** A leading service name ("arbs_live 3"): that service and the rest; else every service and the whole text. */
function servicesOf(text: string): { services: Service[]; rest: string } {
  const space = text.search(/\s/);
  if (space > 0) {
    const service = parseService(text.slice(0, space));
    if (service) return { services: [service], rest: text.slice(space + 1).trim() };
  }
  return { services: [...SERVICES], rest: text };
}

export function parseLoud(text: string): Parsed<SoundChange> {
  const { services, rest } = servicesOf(text.trim());
  if (OFF_WORDS.has(rest.toLowerCase())) return ok({ field: 'loud', value: { services, from: null } });
  const from = readPoints(rest);
  if (from === undefined || from > MAX_LOUD) return fail('loud_bad', { value: clipEcho(text.trim()), max: MAX_LOUD });
  return ok({ field: 'loud', value: { services, from } });
}

export function parseLoudRise(text: string): Parsed<SoundChange> {
  const { services, rest } = servicesOf(text.trim());
  const rise = readPoints(rest);
  if (rise === undefined || rise <= 0 || rise > MAX_LOUD) return fail('loud_rise_bad', { value: clipEcho(text.trim()), max: MAX_LOUD });
  return ok({ field: 'loud_rise', value: { services, rise } });
}

export function parseStale(text: string): Parsed<SoundChange> {
  const value = text.trim();
  const mode = MODE_WORDS.get(value.toLowerCase());
  if (mode) return ok({ field: 'stale', value: { mode } });
  const space = value.search(/\s/);
  const named = space > 0 ? WHICH_WORDS.get(value.slice(0, space).toLowerCase()) : undefined;
  const seconds = readSeconds(named ? value.slice(space + 1).trim() : value);
  if (seconds === undefined || seconds < 1 || seconds > MAX_STALE_SECONDS) return fail('stale_bad', { value: clipEcho(value) });
  return ok({ field: 'stale', value: { which: named ?? 'live', seconds } });
}
