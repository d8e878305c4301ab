/**
 * The wire shapes the sandbox serves (service-api.md §5): the items envelope, its items, legs
 * and events. Times are "YYYY-MM-DD HH:MM:SS" in UTC; `timestamp` is unix seconds.
 */

/** One leg of an item: a bet on one outcome at one bookmaker (through its sub-event). */
export interface WireLeg {
  sub_event_id: string;
  type_id: number;
  /** Decimal odds; 0 when masked. */
  value: number;
  /** The odds before the last change (equal to `value` until the first move); 0 when masked. */
  prev: number;
  /** The line (handicap or total), '' when the market has none. */
  index: string;
  /** When these odds last changed; absent on a leg injected without it. */
  updated?: string;
  initiator: boolean;
  crumbs: Record<string, never>;
}

/** One opportunity. Which value fields are present depends on the kind. */
export interface WireItem {
  id: string;
  event_id: string;
  /** arbs: profit %; middles: profit % when the middle misses; valuebets: overvalue %. */
  value: number;
  /** arbs and middles: same as `value`. */
  roi?: number;
  /** middles: profit % when the middle hits (both legs win). */
  middle_value?: number;
  /** valuebets: the probability (0..1) of the outcome. */
  probability?: number;
  /** valuebets: 1 / probability. */
  fair_odds?: number;
  created: string;
  groups_ids: number[];
  odds: WireLeg[];
}

/** The line of an event at one bookmaker. */
export interface WireSubEvent {
  id: string;
  bookmaker_id: number;
  original_id: string;
}

export interface WireEvent {
  id: string;
  sport_id: number;
  league: string;
  team_1: string;
  team_2: string;
  start: string;
  live: boolean;
  sub_events: WireSubEvent[];
}

/** The answer of every items read (list, per event, by id). */
export interface WireEnvelope {
  filtered: number;
  masked: boolean;
  timestamp: number;
  items: WireItem[];
  events: WireEvent[];
}

/** Formats ms since the epoch as "YYYY-MM-DD HH:MM:SS" in UTC. */
export function wireTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
