/**
 * The one-line filter command, parsed strictly:
 * `/filter <service> [min_profit=N] [max_profit=N] [min_odds=N] [max_odds=N] [hours=N]
 *  [sports=ID,ID] [bookmakers=ID,ID] [min_overvalue=N]`. Sports and bookmakers may be named instead
 * of numbered (`sports=football,tennis bookmakers=pinnacle,bet365`), in the user's language or in
 * English. Also the bounds both the one-line form and the builder check against.
 *
 * A valuebet's profit is its overvalue, so for valuebets `min_profit` is accepted as another name
 * of `min_overvalue` (giving both is refused: which one was meant?).
 */
import { z } from 'zod';
import type { Dictionaries } from '../../service/dictionaries-model.js';
import { defaultFilter, filterSettingsSchema, type FilterSettings } from '../../service/filter-model.js';
import { isLive, kindOf, parseService, type Service } from '../../service/services.js';
import { matchName } from './dict-names.js';
import { checkBounds, clipEcho, fail, MAX_SHORT_TEXT, ok, parseNumber, type Parsed, type RangeRules } from './values.js';

export const HOURS_MAX = 24 * 365;

/** Profit bounds: middles may lose a little when the middle misses; arbs never go below 0. */
export function profitRules(service: Service): RangeRules {
  return kindOf(service) === 'middles'
    ? { lowest: -100, highest: 1000, lowKey: 'value_too_low' }
    : { lowest: 0, highest: 1000, lowKey: 'negative_not_allowed' };
}
export const oddsRules: RangeRules = { lowest: 1, highest: 1000, lowKey: 'odds_below_one' };
export const overvalueRules: RangeRules = { lowest: 0, highest: 1000, lowKey: 'negative_not_allowed' };

const OPTION_NAMES = ['min_profit', 'max_profit', 'min_odds', 'max_odds', 'hours', 'sports', 'bookmakers', 'min_overvalue'] as const;
type OptionName = (typeof OPTION_NAMES)[number];
const optionName = z.enum(OPTION_NAMES);
/** "1,5,football,bet_365": ids and names, separated by commas ("_" stands for a space in a name). */
const idOrNameList = z
  .string()
  .regex(/^[\p{L}\p{N}_.'&+-]{1,40}(,[\p{L}\p{N}_.'&+-]{1,40})*$/u)
  .transform((s) => s.split(','));

export interface FilterCommand {
  service: Service;
  settings: FilterSettings;
}

/** Ids in `ids` the dictionary does not know (none when the dictionary is not loaded). */
function unknownIds(ids: number[], known: Record<string, string> | undefined): number[] {
  if (!known || Object.keys(known).length === 0) return [];
  return ids.filter((id) => known[String(id)] === undefined);
}

/**
 * The ids of a sports or bookmakers list: numbers as they are, names looked up in `dicts` (the
 * user's language) and `alt` (English), a near miss refused with "did you mean".
 */
function resolveList(name: 'sports' | 'bookmakers', words: string[], dicts: Dictionaries | undefined, alt: Dictionaries | undefined): Parsed<number[]> {
  const ids: number[] = [];
  const lists = [dicts?.[name], alt?.[name]].filter((d): d is Record<string, string> => d !== undefined && Object.keys(d).length > 0);
  for (const word of words) {
    if (/^\d{1,9}$/.test(word)) {
      ids.push(Number(word));
      continue;
    }
    if (lists.length === 0) return fail('names_need_lists', { option: name, value: clipEcho(word) });
    const match = matchName(word.replace(/_/g, ' '), lists);
    if (match.ok) {
      ids.push(match.id);
      continue;
    }
    const sport = name === 'sports';
    if (match.suggestions.length === 0) return fail(sport ? 'unknown_sport_name' : 'unknown_bookmaker_name', { value: clipEcho(word) });
    return fail(sport ? 'unknown_sport_guess' : 'unknown_bookmaker_guess', { value: clipEcho(word), list: match.suggestions.join(', ') });
  }
  return ok([...new Set(ids)]);
}

/**
 * Parses the text after `/filter`. `dicts` (the user's language), when loaded, is used to reject
 * unknown ids and to read names; `alt` (English) reads names too.
 */
export function parseFilterArgs(text: string, dicts: Dictionaries | undefined, alt?: Dictionaries): Parsed<FilterCommand> {
  if (text.length > 4 * MAX_SHORT_TEXT) return fail('too_long', { max: 4 * MAX_SHORT_TEXT });
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  const [first, ...rest] = tokens;
  if (first === undefined) return fail('filter_usage');
  if (first.length > MAX_SHORT_TEXT) return fail('too_long', { max: MAX_SHORT_TEXT });
  const service = parseService(first);
  if (!service) return fail('unknown_service', { value: clipEcho(first) });

  const seen = new Map<OptionName, string>();
  for (const token of rest) {
    const eq = token.indexOf('=');
    const name = optionName.safeParse(eq > 0 ? token.slice(0, eq).toLowerCase() : token.toLowerCase());
    if (eq <= 0 || !name.success) return fail('unknown_option', { value: clipEcho(token) });
    if (seen.has(name.data)) return fail('option_twice', { value: name.data });
    const value = token.slice(eq + 1);
    if (value === '') return fail('option_empty', { value: name.data });
    seen.set(name.data, value);
  }

  const valuebets = kindOf(service) === 'valuebets';
  if (valuebets && seen.has('min_profit') && seen.has('min_overvalue')) {
    return fail('same_option_twice', { first: 'min_profit', second: 'min_overvalue' });
  }
  for (const name of seen.keys()) {
    const notHere =
      (valuebets && name === 'max_profit') ||
      (!valuebets && name === 'min_overvalue') ||
      (isLive(service) && name === 'hours');
    if (notHere) return fail('option_not_for_service', { value: name, service });
  }

  const num = (name: OptionName): Parsed<number | null> => {
    const raw = seen.get(name);
    if (raw === undefined) return ok(null);
    const n = parseNumber(raw, name === 'hours' ? '12' : '1.5');
    return n.ok ? n : fail(n.problem.key, { ...n.problem.vars, option: name });
  };

  const settings = defaultFilter();
  const minProfit = num('min_profit');
  const maxProfit = num('max_profit');
  if (!minProfit.ok) return minProfit;
  if (!maxProfit.ok) return maxProfit;
  if (!valuebets) {
    const r = checkBounds(minProfit.value ?? 0, maxProfit.value, profitRules(service));
    if (!r.ok) return r;
    settings.minProfit = r.value.min;
    settings.maxProfit = r.value.max;
  }

  const minOdds = num('min_odds');
  const maxOdds = num('max_odds');
  if (!minOdds.ok) return minOdds;
  if (!maxOdds.ok) return maxOdds;
  if (minOdds.value !== null || maxOdds.value !== null) {
    const r = checkBounds(minOdds.value ?? oddsRules.lowest, maxOdds.value, oddsRules);
    if (!r.ok) return r;
    settings.minOdds = minOdds.value === null ? null : r.value.min;
    settings.maxOdds = r.value.max;
  }

  const hours = num('hours');
  if (!hours.ok) return hours;
  if (hours.value !== null) {
    if (hours.value <= 0) return fail('must_be_positive', { value: clipEcho(String(hours.value)), example: '12' });
    if (hours.value > HOURS_MAX) return fail('value_too_high', { value: clipEcho(String(hours.value)), highest: String(HOURS_MAX) });
    settings.hoursToStart = hours.value;
  }

  // Errors name the option as the user wrote it.
  const overvalue = num(valuebets && seen.has('min_profit') ? 'min_profit' : 'min_overvalue');
  if (!overvalue.ok) return overvalue;
  if (overvalue.value !== null) {
    const r = checkBounds(overvalue.value, null, overvalueRules);
    if (!r.ok) return r;
    settings.minOvervalue = r.value.min;
  }

  for (const name of ['sports', 'bookmakers'] as const) {
    const raw = seen.get(name);
    if (raw === undefined) continue;
    const words = idOrNameList.safeParse(raw);
    if (!words.success) return fail('bad_id_list', { option: name, value: clipEcho(raw) });
    const ids = resolveList(name, words.data, dicts, alt);
    if (!ids.ok) return ids;
    const unknown = unknownIds(ids.value, name === 'sports' ? dicts?.sports : dicts?.bookmakers);
    if (unknown.length > 0) {
      return fail(name === 'sports' ? 'unknown_sport_ids' : 'unknown_bookmaker_ids', { ids: unknown.slice(0, 10).join(', ') });
    }
    settings[name] = ids.value;
  }

  const checked = filterSettingsSchema.safeParse(settings);
  if (!checked.success) return fail('bad_filter');
  return ok({ service, settings: checked.data });
}
