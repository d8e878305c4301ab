/**
 * A simulated item or event in the service's wire form, with the value fields computed from the
 * item's current odds (arb profit, a middle's miss and hit, a valuebet's overvalue and fair odds);
 * a masked item's odds are sent as 0, as for a key without paid access.
 */
import { isLayType } from './dictionaries.js';
import { arbProfit, fairOdds, layAsBack, middleProfits, overvalue } from './pricing.js';
import { wireTime, type WireEvent, type WireItem, type WireLeg } from './wire.js';
import type { SimEvent, SimItem } from './world-model.js';

/** The item's value fields, computed from its current odds. */
export function valuesOf(item: SimItem): { value: number; middle?: number; probability?: number; fairOdds?: number } {
  const odds = item.legs.map((l) => l.odds);
  // A lay leg (back/lay arbs at an exchange) counts as the back of "not this selection".
  if (item.kind === 'arbs') return { value: arbProfit(item.legs.map((l) => (isLayType(l.typeId) ? layAsBack(l.odds) : l.odds))) };
  if (item.kind === 'middles') {
    const { miss, hit } = middleProfits([odds[0] ?? 1, odds[1] ?? 1]);
    return { value: miss, middle: hit };
  }
  return { value: overvalue(odds[0] ?? 1, item.probability), probability: item.probability, fairOdds: fairOdds(item.probability) };
}

/**
 * The wire form of an item; `masked` hides the odds (0), as for a key without paid access. Times are
 * written on the service's clock: the sandbox's own plus `skewMs` (a service whose clock is off).
 */
export function toWireItem(item: SimItem, masked: boolean, skewMs = 0): WireItem {
  const v = valuesOf(item);
  const legs: WireLeg[] = item.legs.map((l) => ({
    sub_event_id: l.subEventId,
    type_id: l.typeId,
    value: masked ? 0 : l.odds,
    prev: masked ? 0 : l.prev,
    index: l.line,
    ...(l.noUpdated === true ? {} : { updated: wireTime(l.updatedMs + skewMs) }),
    initiator: l.initiator,
    crumbs: {},
  }));
  return {
    id: item.id,
    event_id: item.event.id,
    value: v.value,
    ...(item.kind === 'valuebets' ? {} : { roi: v.value }),
    ...(v.middle === undefined ? {} : { middle_value: v.middle }),
    ...(v.probability === undefined ? {} : { probability: v.probability }),
    ...(v.fairOdds === undefined ? {} : { fair_odds: v.fairOdds }),
    created: wireTime(item.createdMs + skewMs),
    groups_ids: [item.groupId],
    odds: legs,
  };
}

/** The wire form of an event with only the sub-events the given items use. */
export function toWireEvent(event: SimEvent, items: readonly SimItem[], skewMs = 0): WireEvent {
  const used = new Set<number>();
  for (const it of items) if (it.event === event) for (const l of it.legs) used.add(l.bookmakerId);
  const subEvents = [...event.subEvents.values()]
    .filter((s) => used.has(s.bookmakerId))
    .map((s) => ({ id: s.id, bookmaker_id: s.bookmakerId, original_id: s.originalId }));
  return {
    id: event.id,
    sport_id: event.sport.id,
    league: event.league,
    team_1: event.team1,
    team_2: event.team2,
    start: wireTime(event.startMs + skewMs),
    live: event.live,
    sub_events: subEvents,
  };
}
