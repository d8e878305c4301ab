/**
 * The whole read budget, as shipped (no poll floor): against the sandbox, every polled (key,
 * host) is read at ≥ 0.95 of its limit, evenly (no burst at a window's edge), never over it;
 * a lookup in the middle of full-pace polling waits at most one read slot and is answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Service } from '../../src/service/services.js';
import { maxInWindow } from '../support/window.js';
import { addUser, RecordingNotifier } from './harness.js';
import { runStack, startStack, type Stack } from './stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** Records when each (key, service) read was sent, on the stack's clock. */
function recordReads(s: Stack): Map<string, number[]> {
  const times = new Map<string, number[]>();
  const read = s.client.readItems.bind(s.client);
  s.client.readItems = (key, service, opts) => {
    const id = `${key.accessKey}|${service}`;
    times.set(id, [...(times.get(id) ?? []), s.clock.now()]);
    return read(key, service, opts);
  };
  return times;
}

describe('the read budget', () => {
  it('reads every (key, host) at ≥ 0.95 of its limit, evenly, and never over it', async () => {
    const keys = [1, 2, 3].map((i) => ({ accessKey: `pace-key-${i}`, secret: `pace-secret-${i}` }));
    stack = await startStack({
      // Tokens plentiful: the read pace is under test (the token plan has tests of its own).
      sandbox: { keys, seed: 11, limits: { tokensPerHour: 10_000 }, world: { itemsPerService: 2 } },
      limits: { tokensPerHour: 10_000 },
      pollSeconds: 0,
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
    });
    const services: Service[] = ['arbs_live', 'arbs_prematch'];
    keys.forEach((key, i) => addUser(stack!.store, i + 1, services, key));
    const times = recordReads(stack);
    stack.scheduler.start();
    const start = stack.clock.now();
    await runStack(stack, 6 * 60_000, 500);

    expect(stack.sandbox.counters().breaches).toBe(0);
    expect(stack.scheduler.stats().deferred).toBe(0);
    expect(times.size).toBe(6);
    for (const [id, all] of times) {
      // After the first minute: 5 minutes at 30 a minute.
      const settled = all.filter((t) => t >= start + 60_000);
      expect(settled.length, id).toBeGreaterThanOrEqual(Math.floor(5 * 30 * 0.95));
      expect(maxInWindow(all, 60_000), id).toBeLessThanOrEqual(30);
      // Evenly: no two reads of one scope closer than most of a slot (no burst when a window frees up).
      const gaps = all.slice(1).map((t, i) => t - all[i]!);
      expect(Math.min(...gaps), id).toBeGreaterThanOrEqual(1_900);
    }
  });

  it('gives a lookup the next slot while polling uses the whole budget', async () => {
    const keys = [{ accessKey: 'look-key-1', secret: 'look-secret-1' }];
    stack = await startStack({
      sandbox: { keys, seed: 12, limits: { tokensPerHour: 10_000 }, world: { itemsPerService: 2 } },
      limits: { tokensPerHour: 10_000 },
      pollSeconds: 0,
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
    });
    addUser(stack.store, 1, ['arbs_live'], keys[0]);
    const start = stack.clock.now();
    stack.scheduler.start();
    await runStack(stack, 90_000, 500);
    // The window is full of polls now: a lookup must wait for the next slot, not be refused.
    expect(stack.client.limits.budget({ kind: 'items', accessKey: 'look-key-1', service: 'arbs_live' }).left).toBe(0);
    const ref = { accessKey: keys[0]!.accessKey, revealSecret: () => keys[0]!.secret };
    for (let i = 0; i < 5; i++) {
      const asked = stack.clock.now();
      let answeredAt: number | undefined;
      let failed: unknown;
      void stack.client.readItems(ref, 'arbs_live', { priority: 'interactive', wait: false }).then(
        () => (answeredAt = stack!.clock.now()),
        (err: unknown) => (failed = err),
      );
      // Real time for the HTTP exchange; the clock moves in 100 ms steps while the lookup waits for its slot.
      for (let step = 0; step < 40 && answeredAt === undefined && failed === undefined; step++) {
        await new Promise((r) => setTimeout(r, 15));
        if (answeredAt === undefined && failed === undefined) await runStack(stack, 100, 100);
      }
      expect(failed).toBeUndefined();
      expect(answeredAt! - asked).toBeLessThanOrEqual(2_100);
      await runStack(stack, 7_000, 500);
    }
    const { breaches, byKeyHost } = stack.sandbox.counters();
    expect(breaches).toBe(0);
    // Polls and lookups together used the whole budget: each lookup took a poll's slot, no more.
    const elapsedMs = stack.clock.now() - start;
    expect(byKeyHost['look-key-1|/arbs-live|items']).toBeGreaterThanOrEqual(Math.floor((elapsedMs / 60_000) * 30 * 0.95));
    expect(stack.scheduler.stats().deferred).toBe(0);
  });
});
