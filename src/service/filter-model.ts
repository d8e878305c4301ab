/**
 * The bot's own filter model (the service does not publish its filter body). One filter per
 * (user key, service). `toFilterBody` in the client maps it to the service's field names;
 * `matchesFilter` applies it locally too, so an alert never breaks the user's filter even when
 * the service ignores a field.
 */
import { z } from 'zod';
import { MARKET_GROUPS } from './market-groups.js';
import type { Opportunity } from './opportunity.js';

export const filterSettingsSchema = z.object({
  /** Sport ids; empty means all sports. */
  sports: z.array(z.number().int().nonnegative()).max(500).default([]),
  /** Bookmaker ids; empty means all bookmakers. Every leg must be at one of them. */
  bookmakers: z.array(z.number().int().nonnegative()).max(1000).default([]),
  /** Profit % bounds (arbs: profit; middles: profit on a miss). */
  minProfit: z.number().min(-100).max(1000).default(0),
  maxProfit: z.number().min(-100).max(1000).nullable().default(null),
  /** Decimal odds bounds, applied to every leg. */
  minOdds: z.number().min(1).max(1000).nullable().default(null),
  maxOdds: z.number().min(1).max(1000).nullable().default(null),
  /** Only events starting within this many hours (prematch); null = any. */
  hoursToStart: z.number().positive().max(24 * 365).nullable().default(null),
  /** valuebets: minimum overvalue %. */
  minOvervalue: z.number().min(0).max(1000).nullable().default(null),
  /** Market groups left out (market-groups.ts); empty: every market. */
  marketsOff: z.array(z.enum(MARKET_GROUPS)).max(MARKET_GROUPS.length).default([]),
  /** Sport id → the least profit % for that sport, in place of `minProfit` (`min_profit.tennis=2`). */
  minProfitBySport: z.record(z.string().regex(/^\d{1,9}$/), z.number().min(-100).max(1000)).default({}),
});

export type FilterSettings = z.infer<typeof filterSettingsSchema>;

export const defaultFilter = (): FilterSettings => filterSettingsSchema.parse({});

/** The least profit % for an item of `sportId`: the sport's own when the filter names one. */
export const minProfitFor = (filter: Pick<FilterSettings, 'minProfit' | 'minProfitBySport'>, sportId: number | undefined): number =>
  (sportId === undefined ? undefined : filter.minProfitBySport[String(sportId)]) ?? filter.minProfit;

/** True when `item` satisfies `filter` at time `now` (ms). Masked odds pass odds bounds. */
export function matchesFilter(item: Opportunity, filter: FilterSettings, now: number): boolean {
  const { event } = item;
  if (filter.sports.length > 0 && (event.sportId === undefined || !filter.sports.includes(event.sportId))) return false;
  if (filter.bookmakers.length > 0) {
    for (const leg of item.legs) {
      if (leg.bookmakerId === undefined || !filter.bookmakers.includes(leg.bookmakerId)) return false;
    }
  }
  if (item.kind === 'valuebets') {
    if (filter.minOvervalue !== null && (item.overvalue === null || item.overvalue < filter.minOvervalue)) return false;
  } else if (item.profit !== null) {
    if (item.profit < minProfitFor(filter, event.sportId)) return false;
    if (filter.maxProfit !== null && item.profit > filter.maxProfit) return false;
  }
  for (const leg of item.legs) {
    if (leg.odds === null) continue;
    if (filter.minOdds !== null && leg.odds < filter.minOdds) return false;
    if (filter.maxOdds !== null && leg.odds > filter.maxOdds) return false;
  }
  if (filter.hoursToStart !== null && event.startsAt !== undefined && !event.live) {
    if (event.startsAt - now > filter.hoursToStart * 3_600_000) return false;
  }
  return true;
}
