/**
 * The one typed model of an opportunity (arb, middle or valuebet) that everything past the
 * service client works with. The client's parsers map the service's envelope onto it.
 */
import type { Kind, Service } from './services.js';

export interface EventInfo {
  id: string;
  sportId: number | undefined;
  league: string;
  team1: string;
  team2: string;
  /** Start time, ms since the epoch (UTC); undefined when the service did not say. */
  startsAt: number | undefined;
  live: boolean;
}

export interface Leg {
  subEventId: string;
  /** Resolved through the event's `sub_events`; undefined when the service did not link it. */
  bookmakerId: number | undefined;
  /** Dictionary odds type (market), e.g. 1 = home win, or a total over. */
  typeId: number;
  /** The line (handicap or total value) from the leg's `index`; empty when none. */
  line: string;
  /** Decimal odds; null when masked (no paid access): never show it as 0. */
  odds: number | null;
  prevOdds: number | null;
  /** Last change of these odds, ms since the epoch. */
  updatedAt: number | undefined;
  initiator: boolean;
  /**
   * A lay bet (on an exchange), when the service said so on the leg itself; otherwise the leg's
   * odds type in the dictionaries says (`lay`), which the alerts look up.
   */
  lay?: boolean;
}

export interface Opportunity {
  id: string;
  service: Service;
  kind: Kind;
  event: EventInfo;
  legs: Leg[];
  /**
   * arbs: guaranteed profit % (the service's); middles: profit % when the middle misses (often
   * negative), computed from the two legs' odds, or the service's `value` when the odds are
   * hidden; valuebets: null (see `overvalue`). Filters and sorting use it.
   */
  profit: number | null;
  /** middles: profit % when the middle hits (from the odds, as `profit`); null for other kinds or when absent. */
  middleProfit: number | null;
  /** valuebets: overvalue (EV) %; null for other kinds or when absent. */
  overvalue: number | null;
  /** valuebets: the service's probability of the outcome (0..1) when present. */
  probability: number | null;
  /** When the service first saw it, ms since the epoch. */
  createdAt: number | undefined;
  /** True when the envelope said the data is masked (odds hidden without a paid plan). */
  masked: boolean;
  /** The service's odds groups of the item (the match, a half, corners…: `groups_ids`); absent: none said. */
  groupIds?: number[];
}

/** One read of a filter's items: the normalized set plus the envelope's own facts. */
export interface ItemsRead {
  items: Opportunity[];
  masked: boolean;
  /**
   * Whether the envelope said `masked` at all (true or false): a read that said nothing and held
   * no items tells nothing of the key's plan. Other sources may leave it out.
   */
  maskStated?: boolean;
  /** The service's timestamp of this set, ms since the epoch, when given. */
  timestamp: number | undefined;
  /** Items it could not use (kept out, counted, never a crash). */
  skipped: number;
  /** Why items were kept out, by reason (the parsers fill it; other sources may leave it out). */
  rejected?: Partial<Record<ItemRejectReason, number>>;
}

/**
 * Why an item of the service was kept out: a number that is not finite (a numeric string of
 * hundreds of digits reads as Infinity), a field of the wrong type or missing, legs that cannot be
 * used (none, or one without its market), or no event to show it with.
 */
export type ItemRejectReason = 'non_finite' | 'wrong_type' | 'bad_legs' | 'no_event';
