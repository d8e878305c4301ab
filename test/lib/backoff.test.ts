import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/lib/backoff.js';

const policy = { baseMs: 1_000, maxMs: 8_000 };

describe('backoffMs', () => {
  it('doubles from the base and stops growing at the max (random 0.5 gives the ceiling)', () => {
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffMs(policy, n, () => 0.5))).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('keeps every wait within 75%..125% of its ceiling, at both ends of the random source', () => {
    for (const n of [1, 2, 3, 4, 9]) {
      const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (n - 1));
      expect(backoffMs(policy, n, () => 0)).toBe(ceiling * 0.75);
      const top = backoffMs(policy, n, () => 0.999_999);
      expect(top).toBeLessThanOrEqual(ceiling * 1.25);
      expect(top).toBeGreaterThan(ceiling * 1.24);
    }
  });

  it('spreads callers that failed together', () => {
    let s = 7;
    const random = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const waits = Array.from({ length: 200 }, () => backoffMs(policy, 3, random));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(3_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(5_000);
    expect(new Set(waits).size).toBeGreaterThan(100);
  });

  it('treats a zeroth failure like the first', () => {
    expect(backoffMs(policy, 0, () => 0.5)).toBe(1_000);
  });
});
