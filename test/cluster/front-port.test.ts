/**
 * The front's scheduler port: coverage computed without a running scheduler equals what the
 * scheduler itself says for the same users (under both read scopes, with and without the service
 * being added), follows changes the feed announces, and refreshes reach this process's scheduler in
 * ROLE=all; latest items come from the asker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { createFrontSchedulerPort } from '../../src/cluster/front-port.js';
import { planStatus } from '../../src/scheduler/plan-tier.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import { FakeClient } from '../scheduler/fake-client.js';
import { opp } from '../scheduler/fixtures.js';
import { addUser, plainVault, RecordingNotifier, tempStore } from '../scheduler/harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function both(env: Record<string, string>) {
  const clock = new ManualClock();
  const { store, cleanup } = await tempStore(clock);
  cleanups.push(cleanup);
  addUser(store, 1, ['arbs_live', 'arbs_prematch', 'middles_prematch']);
  addUser(store, 2, ['arbs_prematch']);
  addUser(store, 3, ['arbs_prematch'], { paused: ['arbs_prematch'] });
  const config = loadConfig(env);
  const client = new FakeClient(clock);
  const scheduler = createScheduler({ config, logger: silentLogger, store, client, notifier: new RecordingNotifier(() => clock.now()), vault: plainVault, clock });
  scheduler.refreshUsers([1, 2, 3]);
  const refreshed: number[] = [];
  const port = createFrontSchedulerPort({
    config, store, client: {}, vault: plainVault, clock,
    latest: { ask: async (userId) => (userId === 1 ? [opp('x')] : []) },
    local: { refreshUser: (id) => void refreshed.push(id) },
  });
  return { store, scheduler, port, refreshed };
}

describe('the front’s scheduler port', () => {
  const envs: Record<string, string>[] = [{}, { LIMIT_SCOPE: 'address' }, { LIMIT_SCOPE: 'address', LIMIT_SCOPE_TOKENS: 'address' }, { POLL_INTERVAL_SECONDS: '7' }];
  for (const env of envs) {
    it(`says the coverage the scheduler says (${JSON.stringify(env)})`, async () => {
      const { scheduler, port } = await both(env);
      for (const id of [1, 2, 3, 4]) {
        expect(port.coverage(id)).toEqual(scheduler.coverage(id));
        expect(port.coverage(id, 'valuebets_live')).toEqual(scheduler.coverage(id, 'valuebets_live'));
      }
      expect(port.coverage(1).arbs_live?.share).toBeGreaterThan(0);
    });
  }

  it('LIMIT_SCOPE=address: shows a read shared once the worker has stored each member’s plan, and only within one plan', async () => {
    const { store, scheduler, port } = await both({ LIMIT_SCOPE: 'address' });
    addUser(store, 4, ['arbs_prematch']);
    for (const id of [4]) {
      scheduler.refreshUser(id);
      port.changed(id);
    }
    // No plan known yet: each reads for itself.
    expect(port.coverage(2).arbs_prematch?.sharedWith).toBeUndefined();
    // The worker's reads showed users 1 and 2 full odds, user 4 masked ones (stored with a digest of each key).
    store.updateStatus(1, 'arbs_prematch', planStatus('full', 'key-1'));
    store.updateStatus(2, 'arbs_prematch', planStatus('full', 'key-2'));
    store.updateStatus(4, 'arbs_prematch', planStatus('masked', 'key-4'));
    for (const id of [1, 2, 4]) {
      scheduler.refreshUser(id);
      port.changed(id);
    }
    expect(port.coverage(2).arbs_prematch?.sharedWith).toBe(1);
    expect(port.coverage(4).arbs_prematch?.sharedWith).toBeUndefined();
    for (const id of [1, 2, 4]) expect(port.coverage(id)).toEqual(scheduler.coverage(id));
  });

  it('follows a change another process made, and tells this process’s scheduler of a refresh', async () => {
    const { store, scheduler, port, refreshed } = await both({});
    const before = port.coverage(2).arbs_prematch?.share;
    addUser(store, 2, ['arbs_prematch', 'arbs_live', 'middles_live']);
    scheduler.refreshUser(2);
    port.changed(2);
    expect(port.coverage(2)).toEqual(scheduler.coverage(2));
    expect(port.coverage(2).arbs_prematch?.share).toBeLessThan(before!);
    port.refreshUser(3);
    expect(refreshed).toEqual([3]);
    expect(await port.latestItems(1)).toEqual([opp('x')]);
  });
});
