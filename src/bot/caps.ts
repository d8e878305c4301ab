/**
 * Per-user and per-key caps on what a user can make the bot ask the service for: key checks,
 * lookups (/item, /event, the alert's "all items" button, another stake amount), inline searches,
 * filter writes and the ledger's reports (/pnl, /export, /archive: the bot's own CPU). The service counts its budgets per key or for the whole bot; without these
 * caps one user (or several trying one key) could spend a budget every other user's polling
 * needs. A use is counted only when it is allowed, over a sliding window on the injected clock;
 * windows that have emptied are dropped, so the state stays as small as the recent traffic.
 *
 * `CapsPort` is the seam: `UsageCaps` here counts in this process's memory on the injected clock
 * (the embedded bot); the fronts of a cluster count in one set of windows in Redis
 * (src/cluster/shared-caps.ts), so the caps do not multiply with the number of fronts. A take that
 * cannot reach Redis rejects with StateUnavailableError: the use is refused (fail closed).
 */
import type { Clock } from '../clock.js';

export type CapAction = 'connect' | 'lookup' | 'inline' | 'filter' | 'report';

export interface CapRule {
  /** Uses one user may make within the window. */
  perUser: number;
  /** Uses of one access key within the window, whoever makes them (a key tried by several users). */
  perKey: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Each a small part of the service's budget (seed: 20 token requests an hour per key, 20 filter
 * writes an hour per key and host, 30 item reads a minute per key and host), so interactive use
 * by one person leaves most of it for polling.
 */
export const CAP_RULES: Readonly<Record<CapAction, CapRule>> = {
  connect: { perUser: 5, perKey: 3, windowMs: HOUR },
  lookup: { perUser: 10, perKey: 10, windowMs: MINUTE },
  inline: { perUser: 30, perKey: 30, windowMs: MINUTE },
  filter: { perUser: 10, perKey: 10, windowMs: HOUR },
  // The ledger's reports (/pnl with its chart, /export, /archive) spend no service budget but the bot's CPU: a whole ledger read, a chart, a file.
  report: { perUser: 12, perKey: 12, windowMs: 10 * MINUTE },
};

/** Full sweeps of emptied windows happen at most this often (besides the per-bucket trimming). */
const SWEEP_EVERY_MS = MINUTE;

export interface CapsPort {
  /**
   * Takes one use of `action` for `userId` (and `accessKey` when the use spends that key's
   * budget): 0 when allowed (and counted), else how many ms until the next use is allowed.
   */
  take(action: CapAction, userId: number, accessKey?: string): Promise<number>;
}

export class UsageCaps implements CapsPort {
  /** Bucket name → times of the uses still inside the window, oldest first. */
  private readonly uses = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly rules: Readonly<Record<CapAction, CapRule>> = CAP_RULES,
  ) {}

  async take(action: CapAction, userId: number, accessKey?: string): Promise<number> {
    return this.takeNow(action, userId, accessKey);
  }

  private takeNow(action: CapAction, userId: number, accessKey?: string): number {
    const now = this.clock.now();
    this.sweep(now);
    const rule = this.rules[action];
    const buckets: [string, number][] = [[`u:${action}:${userId}`, rule.perUser]];
    if (accessKey !== undefined) buckets.push([`k:${action}:${accessKey}`, rule.perKey]);
    let wait = 0;
    for (const [name, limit] of buckets) {
      const times = this.trimmed(name, now, rule.windowMs);
      if (times.length >= limit) wait = Math.max(wait, (times[times.length - limit] ?? now) + rule.windowMs - now);
    }
    if (wait > 0) return wait;
    for (const [name] of buckets) {
      const times = this.uses.get(name) ?? [];
      times.push(now);
      this.uses.set(name, times);
    }
    return 0;
  }

  /** How many buckets are held (for tests: the state must not grow with traffic that has passed). */
  get size(): number {
    return this.uses.size;
  }

  private trimmed(name: string, now: number, windowMs: number): number[] {
    const times = this.uses.get(name);
    if (!times) return [];
    while (times.length > 0 && (times[0] ?? 0) <= now - windowMs) times.shift();
    if (times.length === 0) this.uses.delete(name);
    return times;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [name, times] of this.uses) {
      const action = name.split(':')[1] as CapAction;
      const windowMs = this.rules[action]?.windowMs ?? HOUR;
      while (times.length > 0 && (times[0] ?? 0) <= now - windowMs) times.shift();
      if (times.length === 0) this.uses.delete(name);
    }
  }
}
