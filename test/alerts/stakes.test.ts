import { describe, expect, it } from 'vitest';
import {
  arbProfitPct,
  arbStakes,
  MAX_SEARCH_LEGS,
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

describe('arbStakes: hand-computed examples (the total never exceeds the bankroll)', () => {
  it('the issue\'s arb 1.80 / 2.53 on 100, step 1 → 58 / 41 (total 99), not 59 + 42 = 101', () => {
    // ideal: 1/1.8 = 0.555556, 1/2.53 = 0.395257, Σ = 0.950813 → 100·0.555556/0.950813 = 58.43 and 41.57.
    // floor/ceil within 100: 58/41 (99) pays 58·1.8 = 104.40, 41·2.53 = 103.73 → worst 103.73 − 99 = +4.73;
    // 58/42 (100) pays 104.40 / 106.26 → +4.40; 59/41 (100) pays 106.20 / 103.73 → +3.73. Best: 58/41.
    const r = computed(arbStakes([1.8, 2.53], 100, 1));
    expect(r.stakes).toEqual([58, 41]);
    expect(r.total).toBe(99);
    expect(r.overBankroll).toBe(false);
    expect(r.payouts).toEqual([104.4, 103.73]);
    expect(r.worstProfit).toBe(4.73);
    // 4.73 / 99 = 4.7778 %
    expect(r.worstProfitPct).toBeCloseTo(4.7777778, 6);
    // 1 / 0.950813 − 1 = 5.1732 %
    expect(r.profitPct).toBeCloseTo(5.1732102, 6);
    // break-even: leg 1 alone 1/(1 − 0.395257) = 1.653595; leg 2 alone 1/(1 − 0.555556) = 2.25
    expect(r.breakEven[0]).toBeCloseTo(1.653595, 5);
    expect(r.breakEven[1]).toBeCloseTo(2.25, 9);
  });

  it('2-way, step 1: 2.10 / 2.00 on 100 → 49 / 51, +2.00 whichever wins', () => {
    // ideal 100·(1/2.1)/(1/2.1+1/2) = 48.78 and 51.22. 48/51 (99) pays 100.80 / 102 → +1.80;
    // 49/51 (100) pays 102.90 / 102.00 → +2.00; 48/52 (100) pays 100.80 / 104 → +0.80.
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

  it('2-way, step 5 on 200: 95 / 100 (total 195, +4.50) beats every split of exactly 200', () => {
    // ideal 97.56 / 102.44 = 19.51 / 20.49 steps. 95/100 (195) pays 199.50 / 200.00 → +4.50;
    // 100/100 (200) pays 210 / 200 → 0; 95/105 (200) pays 199.50 / 210 → −0.50; 100/105 = 205 > 200.
    const r = computed(arbStakes([2.1, 2.0], 200, 5));
    expect(r.stakes).toEqual([95, 100]);
    expect(r.total).toBe(195);
    expect(r.payouts).toEqual([199.5, 200]);
    expect(r.worstProfit).toBe(4.5);
    // 4.50 / 195 = 2.3077 %
    expect(r.worstProfitPct).toBeCloseTo(2.3076923, 6);
  });

  it('2-way, step 5 on 100: rounding eats the profit and says so (worst case 0, not the 2.44 %)', () => {
    // 9.76 / 10.24 steps: 45/50 (95) pays 94.50 / 100 → −0.50; 50/50 pays 105 / 100 → 0; 45/55 → −5.50.
    const r = computed(arbStakes([2.1, 2.0], 100, 5));
    expect(r.stakes).toEqual([50, 50]);
    expect(r.worstProfit).toBe(0);
    expect(r.worstProfitPct).toBe(0);
    expect(r.profitPct).toBeCloseTo(2.4390244, 6);
  });

  it('thin arb 1.98 / 2.05: +0.72 % before rounding; step 1 keeps +0.45, step 10 turns it into −1.00', () => {
    // 1/1.98 = 0.505051, 1/2.05 = 0.487805, Σ = 0.992856 → 1/Σ − 1 = +0.7196 %.
    // step 1: ideal 50.87 / 49.13; 51/49 pays 100.98 / 100.45 → +0.45; 50/49 (99) pays 99 / 100.45 → 0; 50/50 → −1.
    const one = computed(arbStakes([1.98, 2.05], 100, 1));
    expect(one.profitPct).toBeCloseTo(0.7196030, 6);
    expect(one.stakes).toEqual([51, 49]);
    expect(one.worstProfit).toBe(0.45);
    // step 10: 50/50 pays 99 / 102.50 → −1.00; 50/40 (90) pays 99 / 82 → −8; 60/40 pays 118.80 / 82 → −18.
    // Every split loses, so the total stays within one step of the bankroll: 50/50, −1.00 (−1.00 %).
    const ten = computed(arbStakes([1.98, 2.05], 100, 10));
    expect(ten.stakes).toEqual([50, 50]);
    expect(ten.payouts).toEqual([99, 102.5]);
    expect(ten.worstProfit).toBe(-1);
    expect(ten.worstProfitPct).toBeCloseTo(-1, 10);
  });

  it('3-way, step 1: 2.5 / 3.5 / 5.0 on 100 → 45 / 32 / 23, +12.00', () => {
    // ideal 45.16 / 32.26 / 22.58. 45/32/23 pays 112.50 / 112.00 / 115.00 → +12; 45/32/22 (99) → 110 − 99 = +11;
    // 45/33/22 → 110 − 100 = +10; 46/32/22 → +10.
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

  it('3-way, step 5: 45 / 30 / 25 (+5.00) ties 45 / 30 / 20 (+5.00 on 95) and wins on the larger total', () => {
    // 9.03 / 6.45 / 4.52 steps. 45/30/20 (95) pays 112.50 / 105 / 100 → +5; 45/30/25 (100) pays 112.50 / 105 / 125 → +5;
    // 50/30/20 pays 125 / 105 / 100 → 0; 45/35/20 pays 112.50 / 122.50 / 100 → 0.
    const r = computed(arbStakes([2.5, 3.5, 5.0], 100, 5));
    expect(r.stakes).toEqual([45, 30, 25]);
    expect(r.total).toBe(100);
    expect(r.payouts).toEqual([112.5, 105, 125]);
    expect(r.worstProfit).toBe(5);
  });

  it('3-way, step 10: 40 / 30 / 20 (total 90, +10) beats every split of 100 (each +0)', () => {
    // 4.52 / 3.23 / 2.26 steps. 40/30/20 pays 100 / 105 / 100 → +10 on 90; 50/30/20 pays 125 / 105 / 100 → 0;
    // 40/40/20 → 0; 40/30/30 pays 100 / 105 / 150 → 0.
    const r = computed(arbStakes([2.5, 3.5, 5.0], 100, 10));
    expect(r.stakes).toEqual([40, 30, 20]);
    expect(r.total).toBe(90);
    expect(r.payouts).toEqual([100, 105, 100]);
    expect(r.worstProfit).toBe(10);
    expect(r.worstProfitPct).toBeCloseTo((10 / 90) * 100, 10);
  });

  it('3-way, step 0.5: 2.9 / 3.2 / 3.6 on 50 → 18 / 16.5 / 14.5 (total 49), +3.20 in exact cents', () => {
    // ideal 18.69 / 16.94 / 15.06 (Σ 1/o = 0.935345). 18/16.5/14.5 (49) pays 52.20 / 52.80 / 52.20 → +3.20;
    // 18.5/16.5/15 (50) pays 53.65 / 52.80 / 54.00 → +2.80; 18.5/17/14.5 (50) pays 53.65 / 54.40 / 52.20 → +2.20.
    const r = computed(arbStakes([2.9, 3.2, 3.6], 50, 0.5));
    expect(r.stakes).toEqual([18, 16.5, 14.5]);
    expect(r.total).toBe(49);
    expect(r.payouts).toEqual([52.2, 52.8, 52.2]);
    expect(r.worstProfit).toBe(3.2);
  });

  it('one step per leg over the bankroll: 10 / 10 / 10 on 20 is marked overBankroll (total 30)', () => {
    // 3 × 3.10 on 20, step 10: ideal 6.67 each, less than a step; a step each is 30 = 20 + one step.
    // Each pays 31.00 → +1.00 on 30.
    const r = computed(arbStakes([3.1, 3.1, 3.1], 20, 10));
    expect(r.stakes).toEqual([10, 10, 10]);
    expect(r.total).toBe(30);
    expect(r.overBankroll).toBe(true);
    expect(r.worstProfit).toBe(1);
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

  it('stakes are whole steps, at least one step, total within the bankroll, never worse than rounding every stake down', () => {
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
      expect(Math.round(r.total * 100)).toBe(Math.round(r.stakes.reduce((a, b) => a + b, 0) * 100));
      // Over the bankroll only when a step per leg does not fit, and then by one step at most.
      if (r.overBankroll) {
        expect(legs * step).toBeGreaterThan(bankroll);
        expect(Math.round(r.total * 100)).toBeLessThanOrEqual(Math.round((bankroll + step) * 100));
      } else {
        expect(Math.round(r.total * 100)).toBeLessThanOrEqual(Math.round(bankroll * 100));
      }
      r.payouts.forEach((p, i) => {
        expect(Math.round(p * 100)).toBe(Math.round((r.stakes[i] ?? 0) * (odds[i] ?? 0) * 100 + 1e-7));
      });
      expect(r.worstProfit).toBeCloseTo(Math.min(...r.payouts) - r.total, 9);

      // Every stake rounded down (when each is a step at least and they fit) is one of the
      // candidates, so the answer is at least as good, unless every split loses money and that
      // one stakes more than a step below the bankroll.
      const totalInv = odds.reduce((a, o) => a + 1 / o, 0);
      const down = odds.map((o) => Math.floor((bankroll / o / totalInv) / step + 1e-9) * step);
      const downTotal = down.reduce((a, b) => a + b, 0);
      if (down.every((s) => s >= step) && downTotal <= bankroll + 1e-9 && (r.worstProfit >= 0 || downTotal >= bankroll - step - 1e-9)) {
        const downWorst = Math.min(...down.map((s, i) => Math.round(s * (odds[i] ?? 0) * 100) / 100)) - downTotal;
        expect(r.worstProfit).toBeGreaterThanOrEqual(downWorst - 1e-9);
      }
    }
  });

  it(`past ${MAX_SEARCH_LEGS} legs (no search): rounded down, then up by largest remainder, within the bankroll`, () => {
    // 12 legs at 12.00: ideal 100/12 = 8.33 each → 8 each is 96, then four legs (equal remainders: the
    // first four) get 9 → 100. Each pays 9 × 12 = 108 or 8 × 12 = 96 → worst 96 − 100 = −4.
    const r = computed(arbStakes(Array.from({ length: 12 }, () => 12), 100, 1));
    expect(r.stakes).toEqual([9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 8]);
    expect(r.total).toBe(100);
    expect(r.worstProfit).toBe(-4);
    for (let n = 0; n < 50; n++) {
      const odds = Array.from({ length: MAX_SEARCH_LEGS + 1 + (n % 5) }, () => Math.round((5 + rand() * 20) * 100) / 100);
      const many = computed(arbStakes(odds, 500, 5));
      expect(many.total).toBeLessThanOrEqual(500);
      expect(many.total).toBeGreaterThan(495 - 1e-9);
    }
  });

  it('small steps never show float noise (0.1 + 0.2 …)', () => {
    const r = computed(arbStakes([1.7, 2.6], 10, 0.1));
    expect(r.stakes.every(isCents)).toBe(true);
    expect(isCents(r.total)).toBe(true);
    expect(r.total).toBeLessThanOrEqual(10);
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

  it('the issue\'s middle 1.88 / 1.95 on 100: 51 / 49, hit +91.43, miss −4.45 (never the service\'s +1.00)', () => {
    // 1/1.88 = 0.531915, 1/1.95 = 0.512821, Σ = 1.044736. Ideal: miss 1/Σ − 1 = −4.28 %, hit 2/Σ − 1 = +91.44 %.
    // Stakes: ideal 50.91 / 49.09; 51/49 pays 95.88 / 95.55 → miss −4.45; 50/49 (99) pays 94 / 95.55 → −5.00;
    // 50/50 → 94 − 100 = −6. Hit: 95.88 + 95.55 − 100 = +91.43.
    const ideal = middleIdealPct([1.88, 1.95]);
    expect(ideal?.miss).toBeCloseTo(-4.281984, 5);
    expect(ideal?.hit).toBeCloseTo(91.436031, 5);
    const r = computed(middleOutcomes([1.88, 1.95], 100, 1));
    expect(r.stakes).toEqual([51, 49]);
    expect(r.arb.payouts).toEqual([95.88, 95.55]);
    expect(r.ifMiss.profit).toBe(-4.45);
    expect(r.ifHit.profit).toBe(91.43);
  });

  it('1.88 / 1.95 on 100, step 10: 50 / 50, hit +91.50, miss −6.00 (a losing split is not shrunk to lose less)', () => {
    // 5.09 / 4.91 steps: 50/50 pays 94 / 97.50 → miss −6.00, hit 191.50 − 100 = +91.50;
    // 50/40 (90) pays 94 / 78 → −12; 60/40 pays 112.80 / 78 → −22.
    const r = computed(middleOutcomes([1.88, 1.95], 100, 10));
    expect(r.stakes).toEqual([50, 50]);
    expect(r.ifMiss).toEqual({ profit: -6, pct: -6 });
    expect(r.ifHit).toEqual({ profit: 91.5, pct: 91.5 });
  });

  it('a middle that is also an arb (2.10 / 2.00): 49 / 51, miss +2.00, hit +104.90', () => {
    // ideal miss 1/Σ − 1 = +2.44 %, hit 2/Σ − 1 = 2 × 1.0243902 − 1 = +104.88 %.
    // 49/51 pays 102.90 / 102.00: miss 102 − 100 = +2.00; hit 204.90 − 100 = +104.90.
    const ideal = middleIdealPct([2.1, 2.0]);
    expect(ideal?.miss).toBeCloseTo(2.4390244, 6);
    expect(ideal?.hit).toBeCloseTo(104.8780488, 6);
    const r = computed(middleOutcomes([2.1, 2.0], 100, 1));
    expect(r.stakes).toEqual([49, 51]);
    expect(r.ifMiss.profit).toBe(2);
    expect(r.ifHit.profit).toBe(104.9);
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

  it('odds 3.40, p 0.32: EV +8.80 %, full Kelly 0.088/2.4 = 3.667 %, quarter on 1000 step 1 → 9, step 5 → 10, step 10 → 10', () => {
    // EV = 3.4 × 0.32 − 1 = 0.088; b = 2.4, f* = (2.4 × 0.32 − 0.68) / 2.4 = 0.088 / 2.4 = 0.036667;
    // quarter = 0.0091667 × 1000 = 9.17 → 9 (step 1), 10 (step 5: 9.17/5 = 1.83 → 2 steps), 10 (step 10).
    const one = computed(valuebetMaths(3.4, 0.32, null, 1000, 1));
    expect(one.evPct).toBeCloseTo(8.8, 9);
    expect(one.fairOdds).toBeCloseTo(3.125, 9);
    expect(one.kellyFraction).toBeCloseTo(0.0366667, 6);
    expect(one.kellyStake).toBe(9);
    expect(computed(valuebetMaths(3.4, 0.32, null, 1000, 5)).kellyStake).toBe(10);
    expect(computed(valuebetMaths(3.4, 0.32, null, 1000, 10)).kellyStake).toBe(10);
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
