/**
 * The rhythm of the Redis store's background writers: a sooner request re-arms the timer (a
 * removed subscription is announced at once even while a debounced write waits), a failed pass
 * is retried and reported through `healthy()`, `flush()` runs until nothing is pending, and a
 * stopped writer arms nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { WriteRounds } from '../../src/store/write-rounds.js';

function counter(fail: () => boolean = () => false) {
  let pending = 0;
  let passes = 0;
  const rounds = new WriteRounds({
    pass: async () => {
      passes += 1;
      if (fail()) throw new Error('down');
      pending = 0;
    },
    pending: () => pending > 0,
    retry: { baseMs: 10, maxMs: 20 },
    log: silentLogger,
    what: 'the test writer',
  });
  return {
    rounds,
    change: () => void (pending += 1),
    get passes() {
      return passes;
    },
    get pending() {
      return pending;
    },
  };
}

describe('write rounds', () => {
  it('runs a pass no later than the soonest request', async () => {
    const w = counter();
    w.change();
    w.rounds.request(60_000);
    w.rounds.request(0);
    await vi.waitFor(() => expect(w.passes).toBe(1), { timeout: 1_000, interval: 5 });
    expect(w.pending).toBe(0);
    w.rounds.stop();
  });

  it('retries a failed pass, unhealthy until one succeeds; flush rejects with the failure', async () => {
    let down = true;
    const w = counter(() => down);
    w.change();
    await expect(w.rounds.flush()).rejects.toThrow('down');
    expect(w.rounds.healthy()).toBe(false);
    await vi.waitFor(() => expect(w.passes).toBeGreaterThanOrEqual(2), { timeout: 1_000, interval: 5 });
    down = false;
    await vi.waitFor(() => expect(w.rounds.healthy()).toBe(true), { timeout: 1_000, interval: 5 });
    expect(w.pending).toBe(0);
    w.rounds.stop();
  });

  it('arms nothing once stopped, but a flush still writes', async () => {
    const w = counter();
    w.rounds.stop();
    w.change();
    w.rounds.request(0);
    await new Promise((r) => setTimeout(r, 30));
    expect(w.passes).toBe(0);
    await w.rounds.flush();
    expect(w.passes).toBe(1);
  });
});
