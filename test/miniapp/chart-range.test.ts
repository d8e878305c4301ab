/** The ledger chart's time axis: a single settled day is padded, never spread over years by uPlot; dates in the page's language. */
import { describe, expect, it } from 'vitest';
import { dayRange, legendDate, timeTicks } from '../../src/miniapp/web/chart-range.js';

describe('dayRange', () => {
  it('pads one day a day each side, keeps a longer period as it is, and has a range with no data', () => {
    const day = Date.parse('2026-11-28T00:00:00Z') / 1000;
    expect(dayRange([day])).toEqual([day - 86_400, day + 86_400]);
    expect(dayRange([day, day + 86_400, day + 3 * 86_400])).toEqual([day, day + 3 * 86_400]);
    expect(dayRange([])).toEqual([0, 86_400]);
  });
});

describe('the time axis in the page’s language', () => {
  const day = Date.parse('2026-10-01T00:00:00Z') / 1000;
  it('labels days with a day and a month, and the hours between midnights when the ticks are under a day apart', () => {
    expect(timeTicks('ru')([day, day + 86_400], 86_400)).toEqual(['1 окт.', '2 окт.']);
    expect(timeTicks('en')([day, day + 86_400], 86_400)).toEqual(['Oct 1', 'Oct 2']);
    // Zoomed in: hours between the midnights, which keep their day (and no "12pm" in Russian).
    expect(timeTicks('ru')([day, day + 43_200, day + 86_400], 43_200)).toEqual(['1 окт.', '12:00', '2 окт.']);
    expect(timeTicks('en')([day + 43_200], 43_200)).toEqual(['12:00 PM']);
  });

  it('writes the legend’s date with its year, and -- where the cursor is on no day', () => {
    expect(legendDate('ru')(day)).toBe('1 окт. 2026 г.');
    expect(legendDate('en')(day)).toBe('Oct 1, 2026');
    expect(legendDate('en')(null)).toBe('--');
  });
});
