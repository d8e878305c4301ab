// Over 400 lines for now: the envelope's schemas and their mapping onto Opportunity change together; split them (schemas / mapping) once the parser work on another branch has landed.
/**
 * The service's item envelope (service-api.md §5) parsed with tolerant schemas and mapped onto
 * the one `Opportunity` model. Unknown fields are kept, optional fields may be missing or null,
 * numbers may come as strings. An item that cannot be used is skipped and counted by reason (a
 * number that is not finite, a wrong type, unusable legs, no event); a time outside 1970..9999
 * is taken as unknown, so no later formatting meets a date it cannot draw. A body that cannot be
 * used at all is a `ServiceError('malformed')`. Nothing here throws anything else.
 *
 * With an `ItemsParseCache` (the service client keeps one), items and events whose JSON is the
 * same as in an earlier read are not parsed again, and an unchanged item comes back as the very
 * same `Opportunity` object (opportunities are never mutated after parsing). With a memo of the
 * last body per endpoint as well (`parseItemsAnswer`), a body that is the last one again but for
 * its timestamp is not even parsed as JSON.
 */
import { z } from 'zod';
import { ServiceError } from './errors.js';
import type { EventInfo, ItemRejectReason, ItemsRead, Leg, Opportunity } from './opportunity.js';
import { parseJsonBody, requireJson, type HttpTextResponse } from './http.js';
import { BodyMemo, jsonKey, ParseCache } from './parse-cache.js';
import { isLive, kindOf, type Service } from './services.js';

/** The issue message that marks a number that is not finite (see `rejectReason`). */
const NON_FINITE = 'non-finite';
// A string of hundreds of digits passes the pattern and reads as Infinity: checked after the transform.
const numeric = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^[-+]?\d+(\.\d+)?$/)
      .transform(Number),
  ])
  .refine(Number.isFinite, { message: NON_FINITE });
const idLike = z.union([z.string().trim().min(1), z.number().transform(String)]);
const textLike = z.union([z.string(), z.number().transform(String)]);
const timeLike = z.union([z.string(), z.number()]);

const legSchema = z
  .object({
    sub_event_id: idLike.nullish(),
    bookmaker_id: numeric.nullish(),
    type_id: numeric,
    value: numeric.nullish(),
    prev: numeric.nullish(),
    index: textLike.nullish(),
    updated: timeLike.nullish(),
    initiator: z.boolean().nullish(),
    lay: z.union([z.boolean(), z.number().transform((n) => n !== 0)]).nullish(),
    is_lay: z.union([z.boolean(), z.number().transform((n) => n !== 0)]).nullish(),
  })
  .loose();

const subEventSchema = z.object({ id: idLike, bookmaker_id: numeric.nullish() }).loose();

const eventSchema = z
  .object({
    id: idLike,
    sport_id: numeric.nullish(),
    league: textLike.nullish(),
    team_1: textLike.nullish(),
    team_2: textLike.nullish(),
    start: timeLike.nullish(),
    live: z.boolean().nullish(),
    sub_events: z.array(z.unknown()).nullish(),
  })
  .loose();

const itemSchema = z
  .object({
    id: idLike,
    event_id: idLike.nullish(),
    event: z.unknown().optional(),
    value: numeric.nullish(),
    roi: numeric.nullish(),
    profit: numeric.nullish(),
    middle_value: numeric.nullish(),
    overvalue: numeric.nullish(),
    ev: numeric.nullish(),
    probability: numeric.nullish(),
    fair_odds: numeric.nullish(),
    created: timeLike.nullish(),
    masked: z.boolean().nullish(),
    groups_ids: z.array(z.unknown()).nullish(),
    odds: z.array(legSchema).min(1),
  })
  .loose();

const envelopeSchema = z
  .object({
    items: z.array(z.unknown()),
    events: z.array(z.unknown()).nullish(),
    masked: z.boolean().nullish(),
    timestamp: timeLike.nullish(),
  })
  .loose();

type RawEvent = z.infer<typeof eventSchema>;
type RawItem = z.infer<typeof itemSchema>;
type RawLeg = z.infer<typeof legSchema>;

interface ParsedEvent {
  info: EventInfo;
  /** sub-event id → bookmaker id */
  bookmakers: Map<string, number>;
}

/** What the cache keeps per raw item: its schema parse, and the opportunity last built from it with the event it used. */
interface ItemMemo {
  item: RawItem | undefined;
  /** Why the schema refused it, when it did. */
  problem?: ItemRejectReason;
  event?: ParsedEvent;
  opportunity?: Opportunity;
}

/** Earlier parses to reuse; only for bodies straight from `JSON.parse` (see parse-cache.ts). */
export type ItemsParseCache = ParseCache<ParsedEvent, ItemMemo>;

/** A fresh, empty cache for `parseItemsBody`. */
export function createItemsParseCache(): ItemsParseCache {
  return new ParseCache<ParsedEvent, ItemMemo>();
}

/** The last body of each polled endpoint and the read it gave (see parse-cache.ts). */
export type ItemsBodyMemo = BodyMemo<ItemsRead>;

export function createItemsBodyMemo(): ItemsBodyMemo {
  return new BodyMemo<ItemsRead>();
}

/** Where a list answer came from, for `parseItemsAnswer`'s memo. */
export interface ItemsMemoSlot {
  cache: ItemsParseCache;
  memo: ItemsBodyMemo;
  /** The endpoint (method and URL): one subscription's poll. */
  key: string;
}

/**
 * A list answer as `parseItemsBody` reads it (a body that is not JSON is `malformed`), through the
 * memo: the same body as the endpoint's last one, timestamp aside, gives that read again (a copy,
 * with this body's timestamp) without being parsed.
 */
export function parseItemsAnswer(service: Service, answer: HttpTextResponse, what: string, slot: ItemsMemoSlot): ItemsRead {
  // The wire's bytes when there are any: a body given back is then never decoded.
  const body = answer.bytes ?? Buffer.from(answer.text, 'utf8');
  const known = slot.memo.reuse(slot.key, body);
  if (known) {
    const stamp = known.stamp === undefined ? undefined : stampOf(known.stamp);
    if (stamp !== false) {
      const { value } = known;
      return { ...value, items: [...value.items], timestamp: stamp, ...(value.rejected ? { rejected: { ...value.rejected } } : {}) };
    }
  }
  const read = parseItemsBody(service, requireJson(parseJsonBody(answer), what), what, slot.cache);
  // A copy: what the caller does with its read must not change the one kept.
  slot.memo.remember(slot.key, body, { ...read, items: [...read.items] });
  return read;
}

/** A timestamp's JSON text as the envelope schema reads it; false when the schema would refuse it. */
function stampOf(json: string): number | undefined | false {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return false;
  }
  if (value === null) return undefined;
  return typeof value === 'number' || typeof value === 'string' ? parseServiceTime(value) : false;
}

/**
 * A time from the service: "YYYY-MM-DD HH:MM[:SS]" (UTC, as the service writes it), an ISO
 * string with a zone, or unix seconds / milliseconds. Undefined when unreadable.
 */
export function parseServiceTime(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return fromUnix(value);
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return fromUnix(Number(text));
  const plain = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/.exec(text);
  const ms = plain ? Date.parse(`${plain[1]}T${plain[2]}${plain[3] ?? ':00'}Z`) : Date.parse(text);
  return inRange(ms);
}

/** The last millisecond of the year 9999: later times cannot be formatted (Intl throws past ±8.64e15 ms). */
export const MAX_SERVICE_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function inRange(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_SERVICE_TIME_MS ? ms : undefined;
}

function fromUnix(n: number): number | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Seconds until the year 33658; anything larger is already milliseconds.
  return inRange(n < 1e12 ? Math.round(n * 1000) : Math.round(n));
}

/**
 * Parses a list read (filter items or one event's items). `cache` only for a body that came from
 * `JSON.parse` as it is: its keys are JSON texts.
 */
export function parseItemsBody(service: Service, body: unknown, what: string, cache?: ItemsParseCache): ItemsRead {
  const envelope = plainEnvelope(body) ?? envelopeSchema.safeParse(Array.isArray(body) ? { items: body } : body);
  if (!envelope.success) {
    throw new ServiceError('malformed', `${what}: the answer had no item list`);
  }
  const { items, events, masked, timestamp } = envelope.data;
  const eventIndex = indexEvents(service, events ?? [], cache);
  const read: ItemsRead = { items: [], masked: masked === true, maskStated: typeof masked === 'boolean', timestamp: parseServiceTime(timestamp), skipped: 0 };
  const rejected: Partial<Record<ItemRejectReason, number>> = {};
  for (const raw of items) {
    const opportunity = cache ? cachedOpportunity(service, raw, eventIndex, read.masked, cache) : toOpportunity(service, raw, eventIndex, read.masked);
    if (typeof opportunity === 'object') read.items.push(opportunity);
    else {
      read.skipped += 1;
      rejected[opportunity] = (rejected[opportunity] ?? 0) + 1;
    }
  }
  if (read.skipped > 0) read.rejected = rejected;
  return read;
}

type Envelope = z.infer<typeof envelopeSchema>;

/**
 * The envelope as the schema would give it, checked by hand for the usual shape (an object whose
 * fields have the schema's types), so that every read does not walk its lists through zod;
 * undefined for anything else, which the schema then judges.
 */
function plainEnvelope(body: unknown): { success: true; data: Envelope } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { items, events, masked, timestamp } = body as Record<string, unknown>;
  if (!Array.isArray(items)) return undefined;
  if (events !== undefined && events !== null && !Array.isArray(events)) return undefined;
  if (masked !== undefined && masked !== null && typeof masked !== 'boolean') return undefined;
  if (timestamp !== undefined && timestamp !== null && typeof timestamp !== 'string' && typeof timestamp !== 'number') return undefined;
  return { success: true, data: { items, events, masked, timestamp } };
}

/**
 * Parses a by-id read. Its layout is unpublished: accepted are the list envelope (the item with
 * that id, else the only one), `{ item, events | event }`, and a bare item (with `event`).
 */
export function parseItemBody(service: Service, body: unknown, itemId: string, what: string): Opportunity {
  if (body === null || typeof body !== 'object') {
    throw new ServiceError('malformed', `${what}: the answer was not an item`);
  }
  const record = body as Record<string, unknown>;
  let envelope: unknown;
  if (Array.isArray(body) || Array.isArray(record.items)) envelope = body;
  else if (record.item && typeof record.item === 'object') {
    envelope = { ...record, items: [record.item], events: eventsOf(record) };
  } else if (Array.isArray(record.odds)) envelope = { items: [record], events: eventsOf(record), masked: record.masked };
  else throw new ServiceError('malformed', `${what}: the answer was not an item`);

  const read = parseItemsBody(service, envelope, what);
  const match = read.items.find((item) => item.id === itemId) ?? (read.items.length === 1 ? read.items[0] : undefined);
  if (match) return match;
  if (read.skipped > 0) throw new ServiceError('malformed', `${what}: the item could not be read`);
  throw new ServiceError('not_found', `${what}: the service has no such item`);
}

function eventsOf(record: Record<string, unknown>): unknown[] {
  if (Array.isArray(record.events)) return record.events;
  return record.event && typeof record.event === 'object' ? [record.event] : [];
}

function indexEvents(service: Service, events: unknown[], cache: ItemsParseCache | undefined): Map<string, ParsedEvent> {
  const index = new Map<string, ParsedEvent>();
  for (const raw of events) {
    const event = parseEvent(service, raw, cache);
    if (event) index.set(event.info.id, event);
  }
  return index;
}

/** One raw event, through the cache when there is one (the same JSON gives the same object). */
function parseEvent(service: Service, raw: unknown, cache: ItemsParseCache | undefined): ParsedEvent | undefined {
  const parse = () => {
    const parsed = eventSchema.safeParse(raw);
    return parsed.success ? toEvent(service, parsed.data) : undefined;
  };
  return cache ? cache.event(`${service}|${jsonKey(raw)}`, parse) : parse();
}

function toEvent(service: Service, raw: RawEvent): ParsedEvent {
  const bookmakers = new Map<string, number>();
  for (const sub of raw.sub_events ?? []) {
    const parsed = subEventSchema.safeParse(sub);
    if (parsed.success && parsed.data.bookmaker_id != null) bookmakers.set(parsed.data.id, parsed.data.bookmaker_id);
  }
  return {
    info: {
      id: raw.id,
      sportId: raw.sport_id ?? undefined,
      league: raw.league ?? '',
      team1: raw.team_1 ?? '',
      team2: raw.team_2 ?? '',
      startsAt: parseServiceTime(raw.start),
      live: raw.live ?? isLive(service),
    },
    bookmakers,
  };
}

/** Why the item schema refused an item: the first non-finite number wins, then a bad leg, else a wrong type. */
function rejectReason(error: z.ZodError): ItemRejectReason {
  // Union failures nest their issues; a JSON number like 1e400 arrives as Infinity and fails as a type.
  const text = JSON.stringify(error.issues);
  if (text.includes(NON_FINITE) || text.includes('"received":"Infinity"') || text.includes('"received":"-Infinity"')) return 'non_finite';
  return error.issues.some((issue) => issue.path[0] === 'odds') ? 'bad_legs' : 'wrong_type';
}

function toOpportunity(
  service: Service,
  raw: unknown,
  events: Map<string, ParsedEvent>,
  envelopeMasked: boolean,
): Opportunity | ItemRejectReason {
  const parsed = itemSchema.safeParse(raw);
  if (!parsed.success) return rejectReason(parsed.error);
  const event = eventFor(service, parsed.data, events, undefined);
  return event ? buildOpportunity(service, parsed.data, event, envelopeMasked) : 'no_event';
}

/**
 * `toOpportunity` through the cache: the schema parse is reused for the same JSON, and so is the
 * opportunity while the item's event is the same (cached) object as when it was built.
 */
function cachedOpportunity(
  service: Service,
  raw: unknown,
  events: Map<string, ParsedEvent>,
  envelopeMasked: boolean,
  cache: ItemsParseCache,
): Opportunity | ItemRejectReason {
  const key = `${service}|${envelopeMasked ? 'm' : '-'}|${jsonKey(raw)}`;
  let memo = cache.item(key);
  if (!memo) {
    const parsed = itemSchema.safeParse(raw);
    memo = parsed.success ? { item: parsed.data } : { item: undefined, problem: rejectReason(parsed.error) };
    cache.rememberItem(key, memo);
  }
  if (!memo.item) return memo.problem ?? 'wrong_type';
  const event = eventFor(service, memo.item, events, cache);
  if (!event) return 'no_event';
  if (memo.event !== event || !memo.opportunity) {
    memo.opportunity = buildOpportunity(service, memo.item, event, envelopeMasked);
    memo.event = event;
  }
  return memo.opportunity;
}

function buildOpportunity(service: Service, item: RawItem, event: ParsedEvent, envelopeMasked: boolean): Opportunity {
  const masked = envelopeMasked || item.masked === true;
  const legs = item.odds.map((leg) => toLeg(leg, event, masked));
  const kind = kindOf(service);
  const base = {
    id: item.id,
    service,
    kind,
    event: event.info,
    legs,
    createdAt: parseServiceTime(item.created),
    masked,
    ...groupIdsOf(item),
  };
  if (kind === 'arbs') {
    return { ...base, profit: item.value ?? item.roi ?? item.profit ?? null, middleProfit: null, overvalue: null, probability: null };
  }
  if (kind === 'middles') {
    const fromOdds = middleFromOdds(legs);
    return {
      ...base,
      profit: fromOdds?.miss ?? item.value ?? item.profit ?? null,
      middleProfit: fromOdds?.hit ?? item.middle_value ?? null,
      overvalue: null,
      probability: null,
    };
  }
  const probability = probabilityOf(item);
  return { ...base, profit: null, middleProfit: null, overvalue: overvalueOf(item, legs, probability), probability };
}

/**
 * A middle's profit % when it misses (one leg wins) and when it hits (both win), with stakes split
 * as an arb of its two legs: 1/Σ(1/o) − 1 and 2/Σ(1/o) − 1. The service's `value` for a middle is
 * not this miss (it has been seen to be the middle's size), so filters, sorting and the alert's
 * edits use these whenever both odds are known; the service's figures only when they are hidden.
 */
function middleFromOdds(legs: Leg[]): { miss: number; hit: number } | undefined {
  const [a, b] = legs;
  if (legs.length !== 2 || !a?.odds || !b?.odds || a.odds <= 1 || b.odds <= 1) return undefined;
  const sumInv = 1 / a.odds + 1 / b.odds;
  return { miss: (1 / sumInv - 1) * 100, hit: (2 / sumInv - 1) * 100 };
}

/** The item's event: from `events[]` by `event_id`, an embedded `event`, or a bare one by id. */
function eventFor(service: Service, item: RawItem, events: Map<string, ParsedEvent>, cache: ItemsParseCache | undefined): ParsedEvent | undefined {
  if (item.event_id != null) {
    const known = events.get(item.event_id);
    if (known) return known;
  }
  if (item.event !== undefined) {
    const embedded = parseEvent(service, item.event, cache);
    if (embedded) return embedded;
  }
  const eventId = item.event_id;
  if (eventId == null) return undefined;
  // The event list left it out: keep the item with what we know, names fall back later.
  const bare = (): ParsedEvent => ({
    info: { id: eventId, sportId: undefined, league: '', team1: '', team2: '', startsAt: undefined, live: isLive(service) },
    bookmakers: new Map(),
  });
  // "|bare|" cannot begin a JSON text, so these keys never meet those of parsed events.
  return cache ? (cache.event(`${service}|bare|${eventId}`, bare) ?? bare()) : bare();
}

function toLeg(raw: RawLeg, event: ParsedEvent, masked: boolean): Leg {
  const subEventId = raw.sub_event_id ?? '';
  return {
    subEventId,
    bookmakerId: raw.bookmaker_id ?? event.bookmakers.get(subEventId),
    typeId: raw.type_id,
    line: raw.index ?? '',
    // Masked odds arrive as 0: that is "hidden", never odds of zero.
    odds: masked ? null : usableOdds(raw.value),
    prevOdds: masked ? null : usableOdds(raw.prev),
    updatedAt: parseServiceTime(raw.updated),
    initiator: raw.initiator === true,
    // The dictionaries mark lay odds types; a flag on the leg itself, when sent, is the more direct word.
    ...(typeof (raw.lay ?? raw.is_lay) === 'boolean' ? { lay: (raw.lay ?? raw.is_lay) === true } : {}),
  };
}

/** The item's odds group ids, those that are whole numbers (a service's stray value is dropped, not fatal). */
function groupIdsOf(item: RawItem): { groupIds?: number[] } {
  const ids = (item.groups_ids ?? []).flatMap((v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? [v] : typeof v === 'string' && /^\d{1,9}$/.test(v) ? [Number(v)] : []));
  return ids.length > 0 ? { groupIds: ids.slice(0, 8) } : {};
}

function usableOdds(value: number | null | undefined): number | null {
  return value !== null && value !== undefined && value > 0 ? value : null;
}

/** 0..1 from `probability` (a fraction or a percentage), else from `fair_odds`. */
function probabilityOf(item: RawItem): number | null {
  const p = item.probability;
  if (p !== null && p !== undefined && p > 0) {
    const fraction = p > 1 ? p / 100 : p;
    return fraction <= 1 ? fraction : null;
  }
  if (item.fair_odds !== null && item.fair_odds !== undefined && item.fair_odds > 1) return 1 / item.fair_odds;
  return null;
}

/** EV % as given, else computed from the bet's odds and the outcome's probability. */
function overvalueOf(item: RawItem, legs: Leg[], probability: number | null): number | null {
  const given = item.overvalue ?? item.ev ?? item.value;
  if (given !== null && given !== undefined) return given;
  const leg = legs.find((l) => l.initiator && l.odds !== null) ?? legs.find((l) => l.odds !== null);
  if (!leg || leg.odds === null || probability === null) return null;
  return Math.round((leg.odds * probability - 1) * 100 * 1e6) / 1e6;
}
