/**
 * Hostile data (the sandbox's `hostile` option): besides the world's items, every items read also
 * carries items a broken service could send — numbers of hundreds of digits (Infinity once read),
 * times far beyond the year 9999, fields of the wrong type, missing legs, a leg without its
 * market, an item without an event. One of them (`hostile-far-future`) is usable once its times
 * are taken as unknown, so a client that clamps shows it and one that chokes on it shows nothing.
 *
 * The items are the same on every read (fixed ids, values and times), so the bot's diff sees them
 * as present all along: they test that bad data costs at most itself, not the diff.
 */
import type { Service } from '../service/services.js';
import type { WireEvent } from './wire.js';

/** Prefix of every hostile item's and event's id. */
export const HOSTILE_PREFIX = 'hostile-';

/** Ids of the hostile items, by what a careful client does with them. */
export const HOSTILE_IDS = {
  /** Kept: its event starts past the year 9999 and its times are absurd; everything else is sound. */
  usable: ['hostile-far-future'],
  /** Kept out: a number that is not finite once read. */
  nonFinite: ['hostile-huge-value', 'hostile-huge-odds'],
  /** Kept out: a field of the wrong type. */
  wrongType: ['hostile-wrong-type'],
  /** Kept out: no legs, or a leg without its market. */
  badLegs: ['hostile-no-legs', 'hostile-leg-without-market'],
  /** Kept out: no event given and no event id. */
  noEvent: ['hostile-no-event'],
} as const;

const HUGE_DIGITS = '9'.repeat(400);
/** Unix seconds of about 3·10^12 years from now: far past what any date API can hold. */
const FAR_FUTURE_SECONDS = 1e20;

const eventId = (service: Service) => `${HOSTILE_PREFIX}event-${service}`;

function hostileEvent(service: Service): WireEvent {
  return {
    id: eventId(service),
    sport_id: 1,
    league: 'Hostile League',
    team_1: 'Team <Far>',
    team_2: 'Team &Future',
    // Unix seconds in a string, as some services write them: the parser must not hand it to a formatter.
    start: String(FAR_FUTURE_SECONDS),
    live: service.endsWith('_live'),
    sub_events: [
      { id: `${HOSTILE_PREFIX}sub-1`, bookmaker_id: 7, original_id: 'h1' },
      { id: `${HOSTILE_PREFIX}sub-2`, bookmaker_id: 21, original_id: 'h2' },
    ],
  };
}

/** A leg as `WireLeg` has it, but `value` may be a hostile string and `updated` is absurd. */
function leg(sub: 1 | 2, typeId: number, value: number | string): Record<string, unknown> {
  return {
    sub_event_id: `${HOSTILE_PREFIX}sub-${sub}`,
    type_id: typeId,
    value,
    prev: value,
    index: '',
    updated: FAR_FUTURE_SECONDS * 1_000,
    initiator: sub === 1,
    crumbs: {},
  };
}

/** A sound item on the hostile event, with `over` laid on top. */
function item(service: Service, id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    event_id: eventId(service),
    value: 3.5,
    roi: 3.5,
    created: '+275760-09-13T00:00:00.000Z',
    groups_ids: [],
    odds: [leg(1, 1, 2.2), leg(2, 2, 2.1)],
    ...over,
  };
}

/** The hostile items of one service, and the event they point at. */
export function hostileData(service: Service): { items: Record<string, unknown>[]; events: WireEvent[] } {
  const items = [
    item(service, 'hostile-far-future'),
    item(service, 'hostile-huge-value', { value: HUGE_DIGITS, roi: HUGE_DIGITS }),
    item(service, 'hostile-huge-odds', { odds: [leg(1, 1, `1${'0'.repeat(400)}`), leg(2, 2, 2.1)] }),
    item(service, 'hostile-wrong-type', { value: { percent: 3.5 }, roi: [3.5] }),
    item(service, 'hostile-no-legs', { odds: [] }),
    item(service, 'hostile-leg-without-market', { odds: [{ sub_event_id: `${HOSTILE_PREFIX}sub-1`, value: 2.2 }] }),
    item(service, 'hostile-no-event', { event_id: null }),
  ];
  return { items, events: [hostileEvent(service)] };
}

/** The envelope with the hostile items and their event added (a by-id read gets only the one asked for). */
export function withHostile<E extends { items: readonly unknown[]; events: readonly unknown[]; filtered?: number }>(
  envelope: E,
  service: Service,
  onlyId?: string,
): Omit<E, 'items' | 'events'> & { items: unknown[]; events: unknown[] } {
  const data = hostileData(service);
  const items = onlyId === undefined ? data.items : data.items.filter((i) => i.id === onlyId);
  return {
    ...envelope,
    ...(envelope.filtered !== undefined ? { filtered: envelope.filtered + items.length } : {}),
    items: [...envelope.items, ...items],
    events: [...envelope.events, ...data.events],
  };
}
