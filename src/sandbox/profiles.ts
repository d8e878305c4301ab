/**
 * Named world shapes for `startSandbox({ world })`. The default world is calm (items live minutes
 * and move every 20 s, a dead one is replaced); `BUSY_WORLD` is what a bettor watching live
 * markets sees: a new item every 4–9 s, about 15 % of them gone within 3–8 s, and most of the
 * rest moving every 15–40 s, so a bot's new alerts compete with its edits for each chat's budget.
 * Deterministic for a seed, like every world.
 */
import type { Rng } from './prng.js';
import type { SandboxOptions } from './types.js';
import type { WorldProfile } from './world-model.js';

/** The busy world's tempo, exported so a benchmark can print what it ran against. */
export const BUSY_TEMPO = {
  birthGapMs: { min: 4_000, max: 9_000 },
  /** The share of items that live only seconds, and how long they live. */
  shortLivedShare: 0.15,
  shortLifetimeMs: { min: 3_000, max: 8_000 },
  /** The others' lifetime. */
  lifetimeMs: { min: 60_000, max: 240_000 },
  /** The share of items that move at all, and the gap between their moves. */
  movingShare: 0.8,
  moveGapMs: { min: 15_000, max: 40_000 },
} as const;

const between = (rng: Rng, r: { min: number; max: number }): number => Math.round(rng.uniform(r.min, r.max));

/** The busy world's draws. */
export const busyProfile: WorldProfile = {
  lifetimeMs: (rng) => (rng.chance(BUSY_TEMPO.shortLivedShare) ? between(rng, BUSY_TEMPO.shortLifetimeMs) : between(rng, BUSY_TEMPO.lifetimeMs)),
  moves: (rng) => rng.chance(BUSY_TEMPO.movingShare),
  moveGapMs: (rng) => between(rng, BUSY_TEMPO.moveGapMs),
  birthGapMs: (rng) => between(rng, BUSY_TEMPO.birthGapMs),
};

/**
 * The busy world as sandbox options. It starts with about as many items as its steady state holds
 * (a birth every 6.5 s on average, each living about 2 minutes: some 18 alive).
 */
export const BUSY_WORLD: NonNullable<SandboxOptions['world']> = {
  eventsPerService: 20,
  itemsPerService: 18,
  meanLifetimeMs: 150_000,
  moveEveryMs: 27_500,
  profile: busyProfile,
};
