/**
 * The filter body the Data API accepts (service-api.md §4) and how it selects items. Unknown fields
 * are ignored; a known field of the wrong type is a 400. `null` means "not set" for every field.
 */
import { z } from 'zod';
import { sectionOf } from './dictionaries.js';
import { valuesOf } from './to-wire.js';
import type { SimItem } from './world-model.js';

const ids = z.array(z.number().int()).nullish();
const bound = z.number().nullish();

export const filterBodySchema = z.object({
  /** Lower / upper bound of the item's value (profit %; overvalue % for valuebets). */
  min: bound,
  max: bound,
  sports: ids,
  /** Every leg's bookmaker must be in it. */
  allowed_bookmakers: ids,
  /** At least one leg's bookmaker must be in it. */
  required_bookmakers: ids,
  /** No leg may be in these odds sections. */
  skip_sections: ids,
  /** Every leg's odds must lie in at least one range. */
  coeffs_ranges: z.array(z.object({ min: bound, max: bound })).nullish(),
  /** Prematch: only events starting within this many hours. */
  age: z.number().nonnegative().nullish(),
  lifetime_min_minutes: z.number().nonnegative().nullish(),
  lifetime_max_minutes: z.number().nonnegative().nullish(),
  /** 'percent' (value, highest first; the default), 'start' (soonest first) or 'created' (newest first). */
  sort: z.string().nullish(),
});

/** A stored filter, as validated. */
export type FilterBody = z.infer<typeof filterBodySchema>;

const has = (list: number[] | null | undefined): list is number[] => Array.isArray(list) && list.length > 0;

/** Whether `item` passes `filter` at `now` (ms). */
export function passes(item: SimItem, filter: FilterBody, now: number): boolean {
  const { value } = valuesOf(item);
  if (filter.min != null && value < filter.min) return false;
  if (filter.max != null && value > filter.max) return false;
  if (has(filter.sports) && !filter.sports.includes(item.event.sport.id)) return false;
  const books = item.legs.map((l) => l.bookmakerId);
  if (has(filter.allowed_bookmakers)) {
    const allowed = filter.allowed_bookmakers;
    if (!books.every((b) => allowed.includes(b))) return false;
  }
  if (has(filter.required_bookmakers)) {
    const required = filter.required_bookmakers;
    if (!books.some((b) => required.includes(b))) return false;
  }
  if (has(filter.skip_sections)) {
    const skip = filter.skip_sections;
    if (item.legs.some((l) => skip.includes(sectionOf(l.typeId) ?? -1))) return false;
  }
  const ranges = filter.coeffs_ranges;
  if (ranges && ranges.length > 0) {
    const inSome = (odds: number) => ranges.some((r) => (r.min == null || odds >= r.min) && (r.max == null || odds <= r.max));
    if (!item.legs.every((l) => inSome(l.odds))) return false;
  }
  if (filter.age != null && !item.event.live) {
    if (item.event.startMs - now > filter.age * 3_600_000) return false;
  }
  const ageMinutes = (now - item.createdMs) / 60_000;
  if (filter.lifetime_min_minutes != null && ageMinutes < filter.lifetime_min_minutes) return false;
  if (filter.lifetime_max_minutes != null && ageMinutes > filter.lifetime_max_minutes) return false;
  return true;
}

/** The items that pass, in the filter's order. */
export function select(items: readonly SimItem[], filter: FilterBody | undefined, now: number): SimItem[] {
  if (!filter) return [...items];
  const chosen = items.filter((it) => passes(it, filter, now));
  const sort = filter.sort ?? 'percent';
  if (sort === 'start') return chosen.sort((a, b) => a.event.startMs - b.event.startMs);
  if (sort === 'created') return chosen.sort((a, b) => b.createdMs - a.createdMs);
  return chosen.sort((a, b) => valuesOf(b).value - valuesOf(a).value);
}
