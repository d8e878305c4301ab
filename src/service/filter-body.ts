/**
 * The bot's filter model mapped onto the service's filter body. The body is unpublished; the
 * names are those of the service's older web filter (service-api.md §4). Settings that mean
 * "no restriction" are left out, so the service applies its own default (everything) rather
 * than reading an empty list as "nothing".
 */
import type { FilterSettings } from './filter-model.js';
import { GROUP_SECTIONS } from './market-groups.js';
import type { Kind } from './services.js';

/** One odds range; either bound may be open. */
export interface CoeffsRange {
  min: number | null;
  max: number | null;
}

/** The filter body sent to the service (names of service-api.md §4). */
export interface FilterBody {
  /** Lower bound: profit % (arbs, middles) or overvalue % (valuebets). */
  min: number;
  max?: number;
  sports?: number[];
  allowed_bookmakers?: number[];
  coeffs_ranges?: CoeffsRange[];
  /** Event horizon, hours. */
  age?: number;
  /** Odds section ids left out (the market groups the service can leave out itself). */
  skip_sections?: number[];
  sort: 'percent';
}

/** Maps the bot's filter for a kind of opportunity onto the service's filter body. */
export function toFilterBody(kind: Kind, filter: FilterSettings): FilterBody {
  const body: FilterBody = {
    // The least of the per-sport minimums too: the service must not drop a sport whose own is lower.
    min: kind === 'valuebets' ? (filter.minOvervalue ?? 0) : Math.min(filter.minProfit, ...Object.values(filter.minProfitBySport)),
    sort: 'percent',
  };
  // Profit bounds do not apply to valuebets (their measure is the overvalue).
  if (kind !== 'valuebets' && filter.maxProfit !== null) body.max = filter.maxProfit;
  if (filter.sports.length > 0) body.sports = [...filter.sports];
  const skip = filter.marketsOff.flatMap((g) => (GROUP_SECTIONS[g] === undefined ? [] : [GROUP_SECTIONS[g]]));
  if (skip.length > 0) body.skip_sections = skip;
  if (filter.bookmakers.length > 0) body.allowed_bookmakers = [...filter.bookmakers];
  if (filter.minOdds !== null || filter.maxOdds !== null) {
    body.coeffs_ranges = [{ min: filter.minOdds, max: filter.maxOdds }];
  }
  if (filter.hoursToStart !== null) body.age = filter.hoursToStart;
  return body;
}
