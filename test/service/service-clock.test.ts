/**
 * The service's clock from its answers' Date headers (service/service-clock.ts), and the leg ages
 * read on it (alerts/alert-lines.ts): whole-second headers narrow to the skew, a second's rounding is
 * no skew, a stepped clock is followed, an unreadable header changes nothing; an age is never
 * negative, a time a little ahead reads "0 s", one far ahead or missing says nothing.
 */
import { describe, expect, it } from 'vitest';
import { SKEW_IGNORED_MS, SKEW_SAMPLES, createServiceClock } from '../../src/service/service-clock.js';
import { FUTURE_TOLERANCE_MS, legAgeMs } from '../../src/alerts/alert-lines.js';

const T0 = Date.UTC(2026, 0, 3, 10, 0, 0, 250);
const header = (ms: number) => new Date(ms).toUTCString();

describe('the service clock', () => {
  it('narrows whole-second Date headers down to the skew', () => {
    const clock = createServiceClock();
    expect(clock.offsetMs()).toBe(0);
    // The service 30.4 s ahead; answers 40 ms after the request, at different sub-second phases.
    for (let i = 0; i < 20; i++) {
      const sent = T0 + i * 1_037;
      clock.observe(header(sent + 20 + 30_400), sent, sent + 40);
    }
    expect(Math.abs(clock.offsetMs() - 30_400)).toBeLessThan(100);
  });

  it('takes less than a second as no skew, and follows a clock that was stepped', () => {
    const clock = createServiceClock();
    // 0.3 s ahead: within the header's grain, no skew.
    for (let i = 0; i < 10; i++) clock.observe(header(T0 + i * 777 + 300), T0 + i * 777, T0 + i * 777 + 5);
    expect(clock.offsetMs()).toBe(0);
    // The service's clock stepped back by two minutes: the old bounds no longer meet, the new ones count.
    const later = T0 + 60_000;
    clock.observe(header(later - 120_000), later, later + 5);
    expect(Math.abs(clock.offsetMs() + 120_000)).toBeLessThanOrEqual(1_000);
  });

  it('gives what a fresh intersection of the last SKEW_SAMPLES answers gives, answer after answer', () => {
    // The plain form of the rule: every answer's bounds kept in a list, the last SKEW_SAMPLES intersected anew.
    const reference = () => {
      let bounds: { low: number; high: number }[] = [];
      let estimate = 0;
      return {
        observe(date: string, sentAt: number, receivedAt: number) {
          const at = Date.parse(date);
          bounds.push({ low: at - receivedAt, high: at + 1000 - sentAt });
          if (bounds.length > SKEW_SAMPLES) bounds.shift();
          let low = Math.max(...bounds.map((b) => b.low));
          let high = Math.min(...bounds.map((b) => b.high));
          if (low > high) {
            bounds = bounds.slice(-1);
            low = bounds[0]!.low;
            high = bounds[0]!.high;
          }
          const mid = Math.round((low + high) / 2);
          estimate = Math.abs(mid) < SKEW_IGNORED_MS ? 0 : mid;
        },
        offsetMs: () => estimate,
      };
    };
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const clock = createServiceClock();
    const plain = reference();
    let skew = 2_500;
    let now = T0;
    for (let i = 0; i < 3_000; i++) {
      // Answers a few ms to a second apart, a drifting skew, now and then a stepped clock.
      now += Math.floor(random() * 1_000);
      skew += random() < 0.01 ? Math.floor((random() - 0.5) * 600_000) : Math.floor((random() - 0.5) * 40);
      const took = 1 + Math.floor(random() * 300);
      const date = header(now + Math.floor(random() * took) + skew);
      clock.observe(date, now, now + took);
      plain.observe(date, now, now + took);
      expect(clock.offsetMs()).toBe(plain.offsetMs());
    }
  });

  it('ignores a missing or unreadable header', () => {
    const clock = createServiceClock();
    clock.observe(undefined, T0, T0 + 5);
    clock.observe('1767436153', T0, T0 + 5);
    clock.observe('not a date', T0, T0 + 5);
    expect(clock.offsetMs()).toBe(0);
  });
});

describe('a leg’s age', () => {
  const now = T0;
  it('is read on the service’s clock and never negative', () => {
    expect(legAgeMs({ updatedAt: now - 12_000 }, { now })).toBe(12_000);
    // The service 30 s ahead wrote a time 12 s old on its clock.
    expect(legAgeMs({ updatedAt: now + 30_000 - 12_000 }, { now, serviceOffsetMs: 30_000 })).toBe(12_000);
    // A second ahead (rounding): "0 s", not "−1 s".
    expect(legAgeMs({ updatedAt: now + 1_000 }, { now })).toBe(0);
  });
  it('is unknown when the service gave no time, or one further ahead than its clock can be', () => {
    expect(legAgeMs({ updatedAt: undefined }, { now })).toBeUndefined();
    expect(legAgeMs({ updatedAt: now + FUTURE_TOLERANCE_MS + 1 }, { now })).toBeUndefined();
    expect(legAgeMs({ updatedAt: now + 60_000 }, { now, serviceOffsetMs: 30_000 })).toBeUndefined();
  });
});
