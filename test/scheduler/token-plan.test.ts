import { describe, expect, it } from 'vitest';
import {
  compareServices,
  HOUR_MS,
  isActiveIn,
  nextActiveWindow,
  orderServices,
  planTokens,
  slotOf,
  TOKEN_TTL_MS,
  type TokenPlan,
} from '../../src/scheduler/token-plan.js';
import { SERVICES, type Service } from '../../src/service/services.js';
import { maxInWindow } from '../support/window.js';

/** Every non-empty subset of the six services. */
const SUBSETS: Service[][] = Array.from({ length: 63 }, (_, mask) =>
  SERVICES.filter((_, i) => ((mask + 1) >> i) & 1),
);

const windowsOf = (plan: TokenPlan) =>
  Object.fromEntries(Object.entries(plan.services).map(([s, p]) => [s, p!.windows]));

/**
 * Token requests the plan makes over `cycles` cycles when each service asks for its token at its
 * own fixed moment into the window (the scheduler gives each subscription a fixed phase), checked
 * against every rolling hour as a sliding-window limiter counts it.
 */
function maxTokensPerRollingHour(plan: TokenPlan, cycles: number, phaseMs: (s: Service) => number): number {
  const times: number[] = [];
  for (let w = 0; w < plan.windowsPerCycle * cycles; w++) {
    for (const s of plan.windows[slotOf(plan, w)]!) times.push(w * plan.windowMs + phaseMs(s));
  }
  // The service counts the hour up to and including each request, as maxInWindow does.
  return maxInWindow(times, HOUR_MS);
}

describe('service priority', () => {
  it('puts live before prematch and arbs, middles, valuebets within each', () => {
    expect(orderServices([...SERVICES].reverse())).toEqual([
      'arbs_live',
      'middles_live',
      'valuebets_live',
      'arbs_prematch',
      'middles_prematch',
      'valuebets_prematch',
    ]);
    expect(orderServices(['arbs_prematch', 'arbs_prematch'])).toEqual(['arbs_prematch']);
    expect(compareServices('valuebets_live', 'arbs_prematch')).toBeLessThan(0);
  });
});

describe('planTokens at 20 tokens an hour (reserve 2)', () => {
  it('keeps one service readable all the time', () => {
    const plan = planTokens({ services: ['middles_prematch'], tokensPerHour: 20 });
    expect(plan).toMatchObject({ windowMs: TOKEN_TTL_MS, windowsPerCycle: 12, cycleMs: HOUR_MS, budget: 18, reserve: 2, tokensPerCycle: 12 });
    expect(plan.services.middles_prematch).toEqual({ windows: 12, share: 1, slots: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] });
  });

  it('gives live 100 % and prematch 50 %, alternating windows', () => {
    const plan = planTokens({ services: ['arbs_prematch', 'arbs_live'], tokensPerHour: 20 });
    expect(plan.services.arbs_live?.share).toBe(1);
    expect(plan.services.arbs_prematch?.share).toBe(0.5);
    expect(plan.services.arbs_prematch?.slots).toEqual([0, 2, 4, 6, 8, 10]);
    expect(plan.tokensPerCycle).toBe(18);
    expect(plan.windows[0]).toEqual(['arbs_live', 'arbs_prematch']);
    expect(plan.windows[1]).toEqual(['arbs_live']);
  });

  it.each([
    [['arbs_live'], { arbs_live: 12 }],
    [['arbs_live', 'arbs_prematch'], { arbs_live: 12, arbs_prematch: 6 }],
    [['arbs_live', 'arbs_prematch', 'middles_prematch'], { arbs_live: 12, arbs_prematch: 5, middles_prematch: 1 }],
    [['arbs_prematch', 'middles_prematch', 'valuebets_prematch'], { arbs_prematch: 12, middles_prematch: 5, valuebets_prematch: 1 }],
    [
      ['arbs_live', 'middles_live', 'arbs_prematch', 'middles_prematch'],
      { arbs_live: 12, middles_live: 4, arbs_prematch: 1, middles_prematch: 1 },
    ],
    [
      ['arbs_live', 'middles_live', 'valuebets_live', 'arbs_prematch', 'middles_prematch'],
      { arbs_live: 12, middles_live: 3, valuebets_live: 1, arbs_prematch: 1, middles_prematch: 1 },
    ],
    [
      [...SERVICES],
      { arbs_live: 12, middles_live: 2, valuebets_live: 1, arbs_prematch: 1, middles_prematch: 1, valuebets_prematch: 1 },
    ],
  ] as [Service[], Record<string, number>][])('%j → %j windows of 12', (services, expected) => {
    const plan = planTokens({ services, tokensPerHour: 20 });
    expect(windowsOf(plan)).toEqual(expected);
    expect(plan.tokensPerCycle).toBe(Math.min(18, services.length * 12));
    for (const [s, w] of Object.entries(expected)) expect(plan.services[s as Service]?.share).toBeCloseTo(w / 12, 10);
  });
});

describe('planTokens at other budgets', () => {
  it.each([
    // [tokensPerHour, reserve, services, expected windows]
    [14, 2, ['arbs_live'], { arbs_live: 12 }],
    [13, 2, ['arbs_live'], { arbs_live: 11 }],
    [12, 2, ['arbs_live', 'arbs_prematch'], { arbs_live: 9, arbs_prematch: 1 }],
    [26, 2, ['arbs_live', 'arbs_prematch'], { arbs_live: 12, arbs_prematch: 12 }],
    [40, 2, ['arbs_live', 'middles_live', 'arbs_prematch'], { arbs_live: 12, middles_live: 12, arbs_prematch: 12 }],
    [60, 0, [...SERVICES], { arbs_live: 12, middles_live: 12, valuebets_live: 12, arbs_prematch: 12, middles_prematch: 11, valuebets_prematch: 1 }],
    [100, 2, [...SERVICES], { arbs_live: 12, middles_live: 12, valuebets_live: 12, arbs_prematch: 12, middles_prematch: 12, valuebets_prematch: 12 }],
    [3, 2, ['arbs_live', 'arbs_prematch'], { arbs_live: 1, arbs_prematch: 0 }],
    [20, 5, ['arbs_prematch', 'valuebets_live'], { valuebets_live: 12, arbs_prematch: 3 }],
  ] as [number, number, Service[], Record<string, number>][])('%d/h, reserve %d, %j → %j', (limit, reserve, services, expected) => {
    const plan = planTokens({ services, tokensPerHour: limit, reserve });
    expect(windowsOf(plan)).toEqual(expected);
    expect(plan.budget).toBe(limit - Math.min(reserve, limit - 1));
  });

  it('cuts the reserve so that a tiny limit still polls', () => {
    expect(planTokens({ services: ['arbs_live'], tokensPerHour: 1 })).toMatchObject({ reserve: 0, budget: 1, tokensPerCycle: 1 });
    expect(planTokens({ services: ['arbs_live'], tokensPerHour: 2 })).toMatchObject({ reserve: 1, budget: 1 });
    expect(planTokens({ services: ['arbs_live'], tokensPerHour: 0 }).services.arbs_live).toEqual({ windows: 0, share: 0, slots: [] });
  });

  it('plans an empty service list as nothing', () => {
    const plan = planTokens({ services: [], tokensPerHour: 20 });
    expect(plan.tokensPerCycle).toBe(0);
    expect(plan.windows.every((w) => w.length === 0)).toBe(true);
  });

  it('takes other token lifetimes: windows per cycle cover a rolling hour', () => {
    const seven = planTokens({ services: ['arbs_live'], tokensPerHour: 20, windowMs: 7 * 60_000 });
    expect(seven.windowsPerCycle).toBe(9);
    expect(seven.services.arbs_live?.share).toBe(1);
    const ten = planTokens({ services: ['arbs_live', 'arbs_prematch', 'middles_prematch'], tokensPerHour: 10, windowMs: 10 * 60_000 });
    expect(windowsOf(ten)).toEqual({ arbs_live: 6, arbs_prematch: 1, middles_prematch: 1 });
    expect(() => planTokens({ services: [], tokensPerHour: 20, windowMs: 0 })).toThrow(RangeError);
  });
});

describe('planTokens invariants over every subset and budget', () => {
  const budgets = [1, 2, 3, 5, 8, 12, 13, 18, 20, 24, 30, 40, 60, 80, 100];

  it('never plans more token requests in any rolling hour than the budget, whatever each service\'s phase in the window', () => {
    for (const services of SUBSETS) {
      for (const limit of budgets) {
        const plan = planTokens({ services, tokensPerHour: limit });
        expect(plan.tokensPerCycle).toBeLessThanOrEqual(plan.budget);
        expect(plan.budget + plan.reserve).toBe(limit);
        expect(maxTokensPerRollingHour(plan, 3, () => 0)).toBeLessThanOrEqual(plan.budget);
        expect(maxTokensPerRollingHour(plan, 3, (s) => SERVICES.indexOf(s) * 37_000 + limit * 1_000)).toBeLessThanOrEqual(plan.budget);
      }
    }
  });

  it('uses the whole budget, starves no service while it can, and respects priority', () => {
    // Collected as text so that one failure names its case (and thousands of checks stay fast).
    const violations: string[] = [];
    for (const services of SUBSETS) {
      for (const limit of budgets) {
        const plan = planTokens({ services, tokensPerHour: limit });
        const ordered = orderServices(services);
        const counts = ordered.map((s) => plan.services[s]!.windows);
        const at = `${limit}/h ${ordered.join(',')}`;
        if (plan.tokensPerCycle !== Math.min(plan.budget, ordered.length * 12)) violations.push(`${at}: budget not used`);
        if (counts.some((c) => c > 12)) violations.push(`${at}: more windows than the cycle`);
        if (plan.budget >= ordered.length && counts.some((c) => c < 1)) violations.push(`${at}: a service starves`);
        // A service never gets more than one that comes before it.
        for (let i = 1; i < counts.length; i++) if (counts[i]! > counts[i - 1]!) violations.push(`${at}: priority broken`);
        for (const s of ordered) {
          const { slots, windows, share } = plan.services[s]!;
          if (slots.length !== windows || Math.abs(share - windows / 12) > 1e-12) violations.push(`${at}: ${s} share`);
          // The window table and the per-service slots tell the same story.
          for (let w = 0; w < 12; w++) if (plan.windows[w]!.includes(s) !== slots.includes(w)) violations.push(`${at}: ${s} table`);
          // Evenly spread: gaps between consecutive windows differ by at most one.
          if (slots.length > 1) {
            const gaps = slots.map((slot, i) => ((slots[(i + 1) % slots.length]! - slot + 12) % 12) || 12);
            if (Math.max(...gaps) - Math.min(...gaps) > 1) violations.push(`${at}: ${s} uneven`);
          }
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('spreads partial services over different windows', () => {
    const plan = planTokens({ services: ['arbs_live', 'arbs_prematch', 'middles_prematch', 'valuebets_prematch'], tokensPerHour: 20 });
    // 12 + 4 + 1 + 1 = 18 tokens over 12 windows: no window holds more than two.
    expect(Math.max(...plan.windows.map((w) => w.length))).toBe(2);
    const partialSlots = (['arbs_prematch', 'middles_prematch', 'valuebets_prematch'] as const).flatMap((s) => plan.services[s]!.slots);
    expect(new Set(partialSlots).size).toBe(partialSlots.length);
  });
});

describe('window helpers', () => {
  const plan = planTokens({ services: ['arbs_live', 'arbs_prematch'], tokensPerHour: 20 });

  it('maps any window index, negative too, onto the cycle', () => {
    expect(slotOf(plan, 0)).toBe(0);
    expect(slotOf(plan, 25)).toBe(1);
    expect(slotOf(plan, -1)).toBe(11);
    expect(isActiveIn(plan, 'arbs_prematch', 24)).toBe(true);
    expect(isActiveIn(plan, 'arbs_prematch', 25)).toBe(false);
    expect(isActiveIn(plan, 'arbs_prematch', -2)).toBe(true);
    expect(isActiveIn(plan, 'middles_live', 0)).toBe(false);
  });

  it('finds the next window a service holds a token in', () => {
    expect(nextActiveWindow(plan, 'arbs_live', 7)).toBe(7);
    expect(nextActiveWindow(plan, 'arbs_prematch', 7)).toBe(8);
    expect(nextActiveWindow(plan, 'arbs_prematch', 11)).toBe(12);
    expect(nextActiveWindow(plan, 'arbs_prematch', -1)).toBe(0);
    expect(nextActiveWindow(plan, 'middles_live', 0)).toBeUndefined();
    for (let from = -30; from < 30; from++) {
      const next = nextActiveWindow(plan, 'arbs_prematch', from)!;
      expect(next).toBeGreaterThanOrEqual(from);
      expect(isActiveIn(plan, 'arbs_prematch', next)).toBe(true);
      for (let w = from; w < next; w++) expect(isActiveIn(plan, 'arbs_prematch', w)).toBe(false);
    }
  });
});
