/**
 * A worker's alert whose answer the front gave after the worker stopped waiting (remote-outbox.ts:
 * a minute, against a front's backlog that a flood at Telegram's pace makes many minutes long) is
 * still edited as its item moves: the notifier keeps the send's key in the alert's entry and finds
 * the message id in the claim the front wrote. Real Redis, the real front (its outbox over the
 * Bot API stand-in and the alert consumer), the real notifier and diff.
 */
import { Api } from 'grammy';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNotifier } from '../../src/alerts/notifier.js';
import { startAlertConsumer } from '../../src/cluster/alert-consumer.js';
import { createRemoteOutbox } from '../../src/cluster/remote-outbox.js';
import { ManualClock } from '../../src/clock.js';
import { startFakeTelegram } from '../../src/fake-telegram/server.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { diffRead, EDIT_MIN_INTERVAL_MS } from '../../src/scheduler/diff.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { stopAfterEach } from '../support/teardown.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('late-answers');
});
afterAll(async () => {
  await redis.dispose();
});
const stopAfter = stopAfterEach();

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };

describe('an alert answered after its worker stopped waiting', () => {
  it('is edited at the next moves: its message id is read from the claim the front wrote', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}late:`;
    const clock = new ManualClock(Date.now());
    const { store, cleanup } = await tempStore(clock);
    stopAfter({ close: cleanup });
    addUser(store, 1, ['arbs_prematch']);
    // The worker waits 200 ms for an answer; no front runs yet, so its alert's call gives up.
    const remote = stopAfter(createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: silentLogger, resultTimeoutMs: 200 }));
    const notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox: remote, logger: silentLogger, clock });
    let known = new Map<string, Opportunity>();
    const read = async (items: Opportunity[]) => {
      const user = store.getUser(1)!;
      const result = diffRead({ now: clock.now(), chatId: user.chatId, items, entries: store.alerts.entries(SUB.subKey), known, previousReadAt: clock.now() - 2_000 });
      for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
      known = result.known;
      notifier.notify(SUB, user, result.events);
      await notifier.idle();
      return result.events.map((e) => e.type);
    };

    expect(await read([opp('a')])).toEqual(['new']);
    expect(remote.stats.timedOut).toBe(1);
    expect(store.alerts.get(SUB.subKey, 'a')).toMatchObject({ messageId: null, sentKey: expect.any(String) });

    // The front comes and sends the alert (its backlog cleared).
    const fake = stopAfter(await startFakeTelegram());
    const outbox = stopAfter(new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: silentLogger, privatePerSecond: 20 }));
    outbox.start();
    stopAfter(startAlertConsumer({ connection: { url: redis.url }, prefix, outbox, logger: silentLogger }));
    await vi.waitFor(() => expect(fake.messages(1)).toHaveLength(1), { timeout: 5_000 });
    const messageId = fake.messages(1)[0]!.message_id;

    clock.advance(EDIT_MIN_INTERVAL_MS);
    await vi.waitFor(async () => {
      clock.advance(EDIT_MIN_INTERVAL_MS);
      await read([opp('a', [2.12, 2.05])]);
      expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBe(messageId);
    });
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.14, 2.05])])).toEqual(['moved']);
    await vi.waitFor(() => expect(fake.messages(1)[0]!.text).toContain('<b>2.14</b>'), { timeout: 5_000 });
    // The same message, edited: no second alert.
    expect(fake.messages(1)).toHaveLength(1);
  });
});
