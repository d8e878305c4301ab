/**
 * Per-scope limiter state is bounded (issue 10, item 7): state of keys that were only tried is
 * dropped once their window is empty, while a scope with a send in its window, a send in flight
 * or a 429 pause keeps its state.
 */
import { describe, expect, it } from 'vitest';
import { stopAfterEach } from '../support/teardown.js';
import { ManualClock } from '../../src/clock.js';
import { createLimits, IDLE_SWEEP_MS } from '../../src/service/limits.js';
import { configFor } from './helpers.js';

const HOUR = 3_600_000;

describe('idle limiter state', () => {
  const stopAfter = stopAfterEach();

  it('drops the state of 500 keys that were only tried, once their hour is over, and keeps busy scopes', async () => {
    const clock = new ManualClock();
    const limits = stopAfter(createLimits({ config: configFor('http://h', { LIMIT_TOKENS_PER_HOUR: 2 }), clock, random: () => 0.5 }));
    for (let i = 0; i < 500; i++) {
      const permit = await limits.acquire({ kind: 'tokens', accessKey: `tried-${i}` }, { wait: false });
      permit.release();
    }
    const inFlight = await limits.acquire({ kind: 'tokens', accessKey: 'in-flight' }, { wait: false });
    limits.penalize({ kind: 'items', accessKey: 'paused', service: 'arbs_live' }, 3 * HOUR);
    expect(limits.scopeCount()).toBe(502);

    // Within the hour nothing is dropped: the window still counts those sends.
    await clock.advance(HOUR / 2);
    limits.budget({ kind: 'tokens', accessKey: 'tried-0' });
    expect(limits.scopeCount()).toBe(502);
    expect(limits.tokensLeft('tried-0')).toBe(1);

    await clock.advance(HOUR / 2 + IDLE_SWEEP_MS);
    limits.budget({ kind: 'dicts' });
    // Left: the send in flight, the paused scope and the scope just asked about.
    expect(limits.scopeCount()).toBe(3);
    expect(limits.budget({ kind: 'items', accessKey: 'paused', service: 'arbs_live' }).pausedForMs).toBeGreaterThan(0);
    expect(limits.budget({ kind: 'tokens', accessKey: 'in-flight' }).inFlight).toBe(1);
    // A dropped key starts with its full budget, as it would after an hour anyway.
    expect(limits.tokensLeft('tried-0')).toBe(2);
    inFlight.release();
  });
});
