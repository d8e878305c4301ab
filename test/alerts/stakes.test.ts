import { describe, expect, it } from 'vitest';
import {
  arbProfitPct,
  arbStakes,
  middleIdealPct,
  middleOutcomes,
  valuebetMaths,
  type ArbStakes,
  type CannotCompute,
} from '../../src/alerts/stakes.js';

function computed<T extends { ok: true }>(r: T | CannotCompute): T {
  if (!r.ok) throw new Error(`expected a result, got cannot compute: ${r.reason}`);
  return r;
}

/** A money value has at most two decimals and no float noise. */
function isCents(x: number): boolean {
  return Number.isFinite(x) && /^-?\d+(\.\d{1,2})?$/.test(String(x));
}

describe('arbStakes: hand-computed examples', () => {
  it('2-way, step 1: 2.10 / 2.00 on 100 → 49 / 51, +2.00 whichever wins', () => {
    // ideal 100·(1/2.1)/(1/2.1+1/2) = 48.78 and 51.22 → nearest 49 / 51
    const r = computed(arbStakes([2.1, 2.0], 100, 1));
    expect(r.stakes).toEqual([49, 51]);
    expect(r.total).toBe(100);
    expect(r.payouts).toEqual([102.9, 102]);
    expect(r.worstProfit).toBe(2);
    expect(r.worstProfitPct).toBeCloseTo(2, 10);
    // 1 / (1/2.1 + 1/2) − 1 = 2.439…%
    expect(r.profitPct).toBeCloseTo(2.4390244, 6);
    // leg 1 alone: 1/(1 − 1/2) = 2; leg 2 alone: 1/(1 − 1/2.1) = 1.90909…
    expect(r.breakEven[0]).toBeCloseTo(2, 10);
    expect(r.breakEven[1]).toBeCloseTo(1.9090909, 6);
  });

  it('2-way, step 5: goes one step over the bankroll when that is the only balanced split', () => {
    // 200 → ideal 97.56 / 102.44 → nearest 100 / 100 pays 210 / 200 (worst 0);
    // 100 / 105 (total 205 = bankroll + one step) pays 210 / 210 (worst +5), the best of all neighbours.
    const r = computed(arbStakes([2.1, 2.0], 200, 5));
    expect(r.stakes).toEqual([100, 105]);
    expect(r.total).toBe(205);
    expect(r.payouts).toEqual([210, 210]);
    expect(r.worstProfit).toBe(5);
    expect(r.worstProfitPct).toBeCloseTo((5 / 205) * 100, 10);
  });

  it('2-way, step 5 on 100: rounding eats the profit and says so (worst case 0, not the 2.44 %)', () => {
    const r = computed(arbStakes([2.1, 2.0], 100, 5));
    expect(r.stakes).toEqual([50, 50]);
    expect(r.worstProfit).toBe(0);
    expect(r.worstProfitPct).toBe(0);
    expect(r.profitPct).toBeCloseTo(2.4390244, 6);
  });

  it('3-way, step 1: 2.5 / 3.5 / 5.0 on 100 → 45 / 32 / 23, +12.00', () => {
    // ideal 45.16 / 32.26 / 22.58; payouts 112.50 / 112.00 / 115.00. No split of ≤ 101 pays ≥ 113 on every leg.
    const r = computed(arbStakes([2.5, 3.5, 5.0], 100, 1));
    expect(r.stakes).toEqual([45, 32, 23]);
    expect(r.total).toBe(100);
    expect(r.payouts).toEqual([112.5, 112, 115]);
    expect(r.worstProfit).toBe(12);
    // 1 / (0.4 + 0.285714 + 0.2) − 1 = 12.903 %
    expect(r.profitPct).toBeCloseTo(12.9032258, 6);
    // break-even: 1/(1 − 0.485714) = 1.9444, 1/(1 − 0.6) = 2.5, 1/(1 − 0.685714) = 3.1818
    expect(r.breakEven[0]).toBeCloseTo(1.9444444, 6);
    expect(r.breakEven[1]).toBeCloseTo(2.5, 10);
    expect(r.breakEven[2]).toBeCloseTo(3.1818182, 6);
  });

  it('3-way, step 10: the nearest rounding (50/30/20, worst 0) is fixed to 40/30/20 (worst +10)', () => {
    const r = computed(arbStakes([2.5, 3.5, 5.0], 100, 10));
    expect(r.stakes).toEqual([40, 30, 20]);
    expect(r.total).toBe(90);
    expect(r.payouts).toEqual([100, 105, 100]);
    expect(r.worstProfit).toBe(10);
    expect(r.worstProfitPct).toBeCloseTo((10 / 90) * 100, 10);
  });

  it('3-way, step 0.5: 2.9 / 3.2 / 3.6 on 50 → 18.5 / 17 / 15 (total 50.5), +3.15 in exact cents', () => {
    // nearest 18.5 / 16.5 / 15 pays 53.65 / 52.80 / 54.00 (worst +2.80); one more half-unit on leg 2 pays
    // 54.40 and lifts the worst case to 53.65 − 50.5 = +3.15.
    const r = computed(arbStakes([2.9, 3.2, 3.6], 50, 0.5));
    expect(r.stakes).toEqual([18.5, 17, 15]);
    expect(r.total).toBe(50.5);
    expect(r.payouts).toEqual([53.65, 54.4, 54]);
    expect(r.worstProfit).toBe(3.15);
  });

  it('break-even is Infinity (never NaN) when the other legs alone cost 100 % or more', () => {
    // 1/1.5 + 1/1.8 = 1.22 ≥ 1: no odds on leg 3 could make this an arb
    const r = computed(arbStakes([1.5, 1.8, 10], 100, 1));
    expect(r.breakEven[2]).toBe(Number.POSITIVE_INFINITY);
    expect(r.breakEven.some(Number.isNaN)).toBe(false);
    expect(r.profitPct).toBeLessThan(0);
  });
});

describe('arbStakes: the rounding rule holds for many arbs', () => {
  // A small deterministic generator, so a failure is reproducible.
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };

  it('stakes are whole steps, at least one step, total within one step above, never worse than nearest rounding', () => {
    for (let n = 0; n < 400; n++) {
      const legs = rand() < 0.5 ? 2 : 3;
      const odds = Array.from({ length: legs }, () => Math.round((1.2 + rand() * 5) * 100) / 100);
      const bankroll = [10, 50, 100, 250, 1000][Math.floor(rand() * 5)] ?? 100;
      const step = [0.1, 0.5, 1, 5, 10][Math.floor(rand() * 5)] ?? 1;
      const r = arbStakes(odds, bankroll, step);
      if (!r.ok) {
        expect(r.reason).toBe('bankroll-too-small');
        expect(legs * step).toBeGreaterThan(bankroll + step);
        continue;
      }
      const stepCents = Math.round(step * 100);
      for (const s of r.stakes) {
        expect(Math.round(s * 100) % stepCents).toBe(0);
        expect(s).toBeGreaterThanOrEqual(step);
        expect(isCents(s)).toBe(true);
      }
      expect(isCents(r.total)).toBe(true);
      expect(r.payouts.every(isCents)).toBe(true);
      expect(isCents(r.worstProfit)).toBe(true);
      expect(Math.round(r.total * 100)).toBeLessThanOrEqual(Math.round((bankroll + step) * 100));
      r.payouts.forEach((p, i) => {
        expect(Math.round(p * 100)).toBe(Math.round((r.stakes[i] ?? 0) * (odds[i] ?? 0) * 100 + 1e-7));
      });
      expect(r.worstProfit).toBeCloseTo(Math.min(...r.payouts) - r.total, 9);

      // The nearest rounding (when valid) is one of the candidates, so the answer is at least as good.
      const totalInv = odds.reduce((a, o) => a + 1 / o, 0);
      const nearest = odds.map((o) => Math.round((bankroll / o / totalInv) / step) * step);
      const nearestTotal = nearest.reduce((a, b) => a + b, 0);
      if (nearest.every((s) => s >= step) && nearestTotal <= bankroll + step + 1e-9) {
        const nearestWorst = Math.min(...nearest.map((s, i) => Math.round(s * (odds[i] ?? 0) * 100) / 100)) - nearestTotal;
        expect(r.worstProfit).toBeGreaterThanOrEqual(nearestWorst - 1e-9);
      }
    }
  });

  it('small steps never show float noise (0.1 + 0.2 …)', () => {
    const r = computed(arbStakes([1.7, 2.6], 10, 0.1));
    expect(r.stakes.every(isCents)).toBe(true);
    expect(isCents(r.total)).toBe(true);
    expect(r.total).toBeLessThanOrEqual(10.1);
    expect(r.payouts.every(isCents)).toBe(true);
    expect(isCents(r.worstProfit)).toBe(true);
  });
});

describe('arbStakes: guards', () => {
  const reason = (r: ArbStakes | CannotCompute) => (r.ok ? 'computed' : r.reason);

  it('refuses empty, ≤ 1, NaN and infinite odds', () => {
    expect(reason(arbStakes([], 100, 1))).toBe('no-odds');
    expect(reason(arbStakes([1, 2], 100, 1))).toBe('invalid-odds');
    expect(reason(arbStakes([0.5, 2], 100, 1))).toBe('invalid-odds');
    expect(reason(arbStakes([Number.NaN, 2], 100, 1))).toBe('invalid-odds');
    expect(reason(arbStakes([Number.POSITIVE_INFINITY, 2], 100, 1))).toBe('invalid-odds');
  });

  it('refuses a bankroll or step that is not positive, and a bankroll too small for one step per leg', () => {
    expect(reason(arbStakes([2.1, 2], 0, 1))).toBe('invalid-bankroll');
    expect(reason(arbStakes([2.1, 2], -5, 1))).toBe('invalid-bankroll');
    expect(reason(arbStakes([2.1, 2], Number.NaN, 1))).toBe('invalid-bankroll');
    expect(reason(arbStakes([2.1, 2], 100, 0))).toBe('invalid-step');
    expect(reason(arbStakes([2.1, 2], 100, 0.001))).toBe('invalid-step');
    // three legs of at least 10 each cannot fit in 10 + one step
    expect(reason(arbStakes([3.1, 3.1, 3.1], 10, 10))).toBe('bankroll-too-small');
  });

  it('arbProfitPct is undefined rather than NaN for unusable odds', () => {
    expect(arbProfitPct([])).toBeUndefined();
    expect(arbProfitPct([1, 3])).toBeUndefined();
    expect(arbProfitPct([2.1, 2])).toBeCloseTo(2.4390244, 6);
  });
});

describe('middleOutcomes', () => {
  it('1.95 / 1.95 on 100: 50 / 50, +95.00 if it hits, −2.50 if it misses', () => {
    const r = computed(middleOutcomes([1.95, 1.95], 100, 1));
    expect(r.stakes).toEqual([50, 50]);
    expect(r.total).toBe(100);
    expect(r.ifHit).toEqual({ profit: 95, pct: 95 });
    expect(r.ifMiss.profit).toBe(-2.5);
    expect(r.ifMiss.pct).toBeCloseTo(-2.5, 10);
  });

  it('2.10 / 1.80 on 100: 46 / 54 (pays 96.60 / 97.20), hit +93.80, miss −3.40', () => {
    // ideal 46.15 / 53.85; the miss is negative, yet the split is not shrunk to lose less
    const r = computed(middleOutcomes([2.1, 1.8], 100, 1));
    expect(r.stakes).toEqual([46, 54]);
    expect(r.arb.payouts).toEqual([96.6, 97.2]);
    expect(r.ifHit.profit).toBe(93.8);
    expect(r.ifHit.pct).toBeCloseTo(93.8, 10);
    expect(r.ifMiss.profit).toBe(-3.4);
    expect(r.ifMiss.pct).toBeCloseTo(-3.4, 10);
  });

  it('ideal percentages and guards', () => {
    const ideal = middleIdealPct([1.95, 1.95]);
    expect(ideal?.hit).toBeCloseTo(95, 9);
    expect(ideal?.miss).toBeCloseTo(-2.5, 9);
    expect(middleIdealPct([1, 2])).toBeUndefined();
    expect(middleOutcomes([1.95, Number.NaN], 100, 1)).toEqual({ ok: false, reason: 'invalid-odds' });
  });
});

describe('valuebetMaths', () => {
  it('odds 2.10, p 0.5: EV +5 %, full Kelly 0.05/1.1 = 4.545 %, quarter Kelly on 100 → 1', () => {
    const r = computed(valuebetMaths(2.1, 0.5, null, 100, 1));
    expect(r.evPct).toBeCloseTo(5, 9);
    expect(r.kellyFraction).toBeCloseTo(0.0454545, 6);
    expect(r.quarterKellyFraction).toBeCloseTo(0.0113636, 6);
    expect(r.kellyStake).toBe(1);
    expect(r.fairOdds).toBeCloseTo(2, 9);
  });

  it('derives p from the overvalue when there is no probability: p = (1 + 5/100) / 2.1 = 0.5', () => {
    const r = computed(valuebetMaths(2.1, null, 5, 1000, 5));
    expect(r.probability).toBeCloseTo(0.5, 9);
    expect(r.evPct).toBeCloseTo(5, 9);
    // 0.0113636 × 1000 = 11.36 → nearest multiple of 5 = 10
    expect(r.kellyStake).toBe(10);
  });

  it('Kelly is clamped to 0 without an edge (odds 1.90, p 0.5: f* = −0.056)', () => {
    const r = computed(valuebetMaths(1.9, 0.5, null, 100, 1));
    expect(r.kellyFraction).toBe(0);
    expect(r.kellyStake).toBe(0);
    expect(r.evPct).toBeCloseTo(-5, 9);
  });

  it('quarter Kelly rounds to the step in exact cents (step 0.5)', () => {
    // p 0.6 at 2.0: f* = (1·0.6 − 0.4)/1 = 0.2; quarter = 0.05; × 37 = 1.85 → 2.0
    const r = computed(valuebetMaths(2, 0.6, null, 37, 0.5));
    expect(r.kellyFraction).toBeCloseTo(0.2, 9);
    expect(r.kellyStake).toBe(2);
  });

  it('refuses unusable input with a reason, never NaN', () => {
    expect(valuebetMaths(1, 0.5, null, 100, 1)).toEqual({ ok: false, reason: 'invalid-odds' });
    expect(valuebetMaths(Number.NaN, 0.5, null, 100, 1)).toEqual({ ok: false, reason: 'invalid-odds' });
    expect(valuebetMaths(2, null, null, 100, 1)).toEqual({ ok: false, reason: 'no-probability' });
    expect(valuebetMaths(2, 1.5, null, 100, 1)).toEqual({ ok: false, reason: 'invalid-probability' });
    // overvalue 200 % at odds 2 would need p = 1.5
    expect(valuebetMaths(2, null, 200, 100, 1)).toEqual({ ok: false, reason: 'invalid-probability' });
    expect(valuebetMaths(2, 0.6, null, 0, 1)).toEqual({ ok: false, reason: 'invalid-bankroll' });
  });
});
