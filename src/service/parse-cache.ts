/**
 * Memory of earlier item parses, so that a read repeating what the service said before costs a
 * `JSON.stringify` per item instead of a schema parse and a new object graph. Every subscription
 * of a service polls every few seconds and mostly gets back the items it got last time; parsing
 * them afresh was the largest share of the bot's CPU time and most of its garbage.
 *
 * Keys are the raw values' JSON text. That is an exact fingerprint only for values that came out
 * of `JSON.parse` (no `undefined`, `NaN` or class instances inside), which is why the cache is
 * opt-in: the service client passes one for its bodies, other callers parse without it.
 *
 * Both maps are bounded by generations: when the current one fills up it becomes the previous one
 * and a fresh one starts; an entry used from the previous generation moves back into the current.
 * What every read still returns stays, what the service stopped sending ages out.
 */

/** Entries per generation; a few services × a few hundred distinct item versions fit many times. */
const GENERATION_SIZE = 20_000;

/** A two-generation map: bounded, and keeps what is still being asked for. */
class GenerationMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.current.size >= this.limit) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}

/**
 * What a parse produced for one raw value, under a key the caller builds (service, flags, JSON).
 * `E` is the parsed event, `I` the per-item memo; the parser decides what they hold.
 */
export class ParseCache<E, I> {
  /** `undefined` values are stored as `null`: "parsed before, not usable". */
  private readonly events = new GenerationMap<E | null>(GENERATION_SIZE);
  private readonly items = new GenerationMap<I>(GENERATION_SIZE);

  /** The event parsed under `key` before, else `parse()`'s result (kept for next time). */
  event(key: string, parse: () => E | undefined): E | undefined {
    const known = this.events.get(key);
    if (known !== undefined) return known ?? undefined;
    const parsed = parse();
    this.events.set(key, parsed ?? null);
    return parsed;
  }

  /** The item memo kept under `key`, if any. */
  item(key: string): I | undefined {
    return this.items.get(key);
  }

  rememberItem(key: string, memo: I): void {
    this.items.set(key, memo);
  }

  /** Entries held (tests, diagnostics). */
  get size(): number {
    return this.events.size + this.items.size;
  }
}

/** The JSON text of a value from `JSON.parse`: equal texts mean equal values. */
export function jsonKey(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
