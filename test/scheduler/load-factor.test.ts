import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { LoadFactor } from '../../src/scheduler/load-factor.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import type { ItemsRead } from '../../src/service/opportunity.js';
import type { AccessKeyRef, RequestOptions } from '../../src/service/client-types.js';
import type { Service } from '../../src/service/services.js';
import { FakeClient } from './fake-client.js';
import { addUser, plainVault, RecordingNotifier, tempStore } from './harness.js';

const T0 = Date.UTC(2026, 0, 3, 10, 0);

/** Feeds `perSecond` dispatches a second, each `lagMs` late, for `seconds`; returns the time reached. */
function feed(load: LoadFactor, from: number, seconds: number, lagMs: number, perSecond = 50): number {
  let t = from;
  for (let i = 0; i < seconds * perSecond; i++) {
    t += 1000 / perSecond;
    load.observe(lagMs, t);
  }
  return t;
}

describe('LoadFactor', () => {
  it('stays at 1 while the lag is small, whatever the pace', () => {
    const load = new LoadFactor();
    let t = feed(load, T0, 60, 5, 800);
    // An idle loop (no dispatch at all) is room too.
    for (let i = 0; i < 30; i++) load.tick((t += 1_000));
    expect(load.factor).toBe(1);
  });

  it('rises fast under sustained lag, holds between the thresholds, and falls slowly back to exactly 1', () => {
    const load = new LoadFactor();
    let t = feed(load, T0, 4, 2_000);
    // Quick: up by half within four seconds behind (the first late second alone could be a GC pause).
    expect(load.factor).toBeGreaterThanOrEqual(1.5);
    t = feed(load, t, 30, 2_000);
    expect(load.factor).toBe(8);

    // Between the thresholds (20–100 ms): neither up nor down.
    t = feed(load, t, 30, 50);
    expect(load.factor).toBe(8);

    // Room: nothing moves until the lag has stayed low for the calm period (15 s)...
    t = feed(load, t, 14, 2);
    expect(load.factor).toBe(8);
    // ...then it comes down 5 % a window, not at once.
    t = feed(load, t, 5, 2);
    expect(load.factor).toBeLessThan(8);
    expect(load.factor).toBeGreaterThan(6);
    // Behind again for two windows running: up at once, and the calm starts over.
    const lowered = load.factor;
    t = feed(load, t, 2, 500);
    t = feed(load, t, 1, 2);
    const raised = load.factor;
    expect(raised).toBeGreaterThan(lowered);
    t = feed(load, t, 10, 2);
    expect(load.factor).toBe(raised);

    feed(load, t, 120, 2);
    expect(load.factor).toBe(1);
  });

  it('does not stretch for one slow second, nor while a backlog drains', () => {
    const pause = new LoadFactor();
    let t = feed(pause, T0, 1, 2_000);
    feed(pause, t, 10, 2);
    expect(pause.factor).toBe(1);

    // The start-up burst: late, but less late every second.
    const draining = new LoadFactor();
    t = T0;
    for (const lag of [3_000, 2_400, 1_900, 1_500, 1_100, 800, 500, 300, 150, 50, 5]) t = feed(draining, t, 1, lag);
    expect(draining.factor).toBe(1);
  });

  it('ignores a window with too few dispatches to judge', () => {
    const load = new LoadFactor();
    // One very late entry a second (fewer than minSamples per window) is noise, not overload.
    feed(load, T0, 20, 5_000, 1);
    expect(load.factor).toBe(1);
  });
});

/** Reads that take a second of the manual clock: with 10 reads in flight at most, 10 reads a second. */
class SlowClient extends FakeClient {
  constructor(private readonly manual: ManualClock) {
    super(manual);
  }
  override async readItems(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<ItemsRead> {
    await this.manual.sleep(1_000, opts?.signal);
    return super.readItems(key, service, opts);
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('scheduler backpressure', () => {
  it('stretches every interval when reads cannot keep up, says so, and relaxes once the load is gone', async () => {
    const clock = new ManualClock();
    const { store, cleanup } = await tempStore(clock);
    const client = new SlowClient(clock);
    const scheduler = createScheduler({
      config: { LIMIT_TOKENS_PER_HOUR: 20, LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_SCOPE: 'key', POLL_INTERVAL_SECONDS: 5 },
      logger: silentLogger,
      store,
      client,
      notifier: new RecordingNotifier(() => clock.now()),
      vault: plainVault,
      clock,
      random: () => 0.5,
      tuning: { maxConcurrentReads: 10 },
    });
    cleanups.push(async () => {
      await scheduler.stop();
      await cleanup();
    });
    // 100 subscriptions every 5 s want some 19 reads a second; the process can do 10.
    for (let id = 1; id <= 100; id++) addUser(store, id, ['arbs_live']);
    scheduler.start();
    const advance = async (seconds: number) => {
      for (let i = 0; i < seconds; i++) await clock.advance(1_000);
    };

    await advance(60);
    const factor = scheduler.stats().loadFactor;
    expect(factor).toBeGreaterThan(1.5);
    // /status tells the truth: the interval is stretched by the same factor for everyone.
    expect(scheduler.coverage(1).arbs_live?.intervalMs).toBe(Math.round(5_000 * factor));
    expect(scheduler.coverage(100).arbs_live?.intervalMs).toBe(Math.round(5_000 * factor));
    // Reads ask no more than what gets done: the stretched demand (100 / (5.25 s × factor)) about fits 10 a second.
    expect(100 / (5.25 * factor)).toBeLessThanOrEqual(12.5);

    // Most users leave: 10 subscriptions want 2 reads a second, well within capacity.
    for (let id = 11; id <= 100; id++) {
      store.updateUser(id, (u) => {
        u.blocked = true;
      });
      scheduler.refreshUser(id);
    }
    await advance(120);
    expect(scheduler.stats().loadFactor).toBe(1);
    expect(scheduler.coverage(1).arbs_live?.intervalMs).toBe(5_000);
    expect(scheduler.stats().subscriptions).toBe(10);
  });
});
