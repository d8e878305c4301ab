/** The notifier's metrics hook: first sighting → delivered, only for alerts that reached Telegram as themselves. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { diffRead } from '../../src/scheduler/diff.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import type { OutboxPort } from '../../src/outbox/port.js';
import type { Store } from '../../src/store/port.js';
import { opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };

let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
});
afterEach(async () => {
  await cleanup();
});

describe('alert latency hook', () => {
  it('observes the time from the read that first saw the item to its delivery, and nothing for a folded alert', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const deliveries: ((id: number | undefined) => void)[] = [];
    const outbox: OutboxPort = {
      send: () => new Promise((resolve) => deliveries.push(resolve)),
      edit: async () => true,
    };
    const latencies: number[] = [];
    const notifier = createNotifier({
      store,
      client: { cachedDictionaries: () => undefined },
      outbox,
      logger: silentLogger,
      clock,
      metrics: { alertLatency: (ms) => latencies.push(ms) },
    });
    const user = store.getUser(1)!;
    const result = diffRead({ now: clock.now(), chatId: 1, items: [opp('a'), opp('b')], entries: store.alerts.entries(SUB.subKey), known: new Map() });
    for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
    notifier.notify(SUB, user, result.events);
    expect(deliveries).toHaveLength(2);
    await clock.advance(2_500);
    deliveries[0]!(700);
    // Folded into a digest: no message of its own.
    deliveries[1]!(undefined);
    await notifier.idle();
    expect(latencies).toEqual([2_500]);
  });
});
