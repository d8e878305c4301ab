/**
 * The service's limits as the sandbox enforces them: SLIDING windows on the injected clock. A use
 * at time t counts against its scope while now < t + window. Sliding is the strictest reading of
 * "N per hour" (any client that keeps to a sliding window also keeps to every fixed window), so a
 * client that passes here passes on the real service whichever window it counts.
 */

/** Outcome of asking for one use. */
export type LimitDecision = { ok: true } | { ok: false; retryAfterMs: number };

/** N uses per window, per scope string. A refused request is not recorded as a use. */
export class SlidingWindowLimit {
  private readonly uses = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Records a use for `scope` at `now` when there is room; otherwise says how long until there is. */
  take(scope: string, now: number): LimitDecision {
    const times = this.live(scope, now);
    if (times.length < this.limit) {
      times.push(now);
      return { ok: true };
    }
    const oldest = times[times.length - this.limit] ?? now;
    return { ok: false, retryAfterMs: Math.max(1, oldest + this.windowMs - now) };
  }

  /** Uses still inside the window for `scope` at `now`. */
  used(scope: string, now: number): number {
    return this.live(scope, now).length;
  }

  private live(scope: string, now: number): number[] {
    let times = this.uses.get(scope);
    if (!times) {
      times = [];
      this.uses.set(scope, times);
    }
    let drop = 0;
    while (drop < times.length && (times[drop] as number) + this.windowMs <= now) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}

/** The four limits of the service (per hour/minute/day as the seed gives them). */
export interface LimitSet {
  tokens: SlidingWindowLimit;
  filters: SlidingWindowLimit;
  items: SlidingWindowLimit;
  dicts: SlidingWindowLimit;
}

export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export function createLimitSet(l: { tokensPerHour: number; filtersPerHour: number; itemsPerMinute: number; dictsPerDay: number }): LimitSet {
  return {
    tokens: new SlidingWindowLimit(l.tokensPerHour, HOUR_MS),
    filters: new SlidingWindowLimit(l.filtersPerHour, HOUR_MS),
    items: new SlidingWindowLimit(l.itemsPerMinute, MINUTE_MS),
    dicts: new SlidingWindowLimit(l.dictsPerDay, DAY_MS),
  };
}
