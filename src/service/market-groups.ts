/**
 * Market groups: what a bettor says when they never bet odd/even, team totals or corners. Every
 * item falls into one group by its legs' odds types and, when the service tags it with an odds
 * group other than the match itself, into a second by that group (a half, a set, corners, cards).
 * A filter leaves out an item when any of its groups is left out (the README's `/filter`, "Markets").
 *
 * The legs' group comes from the dictionary entry of their odds type: its name first (odd/even is
 * sold under "additional" or under totals, depending on the service), then its section, whose ids
 * the service documents (1 main, 2 handicaps, 3 totals, 4 individual totals, 6 additional).
 */
import type { Names, OddsType } from './dictionaries-model.js';
import type { Opportunity } from './opportunity.js';

export const MARKET_GROUPS = ['main', 'handicaps', 'totals', 'team_totals', 'odd_even', 'other_markets', 'periods', 'corners', 'cards'] as const;
export type MarketGroup = (typeof MARKET_GROUPS)[number];

/** The groups the service's `skip_sections` can leave out itself, by section id. */
export const GROUP_SECTIONS: Readonly<Partial<Record<MarketGroup, number>>> = { main: 1, handicaps: 2, totals: 3, team_totals: 4 };
const SECTION_GROUP = new Map(Object.entries(GROUP_SECTIONS).map(([group, id]) => [id, group as MarketGroup]));

// Russian "чёт", "нечётный" as a word of their own: not inside "с учётом", nor "четверть".
const ODD_EVEN = /\b(odd|even)\b|(^|[^\p{L}])(не)?ч[её]т(н|[^\p{L}]|$)/iu;
const CORNERS = /corner|углов/i;
const CARDS = /card|карточ|booking/i;
const WHOLE_MATCH = /^\s*(match|full time|матч)\s*$/i;

/** The group of one leg's odds type; an unknown type is "other markets". */
export function typeGroup(type: OddsType | undefined): MarketGroup {
  if (!type) return 'other_markets';
  if (ODD_EVEN.test(`${type.titleShort} ${type.titleFull}`)) return 'odd_even';
  return (type.sectionId !== undefined && SECTION_GROUP.get(type.sectionId)) || 'other_markets';
}

/** The group of an odds group's name (the item's `groups_ids`): none for the match itself. */
export function scopeGroup(name: string | undefined): MarketGroup | undefined {
  if (name === undefined || WHOLE_MATCH.test(name)) return undefined;
  if (CORNERS.test(name)) return 'corners';
  if (CARDS.test(name)) return 'cards';
  return 'periods';
}

/** The groups of an item: its first leg's market (an arb's legs share one market) and its odds groups. */
export function itemGroups(item: Pick<Opportunity, 'legs' | 'groupIds'>, names: Pick<Names, 'oddsType' | 'oddsGroup'>): MarketGroup[] {
  const groups = new Set<MarketGroup>();
  for (const leg of item.legs) groups.add(typeGroup(names.oddsType(leg.typeId)));
  for (const id of item.groupIds ?? []) {
    const scope = scopeGroup(names.oddsGroup(id));
    if (scope) groups.add(scope);
  }
  return [...groups];
}

/** The first of `off` the item falls into, or undefined when the item passes. */
export function leftOutBy(groups: readonly MarketGroup[], off: readonly MarketGroup[]): MarketGroup | undefined {
  return off.length === 0 ? undefined : groups.find((g) => off.includes(g));
}
