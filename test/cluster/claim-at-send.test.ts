/**
 * The cluster's claim is taken in the alert's turn, right before sendMessage (the outbox's
 * `beforeFirstSend`), not when the front takes the entry: an alert waiting in a front's outbox holds
 * no claim, so a front killed before its turn loses nothing. Real Redis (the alert streams) and the
 * Bot API stand-in.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { LAST_TOKEN_GUARD_MS } from '../../src/outbox/chat-bucket.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startAlertConsumer, type AlertConsumerOptions } from '../../src/cluster/alert-consumer.js';
import { createClaims } from '../../src/cluster/claims.js';
import { createRemoteOutbox } from '../../src/cluster/remote-outbox.js';
import { captureLogs } from '../support/logs.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { stopAfterEach } from '../support/teardown.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('claim-at-send');
});
afterAll(async () => {
  await redis.dispose();
});

/** Everything a test opens is closed after it, last opened first. */
const stopAfter = stopAfterEach();

let run = 0;
function nextPrefix(): string {
  run += 1;
  return `${redis.prefix}${run}:`;
}

/** A front: an Outbox over grammY's Api to the stand-in (started unless told), and the consumer. */
function front(prefix: string, fake: FakeTelegram, opts: Partial<AlertConsumerOptions> & { clock?: ManualClock; start?: boolean } = {}) {
  const logs = captureLogs();
  const outbox = new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: logs.logger, ...(opts.clock && { clock: opts.clock }) });
  if (opts.start !== false) outbox.start();
  stopAfter(outbox);
  const consumer = startAlertConsumer({ connection: { url: redis.url }, prefix, outbox, logger: logs.logger, ...opts });
  stopAfter(consumer);
  return { outbox, consumer, logs };
}

async function setup() {
  const prefix = nextPrefix();
  const fake = await startFakeTelegram();
  stopAfter(fake);
  const remote = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: captureLogs().logger });
  stopAfter(remote);
  const claims = createClaims({ connection: { url: redis.url }, prefix });
  stopAfter(claims);
  return { prefix, fake, remote, claims };
}

describe('the claim is taken in the alert’s turn (real Redis)', () => {
  it('holds no claim while the alert waits in the outbox, and claims it right before sendMessage', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { prefix, fake, remote, claims } = await setup();
    const clock = new ManualClock();
    const { outbox, consumer } = front(prefix, fake, { clock });
    // The chat's burst is spent (its last token after the guard): the next message waits a second of the outbox's clock.
    const earlier = [1, 2, 3].map((n) => outbox.send(601, `earlier ${n}`));
    await vi.waitFor(() => expect(fake.messages(601)).toHaveLength(2), { timeout: 5000 });
    await clock.advance(LAST_TOKEN_GUARD_MS);
    await Promise.all(earlier);
    const key = '601:arbs:a:new:1';
    const answer = remote.send(601, 'waits for its turn', { idempotencyKey: key });
    await vi.waitFor(() => expect(consumer.stats().received).toBe(1), { timeout: 5000 });
    expect(outbox.depth).toBe(1);
    expect(await claims.peek(key)).toBeUndefined();
    await clock.advance(1000);
    const id = await answer;
    expect(id).toBe(fake.messages(601)[3]?.message_id);
    expect(await claims.peek(key)).toEqual({ kind: 'sent', messageId: id });
    expect(consumer.stats()).toMatchObject({ received: 1, sent: 1, repeats: 0, unsure: 0 });
  });

  it('a second front does not send an alert another front claimed: it answers with that front’s message id', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { prefix, fake, remote, claims } = await setup();
    const key = '602:arbs:b:new:1';
    // Another front claimed it in its turn and is waiting for Telegram's answer.
    expect(await claims.claim(key, 'other-front')).toEqual({ kind: 'claimed' });
    const { consumer } = front(prefix, fake, { pendingWaitMs: 5000 });
    const answer = remote.send(602, 'claimed elsewhere', { idempotencyKey: key });
    await vi.waitFor(() => expect(consumer.stats().received).toBe(1), { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await claims.settle(key, 'other-front', 77)).toBe(true);
    expect(await answer).toBe(77);
    expect(fake.calls('sendMessage')).toHaveLength(0);
    expect(consumer.stats()).toMatchObject({ received: 1, sent: 0, repeats: 1, unsure: 0 });
  });

  it('an alert whose front died before its turn is delivered once by another front', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { prefix, fake, remote, claims } = await setup();
    const key = '603:arbs:c:new:1';
    // The first front takes the entry, but its outbox never gets to the alert's turn; then it dies
    // (its consumer stops without answering the entry, as a kill -9 would leave it).
    const dying = front(prefix, fake, { start: false, closeTimeoutMs: 0 });
    const answer = remote.send(603, 'taken, then its front died', { idempotencyKey: key });
    await vi.waitFor(() => expect(dying.consumer.stats().received).toBe(1), { timeout: 5000 });
    expect(dying.outbox.depth).toBe(1);
    expect(await claims.peek(key)).toBeUndefined();
    await dying.consumer.close();

    // The next front takes the dead one's pending entry over as it starts.
    const survivor = front(prefix, fake);
    const id = await answer;
    expect(fake.messages(603).map((m) => m.message_id)).toEqual([id]);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(survivor.consumer.stats()).toMatchObject({ received: 1, sent: 1, repeats: 0, unsure: 0 });
    expect(await claims.peek(key)).toEqual({ kind: 'sent', messageId: id });
  }, 20_000);
});
