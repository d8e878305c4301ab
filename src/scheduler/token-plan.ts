/**
 * The token budget plan of one access key. A token lives one window (5 minutes) and serves one
 * service, so keeping a service readable for a whole hour costs 12 tokens; the service allows
 * LIMIT_TOKENS_PER_HOUR per key across all services. The plan splits the hour into token-lifetime
 * windows and says which services hold a token in which window, so that the scheduler requests
 * at most one token per (service, window) and never more per rolling hour than the budget: the
 * client's limiter then never has to refuse (or hold back) a token request.
 *
 * Pure: the same input always gives the same plan.
 */
import { isLive, kindOf, type Service } from '../service/services.js';

/** A token's lifetime, and so the length of one plan window. */
export const TOKEN_TTL_MS = 300_000;
export const HOUR_MS = 3_600_000;
/** Tokens per hour kept back from polling: /connect checks and the client's renewal after a 401. */
export const DEFAULT_TOKEN_RESERVE = 2;

const KIND_ORDER = { arbs: 0, middles: 1, valuebets: 2 } as const;

/** Live services before prematch ones (a live opportunity lasts seconds); arbs, middles, valuebets within each. */
export function compareServices(a: Service, b: Service): number {
  const live = Number(isLive(b)) - Number(isLive(a));
  return live !== 0 ? live : KIND_ORDER[kindOf(a)] - KIND_ORDER[kindOf(b)];
}

/**
 * The distinct services in plan priority order: those the user ranked (`rank`, first favoured)
 * first, in that order, then the rest by `compareServices`.
 */
export function orderServices(services: Iterable<Service>, rank: readonly Service[] = []): Service[] {
  const place = (s: Service) => {
    const i = rank.indexOf(s);
    return i < 0 ? rank.length : i;
  };
  return [...new Set(services)].sort((a, b) => place(a) - place(b) || compareServices(a, b));
}

export interface TokenPlanInput {
  /** The key's subscribed services (order and duplicates do not matter). */
  services: Iterable<Service>;
  /** The service's limit of token requests per hour for one key. */
  tokensPerHour: number;
  /** Tokens per hour left for the bot's own needs; default 2, cut so that polling keeps at least one. */
  reserve?: number;
  /** The token lifetime: the length of one window; default 5 minutes. */
  windowMs?: number;
  /** The user's ranking of their services (user record `serviceRank`): the first is favoured. */
  rank?: readonly Service[];
}

/** One service's place in the plan. */
export interface ServicePlan {
  /** Windows per cycle in which it holds a token. */
  windows: number;
  /** Share of the time it is readable, 0..1 (windows / windowsPerCycle). */
  share: number;
  /** The window positions within the cycle (0-based, ascending). */
  slots: readonly number[];
}

export interface TokenPlan {
  windowMs: number;
  /** Windows in one cycle: as many window starts as a rolling hour can hold. */
  windowsPerCycle: number;
  /** windowMs × windowsPerCycle (one hour for 5-minute tokens). */
  cycleMs: number;
  /** Token requests per cycle (and so per rolling hour) the scheduler may make. */
  budget: number;
  /** The reserve actually kept (the requested one, cut when the limit is tiny). */
  reserve: number;
  /** Which services hold a token in each window of the cycle, in priority order. */
  windows: readonly (readonly Service[])[];
  services: Partial<Record<Service, ServicePlan>>;
  /** Token requests the plan makes per cycle (≤ budget). */
  tokensPerCycle: number;
}

/**
 * Allocates windows to services. Every service first gets one window (so none starves while the
 * budget lasts), then the rest goes by priority (the user's ranking, then live first), each
 * service up to every window. A service's
 * windows are spread evenly over the cycle, placed where the fewest other tokens are held.
 *
 * Examples at 20 tokens/hour (budget 18): one service → 100 %; live + prematch → 100 % + 50 %;
 * six services → 12/12, 2/12 and 1/12 for the other four.
 */
export function planTokens(input: TokenPlanInput): TokenPlan {
  const windowMs = input.windowMs ?? TOKEN_TTL_MS;
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError('windowMs must be a positive number');
  const limit = Math.max(0, Math.floor(input.tokensPerHour));
  const reserve = Math.max(0, Math.min(Math.floor(input.reserve ?? DEFAULT_TOKEN_RESERVE), limit - 1));
  const windowsPerCycle = Math.max(1, Math.ceil(HOUR_MS / windowMs));
  const budget = Math.max(0, limit - reserve);
  const ordered = orderServices(input.services, input.rank);

  const counts = new Map<Service, number>(ordered.map((s) => [s, 0]));
  let remaining = budget;
  for (const s of ordered) {
    if (remaining === 0) break;
    counts.set(s, 1);
    remaining -= 1;
  }
  for (const s of ordered) {
    const add = Math.min(windowsPerCycle - counts.get(s)!, remaining);
    counts.set(s, counts.get(s)! + add);
    remaining -= add;
  }

  const load: number[] = Array.from({ length: windowsPerCycle }, () => 0);
  const windows: Service[][] = Array.from({ length: windowsPerCycle }, () => []);
  const services: Partial<Record<Service, ServicePlan>> = {};
  let tokensPerCycle = 0;
  for (const s of ordered) {
    const k = counts.get(s)!;
    const slots = placeSlots(k, windowsPerCycle, load);
    for (const slot of slots) {
      load[slot]! += 1;
      windows[slot]!.push(s);
    }
    tokensPerCycle += k;
    services[s] = { windows: k, share: k / windowsPerCycle, slots };
  }

  return { windowMs, windowsPerCycle, cycleMs: windowMs * windowsPerCycle, budget, reserve, windows, services, tokensPerCycle };
}

/** k positions out of n, evenly spaced, at the rotation that keeps the busiest window least busy. */
function placeSlots(k: number, n: number, load: readonly number[]): number[] {
  if (k === 0) return [];
  const base = Array.from({ length: k }, (_, i) => Math.floor((i * n) / k));
  let best: number[] = base;
  let bestMax = Infinity;
  let bestSquares = Infinity;
  for (let phase = 0; phase < n; phase++) {
    const slots = base.map((p) => (p + phase) % n);
    let max = 0;
    let squares = 0;
    for (const slot of slots) {
      const after = load[slot]! + 1;
      max = Math.max(max, after);
      squares += after * after;
    }
    // The busiest window decides; among equals, the flatter spread wins, then the earliest phase.
    if (max < bestMax || (max === bestMax && squares < bestSquares)) {
      bestMax = max;
      bestSquares = squares;
      best = slots;
    }
  }
  return [...best].sort((a, b) => a - b);
}

/** The position within the cycle of an absolute window index (which may be negative). */
export function slotOf(plan: TokenPlan, windowIndex: number): number {
  const n = plan.windowsPerCycle;
  return ((windowIndex % n) + n) % n;
}

/** Whether `service` holds a token in the absolute window `windowIndex`. */
export function isActiveIn(plan: TokenPlan, service: Service, windowIndex: number): boolean {
  return plan.windows[slotOf(plan, windowIndex)]!.includes(service);
}

/** The first absolute window index ≥ `from` in which `service` holds a token; undefined when it never does. */
export function nextActiveWindow(plan: TokenPlan, service: Service, from: number): number | undefined {
  const slots = plan.services[service]?.slots;
  if (!slots || slots.length === 0) return undefined;
  const at = slotOf(plan, from);
  for (const slot of slots) if (slot >= at) return from + (slot - at);
  return from + (plan.windowsPerCycle - at) + slots[0]!;
}

/** The longest stretch of the cycle, in windows, in which `service` holds no token (0: always held). */
export function longestGap(plan: TokenPlan, service: Service): number {
  const slots = plan.services[service]?.slots ?? [];
  if (slots.length === 0) return plan.windowsPerCycle;
  let gap = 0;
  for (let i = 0; i < slots.length; i++) {
    const next = i + 1 < slots.length ? slots[i + 1]! : slots[0]! + plan.windowsPerCycle;
    gap = Math.max(gap, next - slots[i]! - 1);
  }
  return gap;
}

/**
 * When `service` may next get a token under `plan` for a key whose windows start at `offsetMs`:
 * `now` when the current window is one of its own, else the start of its next window; with the
 * key's `ledger` (its token requests of the rolling hour), a window the hour is full in is passed
 * over. Undefined when the plan gives it no window at all.
 */
export function nextTokenAt(
  plan: TokenPlan,
  service: Service,
  offsetMs: number,
  now: number,
  ledger?: { count(at: number): number; oldest(at: number): number | undefined },
): number | undefined {
  const W = plan.windowMs;
  const current = Math.floor((now - offsetMs) / W);
  let from = current;
  for (let tries = 0; tries <= plan.windowsPerCycle * 2; tries++) {
    const window = nextActiveWindow(plan, service, from);
    if (window === undefined) return undefined;
    const start = Math.max(now, window * W + offsetMs);
    if (!ledger || ledger.count(start) < plan.budget) return start;
    // The hour is full then: the window still serves once the oldest request ages out within it.
    const free = (ledger.oldest(start) ?? start) + HOUR_MS + 1;
    if (free < (window + 1) * W + offsetMs) return free;
    from = window + 1;
  }
  return undefined;
}
