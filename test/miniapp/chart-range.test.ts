/** The ledger chart's time axis: a single settled day is padded, never spread over years by uPlot. */
import { describe, expect, it } from 'vitest';
import { dayRange } from '../../src/miniapp/web/chart-range.js';

describe('dayRange', () => {
  it('pads one day a day each side, keeps a longer period as it is, and has a range with no data', () => {
    const day = Date.parse('2026-11-28T00:00:00Z') / 1000;
    expect(dayRange([day])).toEqual([day - 86_400, day + 86_400]);
    expect(dayRange([day, day + 86_400, day + 3 * 86_400])).toEqual([day, day + 3 * 86_400]);
    expect(dayRange([])).toEqual([0, 86_400]);
  });
});
