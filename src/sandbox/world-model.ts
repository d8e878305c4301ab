/**
 * The sandbox world's model: how a world is shaped (`WorldOptions`, a `WorldProfile` of tempo
 * draws), the simulated events, items and legs the service emulator serves, and the changes it
 * records. Plain data; `world.ts` runs it, `to-wire.ts` shows it as the service would.
 */
import type { SportProfile } from './catalog.js';
import type { Rng } from './prng.js';
import type { Kind, Service } from '../service/services.js';

/** How the world is shaped; every field has a default (see `startSandbox`). */
export interface WorldOptions {
  seed: number;
  /** The world's time zero (the clock's now at start), ms. */
  startMs: number;
  eventsPerService: number;
  itemsPerService: number;
  meanLifetimeMs: number;
  moveEveryMs: number;
  /** Draws that replace the default shapes (see `WorldProfile`); without it the world is as before. */
  profile?: WorldProfile;
}

/**
 * A world's tempo drawn per item instead of from the three means above: how long an item lives,
 * whether and how often it moves, and when the next one is born. With `birthGapMs` births follow
 * their own clock (a dead item is not replaced). Every draw takes the seeded stream it is given.
 */
export interface WorldProfile {
  lifetimeMs(rng: Rng): number;
  /** Whether a new item moves at all (drawn once per item). */
  moves(rng: Rng): boolean;
  /** The gap to an item's next move. */
  moveGapMs(rng: Rng): number;
  /** The gap to the next natural birth. */
  birthGapMs(rng: Rng): number;
}

export interface SimSubEvent {
  id: string;
  bookmakerId: number;
  originalId: string;
}

export interface SimEvent {
  id: string;
  sport: SportProfile;
  league: string;
  team1: string;
  team2: string;
  startMs: number;
  /** When the event leaves the world (prematch: its start; live: the final whistle). */
  endMs: number;
  live: boolean;
  subEvents: Map<number, SimSubEvent>;
  /** What the event's alive items quote, so that no two of them contradict each other. */
  quotes: EventQuotes;
}

/**
 * One price per outcome and bookmaker, one set of chances per market: a leg key
 * (`legKey`) is held by at most one alive item, and every item on a market (its outcomes'
 * signature) prices from the same chances, so two alerts about one match agree.
 */
export interface EventQuotes {
  /** Leg key → the id of the alive item quoting it. */
  held: Map<string, string>;
  /** Market signature (its outcomes in order) → their chances, summing to 1; 'result': home / draw / away, shared by 1, X, 2, 1X, X2 and 12. */
  chances: Map<string, number[]>;
}

/** The key of one outcome at one bookmaker on an event. */
export function legKey(typeId: number, line: string, bookmakerId: number): string {
  return `${typeId}|${line}|${bookmakerId}`;
}

export interface SimLeg {
  subEventId: string;
  bookmakerId: number;
  typeId: number;
  line: string;
  odds: number;
  prev: number;
  updatedMs: number;
  initiator: boolean;
  /** An injected leg the service sends without its `updated` time (a test of a leg of unknown age). */
  noUpdated?: boolean;
}


/** What a test asks of an injected item (World.inject). */
export interface InjectOptions {
  /** Its value (profit %, miss profit % for middles, overvalue % for valuebets). */
  profit?: number | undefined;
  /** Each leg's age, ms (negative: in the future; null: sent without `updated`). */
  legAgesMs?: readonly (number | null)[] | undefined;
  /** The legs' bookmakers, in order: one per outcome of the market drawn. */
  bookmakers?: readonly number[] | undefined;
}
export interface SimItem {
  id: string;
  service: Service;
  kind: Kind;
  event: SimEvent;
  createdMs: number;
  groupId: number;
  legs: SimLeg[];
  /** valuebets only: the outcome's probability. */
  probability: number;
  /** The value band moves keep to. */
  band: { min: number; max: number };
  deathMs: number;
  injected: boolean;
  rng: Rng;
  alive: boolean;
  /** With a profile: false for an item that never moves. */
  moves: boolean;
}

/** One change of the world, for tests and benchmarks. */
export interface WorldChange {
  at: number;
  service: Service;
  type: 'appeared' | 'moved' | 'gone';
  id: string;
}
