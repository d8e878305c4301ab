/**
 * The one-line filter command, parsed strictly:
 * `/filter <service> [reset] [min_profit=N] [max_profit=N] [min_odds=N] [max_odds=N] [hours=N]
 *  [sports=ID,ID] [bookmakers=ID,ID] [min_overvalue=N] [markets=-odd_even,-corners | markets=totals,main]
 *  [min_profit.<sport>=N]`. It changes only the options it names
 * (`any` / `all` puts one back to its default); `reset` starts from the defaults. Sports and bookmakers may be named instead
 * of numbered (`sports=football,tennis bookmakers=pinnacle,bet365`), in the user's language or in
 * English. Also the bounds both the one-line form and the builder check against.
 *
 * A valuebet's profit is its overvalue, so for valuebets `min_profit` is accepted as another name
 * of `min_overvalue` (giving both is refused: which one was meant?).
 */
import { z } from 'zod';
import type { Dictionaries } from '../../service/dictionaries-model.js';
import { defaultFilter, filterSettingsSchema, type FilterSettings } from '../../service/filter-model.js';
import { MARKET_GROUPS, type MarketGroup } from '../../service/market-groups.js';
import { isLive, kindOf, parseService, type Service } from '../../service/services.js';
import { matchName } from './dict-names.js';
import { checkBounds, clipEcho, fail, MAX_SHORT_TEXT, ok, parseNumber, parsePercent, tooLong, type Parsed, type RangeRules } from './values.js';

export const HOURS_MAX = 24 * 365;

/** Profit bounds: middles may lose a little when the middle misses; arbs never go below 0. */
export function profitRules(service: Service): RangeRules {
  return kindOf(service) === 'middles'
    ? { lowest: -100, highest: 1000, lowKey: 'value_too_low' }
    : { lowest: 0, highest: 1000, lowKey: 'negative_not_allowed' };
}
export const oddsRules: RangeRules = { lowest: 1, highest: 1000, lowKey: 'odds_below_one' };
export const overvalueRules: RangeRules = { lowest: 0, highest: 1000, lowKey: 'negative_not_allowed' };

const OPTION_NAMES = ['min_profit', 'max_profit', 'min_odds', 'max_odds', 'hours', 'sports', 'bookmakers', 'min_overvalue', 'markets'] as const;
export type OptionName = (typeof OPTION_NAMES)[number];
const optionName = z.enum(OPTION_NAMES);
/** "1,5,football,bet_365": ids and names, separated by commas ("_" stands for a space in a name). */
const idOrNameList = z
  .string()
  .regex(/^[\p{L}\p{N}_.'&+-]{1,40}(,[\p{L}\p{N}_.'&+-]{1,40})*$/u)
  .transform((s) => s.split(','));

export interface FilterCommand {
  service: Service;
  /** The filter to save: the saved one with the named options changed (or the defaults with them, after `reset`). */
  settings: FilterSettings;
  /** `reset` was typed: the saved filter was not the starting point. */
  reset: boolean;
  /** A saved filter was the starting point: what was not named is kept from it. */
  kept: boolean;
  /** The options typed, in the order typed. */
  named: OptionName[];
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

/** Values that put an option back to its default: `max_odds=any`, `sports=all`. */
const DEFAULT_WORDS = new Set(['any', 'all']);

/**
 * Parses the text after `/filter`. `dicts` (the user's language), when loaded, is used to reject
 * unknown ids and to read names; `alt` (English) reads names too. `current` is the service's
 * filter as saved: the options named change it and the rest is kept, unless the word `reset`
 * starts from the defaults (#6 of the newcomer trial: a one-line change had wiped a guided filter).
 */
export function parseFilterArgs(
  text: string,
  dicts: Dictionaries | undefined,
  alt?: Dictionaries,
  current?: (service: Service) => FilterSettings | undefined,
): Parsed<FilterCommand> {
  if (text.length > 4 * MAX_SHORT_TEXT) return tooLong(text, 4 * MAX_SHORT_TEXT);
  // "min_profit=1,5 %": the sign typed apart still belongs to its number.
  const tokens = text.trim().replace(/\s+%/g, '%').split(/\s+/).filter(Boolean);
  const [first, ...rest] = tokens;
  if (first === undefined) return fail('filter_usage');
  if (first.length > MAX_SHORT_TEXT) return tooLong(first, MAX_SHORT_TEXT);
  const service = parseService(first);
  if (!service) return fail('unknown_service', { value: clipEcho(first) });

  const seen = new Map<OptionName, string>();
  /** `min_profit.tennis=2`: the sport as typed → the value. */
  const bySport = new Map<string, string>();
  let reset = false;
  for (const token of rest) {
    if (token.toLowerCase() === 'reset') {
      reset = true;
      continue;
    }
    const perSport = /^min_profit\.([^=]{1,40})=(.*)$/i.exec(token);
    if (perSport) {
      const [, sport = '', value = ''] = perSport;
      if (value === '') return fail('option_empty', { value: `min_profit.${clipEcho(sport)}` });
      if (bySport.has(sport.toLowerCase())) return fail('option_twice', { value: `min_profit.${clipEcho(sport)}` });
      bySport.set(sport.toLowerCase(), value);
      continue;
    }
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

  const saved = reset ? undefined : current?.(service);
  const base = saved ?? defaultFilter();
  const settings: FilterSettings = { ...base, sports: [...base.sports], bookmakers: [...base.bookmakers] };
  const defaults = defaultFilter();

  /** undefined: not named; null: `any` (the default); else the number typed (profits in %, as people type them). */
  const num = (name: OptionName): Parsed<number | null | undefined> => {
    const raw = seen.get(name);
    if (raw === undefined) return ok(undefined);
    if (DEFAULT_WORDS.has(raw.toLowerCase())) return ok(null);
    const percent = name === 'min_profit' || name === 'max_profit' || name === 'min_overvalue';
    const n = percent ? parsePercent(raw) : parseNumber(raw, name === 'hours' ? '12' : '1.5');
    return n.ok ? n : fail(n.problem.key, { ...n.problem.vars, option: name });
  };
  /**
   * A min/max pair with what was typed merged into the saved values; a typed bound that crosses
   * a kept one is refused naming the kept one and the way out. undefined: neither was named.
   */
  const mergeRange = (
    names: readonly [OptionName, OptionName],
    kept: readonly [number | null, number | null],
    rules: RangeRules,
    defaultMin: number | null,
  ): Parsed<{ min: number | null; max: number | null } | undefined> => {
    const typed = [num(names[0]), num(names[1])] as const;
    for (const r of typed) if (!r.ok) return r;
    const [lo, hi] = typed.map((r) => (r.ok ? r.value : undefined));
    if (lo === undefined && hi === undefined) return ok(undefined);
    const min = lo === undefined ? kept[0] : (lo ?? defaultMin);
    const max = hi === undefined ? kept[1] : hi;
    const r = checkBounds(min ?? rules.lowest, max, rules);
    if (r.ok) return ok({ min, max });
    const keptOne = lo === undefined ? { option: names[0], value: min } : hi === undefined ? { option: names[1], value: max } : undefined;
    if (r.problem.key === 'range_reversed' && saved && keptOne && keptOne.value !== null) {
      return fail('range_reversed_kept', { ...r.problem.vars, option: keptOne.option, value: String(keptOne.value), service });
    }
    return fail(r.problem.key, r.problem.vars);
  };

  if (!valuebets) {
    const profit = mergeRange(['min_profit', 'max_profit'], [settings.minProfit, settings.maxProfit], profitRules(service), defaults.minProfit);
    if (!profit.ok) return profit;
    if (profit.value) {
      settings.minProfit = profit.value.min ?? defaults.minProfit;
      settings.maxProfit = profit.value.max;
    }
  }
  const odds = mergeRange(['min_odds', 'max_odds'], [settings.minOdds, settings.maxOdds], oddsRules, null);
  if (!odds.ok) return odds;
  if (odds.value) {
    settings.minOdds = odds.value.min;
    settings.maxOdds = odds.value.max;
  }

  const hours = num('hours');
  if (!hours.ok) return hours;
  if (hours.value !== undefined) {
    if (hours.value !== null && hours.value <= 0) return fail('must_be_positive', { value: clipEcho(seen.get('hours') ?? ''), example: '12' });
    if (hours.value !== null && hours.value > HOURS_MAX) return fail('value_too_high', { value: clipEcho(seen.get('hours') ?? ''), highest: String(HOURS_MAX) });
    settings.hoursToStart = hours.value;
  }

  // Errors name the option as the user wrote it.
  const overvalue = num(valuebets && seen.has('min_profit') ? 'min_profit' : 'min_overvalue');
  if (!overvalue.ok) return overvalue;
  if (overvalue.value === null) settings.minOvervalue = null;
  else if (overvalue.value !== undefined) {
    const r = checkBounds(overvalue.value, null, overvalueRules);
    if (!r.ok) return r;
    settings.minOvervalue = r.value.min;
  }

  for (const name of ['sports', 'bookmakers'] as const) {
    const raw = seen.get(name);
    if (raw === undefined) continue;
    if (DEFAULT_WORDS.has(raw.toLowerCase())) {
      settings[name] = [];
      continue;
    }
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

  const markets = seen.get('markets');
  if (markets !== undefined) {
    const off = parseMarkets(markets);
    if (!off.ok) return off;
    settings.marketsOff = off.value;
  }
  if (bySport.size > 0) {
    if (valuebets) return fail('option_not_for_service', { value: 'min_profit.<sport>', service });
    const mins = { ...settings.minProfitBySport };
    for (const [word, raw] of bySport) {
      const sport = resolveList('sports', [word], dicts, alt);
      if (!sport.ok) return sport;
      const id = String(sport.value[0]);
      const unknown = unknownIds(sport.value, dicts?.sports);
      if (unknown.length > 0) return fail('unknown_sport_ids', { ids: unknown.join(', ') });
      if (DEFAULT_WORDS.has(raw.toLowerCase())) {
        delete mins[id];
        continue;
      }
      const n = parsePercent(raw);
      if (!n.ok) return n;
      const r = checkBounds(n.value, null, profitRules(service));
      if (!r.ok) return fail(r.problem.key, r.problem.vars);
      mins[id] = n.value;
    }
    settings.minProfitBySport = mins;
  }

  const checked = filterSettingsSchema.safeParse(settings);
  if (!checked.success) return fail('bad_filter');
  return ok({ service, settings: checked.data, reset, kept: saved !== undefined, named: [...seen.keys(), ...(bySport.size > 0 && !seen.has('min_profit') ? ['min_profit' as const] : [])] });
}

/** Names a market group is typed by, besides its own (market-groups.ts). */
const MARKET_ALIASES: Readonly<Record<string, MarketGroup>> = {
  '1x2': 'main',
  moneyline: 'main',
  main_lines: 'main',
  handicap: 'handicaps',
  asian_handicap: 'handicaps',
  asian_handicaps: 'handicaps',
  ah: 'handicaps',
  total: 'totals',
  team_total: 'team_totals',
  individual_totals: 'team_totals',
  itotals: 'team_totals',
  oddeven: 'odd_even',
  other: 'other_markets',
  halves: 'periods',
  sets: 'periods',
  corner: 'corners',
  card: 'cards',
};

/**
 * `markets=` as the groups left out: `-odd_even,-corners` leaves those out, `totals,main` keeps only
 * those, `any` keeps every market. Unknown names, a mix of both forms and leaving out everything
 * are refused with what to type.
 */
export function parseMarkets(raw: string): Parsed<MarketGroup[]> {
  if (DEFAULT_WORDS.has(raw.toLowerCase())) return ok([]);
  const words = raw.toLowerCase().split(',');
  const minus = words.filter((w) => w.startsWith('-')).length;
  if (minus > 0 && minus < words.length) return fail('markets_mixed', { value: clipEcho(raw) });
  const groups: MarketGroup[] = [];
  for (const word of words) {
    const name = word.replace(/^-/, '');
    const group = (MARKET_GROUPS as readonly string[]).includes(name) ? (name as MarketGroup) : MARKET_ALIASES[name];
    if (!group) return fail('unknown_market_group', { value: clipEcho(name), list: MARKET_GROUPS.join(', ') });
    if (!groups.includes(group)) groups.push(group);
  }
  const off = minus > 0 ? groups : MARKET_GROUPS.filter((g) => !groups.includes(g));
  if (off.length === MARKET_GROUPS.length) return fail('markets_all_off', { value: clipEcho(raw) });
  return ok(off);
}
