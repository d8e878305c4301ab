/**
 * A scheduler over the fake client and a real store on a manual clock, as the scheduler's own tests
 * drive it. `const rig = schedulerRigs(CONFIG, seed)` at a file's top registers one `afterEach` that
 * stops every scheduler it made and removes its store, the last made first.
 */
import { afterEach } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createScheduler, type Scheduler, type SchedulerOptions } from '../../src/scheduler/scheduler.js';
import type { Store } from '../../src/store/port.js';
import { FakeClient, type Script } from './fake-client.js';
import { plainVault, RecordingNotifier, seededRandom, tempStore } from './harness.js';

export interface Rig {
  clock: ManualClock;
  store: Store;
  client: FakeClient;
  notifier: RecordingNotifier;
  scheduler: Scheduler;
}

export interface RigOptions {
  script?: Script;
  /** Over the file's config. */
  config?: Partial<SchedulerOptions['config']>;
  /** Over the file's seed. */
  seed?: number;
  tuning?: SchedulerOptions['tuning'];
  isAllowed?: SchedulerOptions['isAllowed'];
  owns?: SchedulerOptions['owns'];
  /** The client's `itemWindowMs`: a limiter that counts reads longer (a cluster's shared window). */
  itemWindowMs?: number;
}

export function schedulerRigs(config: SchedulerOptions['config'], seed: number): (opts?: RigOptions) => Promise<Rig> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });
  return async (opts = {}) => {
    const clock = new ManualClock();
    const { store, cleanup } = await tempStore(clock);
    const client = new FakeClient(clock, opts.script);
    client.itemWindowMs = opts.itemWindowMs;
    const notifier = new RecordingNotifier(() => clock.now());
    const scheduler = createScheduler({
      config: { ...config, ...opts.config },
      logger: silentLogger,
      store,
      client,
      notifier,
      vault: plainVault,
      clock,
      random: seededRandom(opts.seed ?? seed),
      ...(opts.tuning ? { tuning: opts.tuning } : {}),
      ...(opts.isAllowed ? { isAllowed: opts.isAllowed } : {}),
      ...(opts.owns ? { owns: opts.owns } : {}),
    });
    cleanups.push(async () => {
      await scheduler.stop();
      await cleanup();
    });
    return { clock, store, client, notifier, scheduler };
  };
}
