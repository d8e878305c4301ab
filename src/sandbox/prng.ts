/**
 * A small seeded PRNG (mulberry32) with named streams. Every random choice of the sandbox comes
 * from a stream derived from (seed, label), so separate concerns (the world of each service,
 * tokens, faults) never disturb each other's sequence: request traffic cannot change the world.
 */

/** A deterministic source of random numbers with the helpers the sandbox needs. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  uniform(min: number, max: number): number;
  /** A whole number in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** `count` distinct elements of `list` (count ≤ list.length), in random order. */
  sample<T>(list: readonly T[], count: number): T[];
  /** Exponentially distributed with the given mean. */
  exp(mean: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** `length` lowercase hex characters. */
  hex(length: number): string;
}

/** FNV-1a over the label, mixed with the seed: a 32-bit start state per stream. */
function streamSeed(seed: number, label: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= seed >>> 16;
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
}

/** Creates the stream named `label` of the world seeded with `seed`. */
export function createRng(seed: number, label: string): Rng {
  let state = streamSeed(seed, label);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    uniform: (min, max) => min + next() * (max - min),
    int,
    pick: <T>(list: readonly T[]): T => {
      if (list.length === 0) throw new Error('pick from an empty list');
      return list[Math.floor(next() * list.length)] as T;
    },
    sample: <T>(list: readonly T[], count: number): T[] => {
      const copy = [...list];
      const out: T[] = [];
      while (out.length < count && copy.length > 0) {
        const [taken] = copy.splice(Math.floor(next() * copy.length), 1);
        out.push(taken as T);
      }
      return out;
    },
    // 1 - next() is in (0, 1], so the log is finite.
    exp: (mean) => -Math.log(1 - next()) * mean,
    chance: (p) => next() < p,
    hex: (length) => {
      let s = '';
      while (s.length < length) s += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0');
      return s.slice(0, length);
    },
  };
}
