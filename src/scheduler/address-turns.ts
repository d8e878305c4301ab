/**
 * Token turns under LIMIT_SCOPE=address: the service counts token requests per address, so the
 * whole bot shares one hourly budget and every user's tokens come out of it. The budget is
 * spread evenly over the token-lifetime windows of an hour, and each window's tokens go to users
 * in turn (round robin, one user after another), each user's services taking turns too (live
 * first). Over time every user gets the same number of tokens, whoever subscribed first.
 */
import type { Service } from '../service/services.js';
import { compareServices, DEFAULT_TOKEN_RESERVE, HOUR_MS, TOKEN_TTL_MS } from './token-plan.js';

/** One subscription competing for the shared budget. */
export interface TurnMember {
  userId: number;
  service: Service;
}

export interface AddressTurnsOptions {
  tokensPerHour: number;
  /** Tokens per hour left to the bot (/connect checks, renewals); default 2, cut so that polling keeps one. */
  reserve?: number;
  windowMs?: number;
}

export class AddressTokenTurns {
  readonly windowMs: number;
  readonly windowsPerCycle: number;
  /** Token requests per cycle (per rolling hour) all polling together may make. */
  readonly budget: number;
  /** The user served last; the next window starts after them. */
  private lastUser = -Infinity;
  /** Per user, the service served last. */
  private readonly lastService = new Map<number, Service>();

  constructor(opts: AddressTurnsOptions) {
    this.windowMs = opts.windowMs ?? TOKEN_TTL_MS;
    const limit = Math.max(0, Math.floor(opts.tokensPerHour));
    const reserve = Math.max(0, Math.min(Math.floor(opts.reserve ?? DEFAULT_TOKEN_RESERVE), limit - 1));
    this.windowsPerCycle = Math.max(1, Math.ceil(HOUR_MS / this.windowMs));
    this.budget = limit - reserve;
  }

  /** Tokens window `windowIndex` may hand out: the budget spread evenly, so any cycle of windows adds up to it. */
  quota(windowIndex: number): number {
    const n = this.windowsPerCycle;
    const k = ((windowIndex % n) + n) % n;
    return Math.floor(((k + 1) * this.budget) / n) - Math.floor((k * this.budget) / n);
  }

  /**
   * Picks who gets a token in window `windowIndex`: users in turn after the one served last, each
   * taking their next service in priority order; a subscription gets at most one per window.
   */
  grant(windowIndex: number, members: readonly TurnMember[]): TurnMember[] {
    const quota = this.quota(windowIndex);
    const byUser = new Map<number, Service[]>();
    for (const m of members) {
      const list = byUser.get(m.userId) ?? [];
      if (!list.includes(m.service)) list.push(m.service);
      byUser.set(m.userId, list);
    }
    const users = [...byUser.keys()].sort((a, b) => a - b);
    if (users.length === 0 || quota === 0) return [];
    for (const list of byUser.values()) list.sort(compareServices);

    const first = users.findIndex((u) => u > this.lastUser);
    const order = first <= 0 ? users : [...users.slice(first), ...users.slice(0, first)];
    const granted: TurnMember[] = [];
    const taken = new Map<number, Set<Service>>();
    while (granted.length < quota) {
      let progress = false;
      for (const userId of order) {
        if (granted.length >= quota) break;
        const services = byUser.get(userId)!;
        const mine = taken.get(userId) ?? new Set<Service>();
        if (mine.size >= services.length) continue;
        // The user's next service after the one served last, skipping those served this window.
        const last = this.lastService.get(userId);
        const from = last === undefined ? 0 : (services.indexOf(last) + 1) % services.length;
        let pick: Service | undefined;
        for (let i = 0; i < services.length; i++) {
          const candidate = services[(from + i) % services.length]!;
          if (!mine.has(candidate)) {
            pick = candidate;
            break;
          }
        }
        if (!pick) continue;
        mine.add(pick);
        taken.set(userId, mine);
        this.lastService.set(userId, pick);
        this.lastUser = userId;
        granted.push({ userId, service: pick });
        progress = true;
      }
      if (!progress) break;
    }
    return granted;
  }

  /**
   * The share of the time each member is expected to hold a token (0..1), keyed by
   * `${userId}:${service}`: the budget split equally between users (max-min fair: a user who
   * cannot use a full share leaves the rest to others), then equally between a user's services,
   * each capped at every window.
   */
  shares(members: readonly TurnMember[]): Map<string, number> {
    const demand = new Map<number, Set<Service>>();
    for (const m of members) demand.set(m.userId, (demand.get(m.userId) ?? new Set()).add(m.service));
    const n = this.windowsPerCycle;
    // Water-filling: users whose whole demand fits under the equal share are served in full.
    const users = [...demand.entries()].map(([id, s]) => ({ id, services: s, cap: s.size * n })).sort((a, b) => a.cap - b.cap);
    const result = new Map<string, number>();
    let left = this.budget;
    for (let i = 0; i < users.length; i++) {
      const { id, services, cap } = users[i]!;
      const give = Math.min(cap, left / (users.length - i));
      left -= give;
      for (const service of services) result.set(`${id}:${service}`, Math.min(1, give / services.size / n));
    }
    return result;
  }

  /** One member's share (see `shares`); 0 when it is not a member. */
  share(members: readonly TurnMember[], userId: number, service: Service): number {
    return this.shares(members).get(`${userId}:${service}`) ?? 0;
  }
}
