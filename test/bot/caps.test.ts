/** UsageCaps: per-user and per-key sliding windows on the injected clock, the wait they name, and state that empties. */
import { describe, expect, it } from 'vitest';
import { UsageCaps, type CapRule } from '../../src/bot/caps.js';
import { ManualClock } from '../../src/clock.js';

const rule: CapRule = { perUser: 3, perKey: 4, windowMs: 60_000 };
const rules = { connect: rule, lookup: rule, inline: rule, filter: rule, report: rule };

describe('UsageCaps', () => {
  it('allows perUser uses a window, then names the wait until the oldest leaves it', async () => {
    const clock = new ManualClock();
    const caps = new UsageCaps(clock, rules);
    expect(await caps.take('lookup', 1)).toBe(0);
    await clock.advance(10_000);
    expect(await caps.take('lookup', 1)).toBe(0);
    expect(await caps.take('lookup', 1)).toBe(0);
    expect(await caps.take('lookup', 1)).toBe(50_000);
    // A refused use is not counted: the wait does not grow by asking.
    expect(await caps.take('lookup', 1)).toBe(50_000);
    // Other users and other actions are not held.
    expect(await caps.take('lookup', 2)).toBe(0);
    expect(await caps.take('filter', 1)).toBe(0);
    await clock.advance(50_000);
    expect(await caps.take('lookup', 1)).toBe(0);
  });

  it('caps one key across users', async () => {
    const clock = new ManualClock();
    const caps = new UsageCaps(clock, rules);
    for (let user = 1; user <= 4; user++) expect(await caps.take('connect', user, 'shared')).toBe(0);
    expect(await caps.take('connect', 5, 'shared')).toBe(60_000);
    expect(await caps.take('connect', 5, 'own')).toBe(0);
  });

  it('drops every emptied window, so a burst of made-up keys leaves nothing after the window', async () => {
    const clock = new ManualClock();
    const caps = new UsageCaps(clock, rules);
    for (let i = 0; i < 1_000; i++) await caps.take('connect', i, `made-up-${i}`);
    expect(caps.size).toBe(2_000);
    await clock.advance(61_000);
    await caps.take('inline', 1);
    expect(caps.size).toBe(1);
  });
});
