import { describe, expect, it } from 'vitest';
import { nextReadAt, readPaceMs } from '../../src/scheduler/read-pace.js';

const noJitter = () => 0;

describe('nextReadAt', () => {
  it('counts the next read from when the last one was due, not from when it started', () => {
    // Due at 10,000, taken 45 ms late by the loop's grid: the next is due 2 s after 10,000.
    expect(nextReadAt({ pacedAt: 10_000, startedAt: 10_045 }, 10_300, 2_000, 0, 0.01, noJitter)).toBe(12_000);
  });

  it('keeps the poll floor from the read’s real start', () => {
    // A 5 s floor is a promise about real reads: counted from 10,045, not 10,000.
    expect(nextReadAt({ pacedAt: 10_000, startedAt: 10_045 }, 10_300, 5_000, 5_000, 0.01, noJitter)).toBe(15_045);
  });

  it('is never in the past, and adds at most the jitter share of the interval', () => {
    expect(nextReadAt({ pacedAt: 10_000, startedAt: 10_000 }, 13_000, 2_000, 0, 0.01, noJitter)).toBe(13_000);
    expect(nextReadAt({ pacedAt: 10_000, startedAt: 10_000 }, 10_100, 2_000, 0, 0.01, () => 0.999)).toBeCloseTo(12_019.98, 6);
  });

  it('paces the read limit with the window’s margin: 30 a minute is one read every 2,003.3 ms', () => {
    expect(readPaceMs(30)).toBeCloseTo(60_100 / 30, 9);
  });
});
