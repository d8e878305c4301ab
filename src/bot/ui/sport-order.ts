/**
 * The order of sports in the filter builder: the ones the user's services carry most right now
 * first, then the service's own order of ids (football is 1), never A–Z, which put e-Sports
 * before Football.
 */
import type { Opportunity } from '../../service/opportunity.js';

/** How many of `items` are of each sport. */
export function sportCounts(items: readonly Pick<Opportunity, 'event'>[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const { event } of items) if (event.sportId !== undefined) counts.set(event.sportId, (counts.get(event.sportId) ?? 0) + 1);
  return counts;
}

/** `entries` ([id, name]) with the most items first; equal counts keep the service's id order. */
export function orderSports(entries: readonly [number, string][], counts: ReadonlyMap<number, number>): [number, string][] {
  return [...entries].sort((a, b) => (counts.get(b[0]) ?? 0) - (counts.get(a[0]) ?? 0) || a[0] - b[0]);
}
