/**
 * The alert stream end to end on a real Redis: a worker's RemoteOutbox → the Redis Streams → the
 * front's consumer → the in-process Outbox over grammY's Api → the Bot API stand-in, and the answer
 * back on the worker's channel.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Outbox } from '../../src/outbox/outbox.js';
import type { OutboxApi } from '../../src/outbox/api.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startAlertConsumer, type AlertConsumer, type AlertConsumerOptions } from '../../src/cluster/alert-consumer.js';
import { ALERT_LINGER_MS, createRemoteOutbox, type RemoteOutbox } from '../../src/cluster/remote-outbox.js';
import { alertStreams, idempotencyId, MAX_BATCH, SENDERS_GROUP, WIRE_VERSION } from '../../src/cluster/alert-jobs.js';
import { claimKey, createClaims, type Claims } from '../../src/cluster/claims.js';
import { captureLogs } from '../support/logs.js';
import { silentLogger } from '../../src/logger.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { stopAfterEach } from '../support/teardown.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('alert-stream');
});
afterAll(async () => {
  await redis.dispose();
});

/** Everything a test opens is closed after it, last opened first. */
const stopAfter = stopAfterEach();

let suiteRun = 0;
const BUTTONS = [[{ text: 'Open', callbackData: 'a:ev:1' }]];

/** The front: the Bot API stand-in, an Outbox over grammY's Api to it, and the consumer. */
async function front(prefix: string, opts: Partial<AlertConsumerOptions> & { api?: (api: OutboxApi) => OutboxApi; fake?: FakeTelegram } = {}) {
  const fake = opts.fake ?? (await startFakeTelegram());
  if (!opts.fake) stopAfter(fake);
  const real: OutboxApi = new Api(fake.token, { apiRoot: fake.apiRoot });
  const logs = captureLogs();
  // Twenty a second per chat: these tests are about the stream, not the outbox's pacing.
  const outbox = new Outbox({ api: opts.api ? opts.api(real) : real, logger: logs.logger, privatePerSecond: 20 });
  outbox.start();
  stopAfter(outbox);
  const consumer = startAlertConsumer({ connection: { url: redis.url }, prefix, outbox, logger: logs.logger, ...opts });
  stopAfter(consumer);
  return { fake, outbox, consumer, logs };
}

/** A worker's outbox. */
function worker(prefix: string, resultTimeoutMs?: number, answerPollMs?: number) {
  const logs = captureLogs();
  const remote = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: logs.logger, ...(resultTimeoutMs ? { resultTimeoutMs } : {}), ...(answerPollMs ? { answerPollMs } : {}) });
  stopAfter(remote);
  return { remote, logs };
}

/** A raw connection to the streams, as any process with access to Redis could have. */
function raw(prefix: string) {
  const conn = new Redis(redis.url);
  stopAfter({ close: () => conn.quit() });
  const streams = alertStreams(prefix);
  return {
    conn,
    streams,
    /** Adds a batch (an object, or any text) to a stream as a worker would, unsigned. */
    add: (body: unknown, stream: 'new' | 'edit' = 'new') => conn.xadd(streams[stream], '*', 'b', typeof body === 'string' ? body : JSON.stringify(body)),
    /** Entries of a stream not yet acknowledged and deleted. */
    length: (stream: 'new' | 'edit' = 'new') => conn.xlen(streams[stream]),
  };
}

/** A batch as a worker writes it. */
function batch(items: unknown[], from = 'raw-worker-1') {
  return { v: WIRE_VERSION, from, at: Date.now(), nonce: randomBytes(16).toString('base64url'), items };
}

function nextPrefix(): string {
  suiteRun += 1;
  return `${redis.prefix}${suiteRun}:`;
}

describe('the alert stream (real Redis)', () => {
  it('brings the message id the front got back to the worker, and its edits reach that message', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer } = await front(prefix);
    const { remote } = worker(prefix);
    const noAnswer = vi.fn();
    const id = await remote.send(501, '<b>New arb</b> 2.35 %', { kind: 'alert', buttons: BUTTONS, idempotencyKey: '501:arbs:a:new:1', onNoAnswer: noAnswer });
    const [message] = fake.messages(501);
    expect(id).toBe(message!.message_id);
    // Answered in time: nothing to find later.
    expect(noAnswer).not.toHaveBeenCalled();
    expect(message).toMatchObject({ text: '<b>New arb</b> 2.35 %', parse_mode: 'HTML', reply_markup: { inline_keyboard: [[{ text: 'Open', callback_data: 'a:ev:1' }]] } });

    expect(await remote.edit(501, id!, '<b>Moved</b> 2.5 %', { buttons: BUTTONS, idempotencyKey: '501:arbs:a:moved:1:2' })).toBe(true);
    expect(await remote.edit(501, id!, '<b>Gone</b>', { gone: true, idempotencyKey: '501:arbs:a:gone:1:3' })).toBe(true);
    expect(fake.messages(501)).toHaveLength(1);
    expect(fake.messages(501)[0]).toMatchObject({ message_id: id, text: '<b>Gone</b>', edited: true, history: ['<b>New arb</b> 2.35 %', '<b>Moved</b> 2.5 %'] });
    // A message that is not there: false, as the in-process outbox answers.
    expect(await remote.edit(501, 9999, 'nothing to edit')).toBe(false);
    expect(consumer.stats()).toMatchObject({ received: 4, sent: 1, edited: 3, repeats: 0, unsure: 0, invalid: 0 });
    expect(remote.stats).toMatchObject({ enqueued: 4, batches: 4, answered: 4, failed: 0, timedOut: 0 });
    // Every key of the stream and the claim sits under the cluster's prefix, the stream's apart from the store's alert state (audit 2, N11).
    const probe = raw(prefix);
    expect(await probe.conn.exists(probe.streams.new, probe.streams.edit, `${prefix}claim:${idempotencyId('501:arbs:a:new:1')}`)).toBe(3);
    expect(await probe.conn.keys(`${prefix}alerts:*`)).toEqual([]);
    // Each entry is acknowledged and deleted once answered: nothing is kept in Redis.
    await vi.waitFor(async () => expect([await probe.length('new'), await probe.length('edit')]).toEqual([0, 0]));
  });

  it('adds the sends and edits of one tick as one entry each, signed once, and answers them together', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer } = await front(prefix);
    const { remote } = worker(prefix);
    const first = await Promise.all([601, 602, 603].map((chat) => remote.send(chat, `arb for ${chat}`, { idempotencyKey: `${chat}:arbs:a:new:1` })));
    expect(first).toEqual([601, 602, 603].map((chat) => fake.messages(chat)[0]!.message_id));
    expect(remote.stats).toMatchObject({ enqueued: 3, batches: 1, answered: 3 });
    // A tick with both: one entry on each stream.
    const mixed = await Promise.all([
      remote.edit(601, first[0]!, 'moved', { idempotencyKey: '601:arbs:a:moved:1:2' }),
      remote.edit(602, first[1]!, 'moved', { idempotencyKey: '602:arbs:a:moved:1:2' }),
      remote.send(604, 'arb for 604', { idempotencyKey: '604:arbs:a:new:1' }),
    ]);
    expect(mixed).toEqual([true, true, fake.messages(604)[0]!.message_id]);
    expect(remote.stats).toMatchObject({ enqueued: 6, batches: 3, answered: 6 });
    expect(consumer.stats()).toMatchObject({ batches: 3, received: 6, sent: 4, edited: 2 });
  });

  it('gathers the alerts of reads that end a few ms apart into one entry, and sends a lone alert within the linger', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake } = await front(prefix);
    const { remote } = worker(prefix);
    // Three reads ending in three turns of the event loop, 5 ms apart: one entry, not three.
    const calls: Promise<number | undefined>[] = [];
    for (const chat of [611, 612, 613]) {
      calls.push(remote.send(chat, `arb for ${chat}`, { idempotencyKey: `${chat}:arbs:a:new:1` }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await Promise.all(calls)).toEqual([611, 612, 613].map((chat) => fake.messages(chat)[0]!.message_id));
    expect(remote.stats).toMatchObject({ enqueued: 3, batches: 1, answered: 3 });
    // Nothing else comes: the lone alert leaves when its linger ends, not later.
    const asked = performance.now();
    expect(await remote.send(614, 'arb for 614', { idempotencyKey: '614:arbs:a:new:1' })).toBe(fake.messages(614)[0]!.message_id);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(ALERT_LINGER_MS - 5);
    expect(remote.stats).toMatchObject({ enqueued: 4, batches: 2 });
  });

  it('adds what waits at once when asked, and says when every batch is in the stream (the alert state is written after it)', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const probe = raw(prefix);
    const remote = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: silentLogger, resultTimeoutMs: 60_000, lingerMs: 60_000 });
    stopAfter(remote);
    void remote.send(720_001, 'arb');
    void remote.edit(720_002, 1, 'moved');
    expect(await probe.length('new')).toBe(0);
    await remote.added();
    // In the stream when it resolves, not a linger later.
    expect([await probe.length('new'), await probe.length('edit')]).toEqual([1, 1]);
    await remote.added();
    expect(remote.stats).toMatchObject({ enqueued: 2, batches: 2 });
  });

  it('adds a full batch at once, without waiting for the linger', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const probe = raw(prefix);
    // No front: the entries stay in the stream to be counted.
    const remote = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: silentLogger, resultTimeoutMs: 60_000, lingerMs: 60_000 });
    stopAfter(remote);
    for (let n = 0; n < MAX_BATCH; n++) void remote.send(700_000 + n, `arb ${n}`);
    await vi.waitFor(async () => expect(await probe.length('new')).toBe(1), { timeout: 5_000 });
    expect(remote.stats).toMatchObject({ enqueued: MAX_BATCH, batches: 1 });
  });

  it('takes a new alert ahead of the edits queued before it, so a busy minute of edits does not delay it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { remote } = worker(prefix);
    // Forty edits wait in the stream (no front is running yet), in four ticks, then a new alert comes.
    const edits: Promise<boolean | undefined>[] = [];
    const probe = raw(prefix);
    for (let tick = 0; tick < 4; tick++) {
      for (let n = 0; n < 10; n++) {
        const i = tick * 10 + n;
        edits.push(remote.edit(510 + (i % 4), 1, `moved ${i}`, { idempotencyKey: `${510 + (i % 4)}:arbs:e${i}:moved:1:2` }));
      }
      await vi.waitFor(async () => expect(await probe.length('edit')).toBe(tick + 1), { timeout: 5_000 });
    }
    const sent = remote.send(520, 'New arb', { kind: 'alert', idempotencyKey: '520:arbs:n:new:1' });
    await vi.waitFor(async () => expect(await probe.length('new')).toBe(1), { timeout: 5_000 });
    // One alert in hand at a time: the order the front takes them in is the order Telegram sees.
    const { fake } = await front(prefix, { concurrency: 1 });
    expect(await sent).toBeDefined();
    await Promise.all(edits);
    const calls = fake.calls().filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText');
    // The front takes the new alert with the first entry of edits (a batch is taken whole): it goes
    // out before any edit of the later ticks, however many wait.
    const later = calls.findIndex((c) => /^moved [1-3]\d$/.test(String(c.payload.text)));
    expect(calls.findIndex((c) => c.method === 'sendMessage')).toBeLessThan(later);
    // Every edit answered; the outbox folded each tick's edits of one message (4 chats) into one call.
    expect(calls.filter((c) => c.method === 'editMessageText')).toHaveLength(16);
  });

  it('answers each worker on its own channel', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake } = await front(prefix);
    // Reading the claim only after a minute: an answer within seconds came on the channel.
    const a = worker(prefix, undefined, 60_000).remote;
    const b = worker(prefix, undefined, 60_000).remote;
    const started = performance.now();
    const [ida, idb] = await Promise.all([a.send(511, 'to a'), b.send(512, 'to b')]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ida).toBe(fake.messages(511)[0]!.message_id);
    expect(idb).toBe(fake.messages(512)[0]!.message_id);
    const check = new Redis(redis.url);
    try {
      expect(await check.pubsub('CHANNELS', `${prefix}alert-answers:*`)).toHaveLength(2);
    } finally {
      check.disconnect();
    }
  });

  it('sends one message for the same key added twice, and answers both callers with its id', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer } = await front(prefix);
    // Two workers see the same alert (a lease moved between them): two items, one message.
    const first = worker(prefix).remote;
    const second = worker(prefix).remote;
    const key = '502:arbs:b:new:1';
    const ids = await Promise.all([first.send(502, 'one alert', { idempotencyKey: key }), second.send(502, 'one alert', { idempotencyKey: key })]);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(ids[0]).toBe(fake.messages(502)[0]!.message_id);
    expect(ids[1]).toBe(ids[0]);
    // Later, added again: the claim answers it.
    expect(await first.send(502, 'one alert', { idempotencyKey: key })).toBe(ids[0]);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(consumer.stats()).toMatchObject({ sent: 1, repeats: 2, unsure: 0 });
    // Without a key nothing is deduplicated: two notices are two messages.
    await Promise.all([first.send(503, 'notice'), first.send(503, 'notice')]);
    expect(fake.messages(503)).toHaveLength(2);
  });

  it('finds a missed answer of a keyed send in its claim', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake } = await front(prefix);
    const { remote } = worker(prefix, undefined, 200);
    // The answer channel is gone (as while it reconnects): the front's answer reaches nobody.
    const answers = (remote as unknown as { answers: Redis }).answers;
    await answers.unsubscribe();
    const started = performance.now();
    const id = await remote.send(530, 'answer missed', { idempotencyKey: '530:arbs:m:new:1' });
    expect(id).toBe(fake.messages(530)[0]!.message_id);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(remote.stats).toMatchObject({ answered: 1, timedOut: 0 });
  });

  it('says what became of a send it stopped waiting for: its message id from the claim once the front sent it, none when folded', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { remote } = worker(prefix, 300);
    // No front yet: the call gives up, as behind a long backlog.
    expect(await remote.send(531, 'behind the backlog', { idempotencyKey: '531:arbs:b:new:1' })).toBeUndefined();
    expect(remote.pending).toBe(0);
    expect(await remote.messageIdOf('531:arbs:b:new:1')).toBeUndefined();
    const { fake } = await front(prefix);
    await vi.waitFor(() => expect(fake.messages(531)).toHaveLength(1), { timeout: 5_000 });
    await vi.waitFor(async () => expect(await remote.messageIdOf('531:arbs:b:new:1')).toBe(fake.messages(531)[0]!.message_id));
    // Never sent under that key, and a key whose send went out as no message of its own.
    expect(await remote.messageIdOf('531:arbs:other:new:1')).toBeUndefined();
    const claims = raw(prefix).conn;
    await claims.set(claimKey(prefix, '531:arbs:folded:new:1'), 's:');
    expect(await remote.messageIdOf('531:arbs:folded:new:1')).toBe('none');
    // A claim in the middle of its send is not an answer yet.
    await claims.set(claimKey(prefix, '531:arbs:sending:new:1'), 'p:front-1');
    expect(await remote.messageIdOf('531:arbs:sending:new:1')).toBeUndefined();
  });

  it('settles a sent alert’s claim in the round trip that acknowledges its entry, ahead of the acknowledgement', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake } = await front(prefix);
    const { remote } = worker(prefix);
    const watcher = await monitorRedis(redis.url);
    stopAfter({ close: () => watcher.close() });
    const key = '531:arbs:s:new:1';
    const claim = `${prefix}claim:${idempotencyId(key)}`;
    const id = await remote.send(531, 'settled with its ack', { idempotencyKey: key });
    expect(id).toBe(fake.messages(531)[0]!.message_id);
    await vi.waitFor(async () => expect(await raw(prefix).length()).toBe(0), { timeout: 5_000 });
    expect(await raw(prefix).conn.get(claim)).toBe(`s:${id}`);
    const seen = watcher.commands.filter((c) => c.args.some((a) => a.startsWith(prefix)));
    // EVAL the first time on a connection, EVALSHA after.
    const settle = seen.findIndex((c) => /^eval(sha)?$/i.test(c.args[0] ?? '') && c.args.includes(claim));
    const ack = seen.findIndex((c) => c.args[0]?.toLowerCase() === 'xack');
    expect(settle).toBeGreaterThanOrEqual(0);
    expect(ack).toBeGreaterThan(settle);
    // One connection, one pipeline: the settle is not a round trip of its own.
    expect(seen[settle]!.source).toBe(seen[ack]!.source);
  });

  it('does not send again what a front that died mid-send had claimed, and counts it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const fake = await startFakeTelegram();
    stopAfter(fake);
    // The first front reaches Telegram, then dies before it hears the answer.
    const dying = await front(prefix, {
      fake,
      // Dead: it answers nothing more and closes without waiting for the outbox.
      closeTimeoutMs: 0,
      api: (real) => ({
        sendMessage: async (chatId, text, other) => {
          await real.sendMessage(chatId, text, other);
          return new Promise<never>(() => undefined);
        },
        editMessageText: (...args) => real.editMessageText(...args),
      }),
    });
    const { remote } = worker(prefix);
    const answer = remote.send(504, 'claimed, then the front died', { idempotencyKey: '504:arbs:c:new:1' });
    await vi.waitFor(() => expect(fake.messages(504)).toHaveLength(1), { timeout: 5000 });
    await dying.consumer.close();

    // A second front takes over the dead front's pending entry as it starts.
    const survivor = await front(prefix, { fake, pendingWaitMs: 200 });
    expect(await answer).toBeUndefined();
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(survivor.consumer.stats()).toMatchObject({ received: 1, sent: 0, unsure: 1 });
    expect(survivor.logs.text()).toContain('never recorded Telegram’s answer');
  }, 20_000);

  it('replays a dead front’s entry that it had not claimed yet, so nothing is lost', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const fake = await startFakeTelegram();
    stopAfter(fake);
    const { remote } = worker(prefix);
    // An entry read by a front that stopped before claiming (its outbox never got it).
    const probe = raw(prefix);
    const answer = remote.send(505, 'taken but never claimed', { idempotencyKey: '505:arbs:d:new:1' });
    await vi.waitFor(async () => expect(await probe.length('new')).toBe(1));
    await probe.conn.xgroup('CREATE', probe.streams.new, SENDERS_GROUP, '0', 'MKSTREAM');
    const taken = await probe.conn.xreadgroup('GROUP', SENDERS_GROUP, 'dead-front', 'COUNT', 10, 'STREAMS', probe.streams.new, '>');
    expect(taken).toHaveLength(1);
    const survivor = await front(prefix, { fake });
    const id = await answer;
    expect(id).toBe(fake.messages(505)[0]?.message_id);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(survivor.consumer.stats()).toMatchObject({ sent: 1, unsure: 0 });
    await vi.waitFor(async () => expect(await probe.conn.xpending(probe.streams.new, SENDERS_GROUP)).toEqual([0, null, null, null]));
  }, 20_000);

  it('takes over an entry another front has held idle too long, while it runs', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer } = await front(prefix, { reclaimIdleMs: 300, reclaimIntervalMs: 100 });
    const probe = raw(prefix);
    // Read by another consumer of the group after this front started (two fronts for a moment while
    // the sender lease moved), never answered: added and read in one transaction, ahead of this
    // front's blocked read.
    await vi.waitFor(async () => expect(await probe.conn.exists(probe.streams.new)).toBe(1));
    const body = JSON.stringify(batch([{ i: 1, type: 'send', chatId: 540, text: 'taken over', opts: { idempotencyKey: '540:arbs:o:new:1' } }]));
    const [, [, read]] = (await probe.conn.multi().xadd(probe.streams.new, '*', 'b', body).xreadgroup('GROUP', SENDERS_GROUP, 'paused-front', 'COUNT', 10, 'STREAMS', probe.streams.new, '>').exec()) as [unknown, [unknown, unknown[]]];
    expect(read).toHaveLength(1);
    await vi.waitFor(() => expect(fake.messages(540)).toHaveLength(1), { timeout: 5_000 });
    // Counted once Telegram's answer is read: the stand-in has logged the message a moment before that.
    await vi.waitFor(() => expect(consumer.stats()).toMatchObject({ sent: 1 }), { timeout: 2_000 });
    expect(fake.messages(540)).toHaveLength(1);
  }, 20_000);

  it('takes an entry over again when its check failed for Redis trouble, and sends it then', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const real = stopAfter(createClaims({ connection: { url: redis.url }, prefix }));
    let failures = 1;
    const claims: Claims = {
      ...real,
      takeNonce: async (...args) => {
        if (failures-- > 0) throw new Error('Redis is away');
        return real.takeNonce(...args);
      },
    };
    // A guard that lets everything through: only its nonce's round trip matters here.
    const guard = { verify: () => undefined, fresh: () => undefined, destination: () => undefined, groupDestination: () => undefined };
    const { fake, consumer, logs } = await front(prefix, { claims, guard, reclaimIdleMs: 200, reclaimIntervalMs: 100 });
    const { remote } = worker(prefix);
    const id = await remote.send(550, 'checked the second time', { idempotencyKey: '550:arbs:r:new:1' });
    expect(id).toBe(fake.messages(550)[0]?.message_id);
    expect(consumer.stats()).toMatchObject({ batches: 2, received: 1, sent: 1 });
    expect(logs.text()).toContain('could not check an entry');
  });

  it('sends once when the same key comes in two entries at once', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer } = await front(prefix);
    const probe = raw(prefix);
    const item = { i: 1, type: 'send', chatId: 510, text: 'twice in the stream', opts: { idempotencyKey: '510:arbs:e:new:1' } };
    await Promise.all([probe.add(batch([item])), probe.add(batch([item]))]);
    await vi.waitFor(() => expect(consumer.stats().received).toBe(2), { timeout: 5000 });
    await vi.waitFor(async () => expect(await probe.length()).toBe(0), { timeout: 5000 });
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(consumer.stats()).toMatchObject({ sent: 1, repeats: 1, unsure: 0 });
  });

  it('lets the outbox answer the alerts in hand when it closes, so none is left claimed', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const slow = (real: OutboxApi): OutboxApi => ({
      sendMessage: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return real.sendMessage(...args);
      },
      editMessageText: (...args) => real.editMessageText(...args),
    });
    const { fake, consumer } = await front(prefix, { api: slow });
    const { remote } = worker(prefix);
    const answer = remote.send(511, 'in hand at shutdown', { idempotencyKey: '511:arbs:f:new:1' });
    await vi.waitFor(() => expect(consumer.stats().received).toBe(1));
    await consumer.close();
    expect(await answer).toBe(fake.messages(511)[0]?.message_id);
    expect(consumer.stats()).toMatchObject({ sent: 1, unsure: 0 });
  });

  it('waits for the alerts in hand no longer than the stop gives it (the outbox drains in the rest)', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    // Telegram never answers: the alert stays in hand.
    const hung = (real: OutboxApi): OutboxApi => ({
      sendMessage: () => new Promise<never>(() => undefined),
      editMessageText: (...args) => real.editMessageText(...args),
    });
    const { consumer } = await front(prefix, { api: hung, closeTimeoutMs: 10_000 });
    const { remote } = worker(prefix);
    void remote.send(512, 'in hand, never answered', { idempotencyKey: '512:arbs:g:new:1' });
    await vi.waitFor(() => expect(consumer.stats().received).toBe(1));
    const started = Date.now();
    await consumer.close(300);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('answers undefined and false for a chat that blocked the bot', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake } = await front(prefix);
    const { remote } = worker(prefix);
    const user = { id: 506, first_name: 'Ivan' };
    const id = await remote.send(506, 'before', { idempotencyKey: '506:x:new:1' });
    expect(id).toBe(1);
    fake.chatMember(user, 'kicked');
    expect(await remote.send(506, 'after the block', { idempotencyKey: '506:y:new:1' })).toBeUndefined();
    expect(await remote.edit(506, id!, 'edited after the block')).toBe(false);
    expect(fake.messages(506).map((m) => m.text)).toEqual(['before']);
  });

  it('discards a forged or broken entry with a log line and goes on', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { fake, consumer, logs } = await front(prefix);
    const probe = raw(prefix);
    const forged = [
      batch([{ i: 1, type: 'send', chatId: 'everyone', text: 'spam', opts: {} }]),
      batch([{ i: 1, type: 'send', chatId: 507, text: 'with an extra field', opts: { parse_mode: 'Markdown' } }]),
      batch([{ i: 1, type: 'edit', chatId: 507, messageId: -1, text: 'x', opts: {} }]),
      { ...batch([{ i: 1, type: 'send', chatId: 507, text: 'a future version', opts: {} }]), v: 3 },
      { v: 1, type: 'send', chatId: 507, text: 'a job of the BullMQ queue', opts: {} },
      'not even JSON',
    ];
    for (const body of forged) await probe.add(body);
    await probe.conn.xadd(probe.streams.new, '*', 'x', 'no batch field');
    await vi.waitFor(() => expect(consumer.stats().invalid).toBe(forged.length + 1), { timeout: 5000 });
    expect(logs.text().match(/discarded an entry that is not a batch of alerts/g)).toHaveLength(forged.length + 1);
    expect(fake.calls('sendMessage')).toHaveLength(0);
    await vi.waitFor(async () => expect(await probe.length()).toBe(0));
    // Still consuming.
    expect(await worker(prefix).remote.send(507, 'a real alert')).toBe(1);
  });

  it('says at start how many jobs of the older BullMQ queue it leaves unsent, and how to empty it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const probe = raw(prefix);
    await probe.conn.lpush(`${prefix}alert-queue:wait`, '1', '2');
    await probe.conn.zadd(`${prefix}alert-queue:prioritized`, 10, '3');
    const { logs } = await front(prefix);
    await vi.waitFor(() => expect(logs.records().find((r) => r.jobs !== undefined)).toMatchObject({ jobs: 3, keys: `${prefix}alert-queue:*` }));
    expect(logs.text()).toContain('The move to the alert stream');
    // Nothing to say when the old queue is empty.
    const quiet = await front(nextPrefix());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quiet.logs.records().find((r) => r.jobs !== undefined)).toBeUndefined();
  });

  it('answers undefined when no front answers in time (an edit not known to have failed), and at once when closed', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const { remote, logs } = worker(prefix, 300);
    const noAnswer = vi.fn();
    expect(await remote.send(508, 'nobody listens', { idempotencyKey: '508:a', onNoAnswer: noAnswer })).toBeUndefined();
    // Told before the call resolves, so the key is in the alert's entry by the time the notifier goes on.
    expect(noAnswer).toHaveBeenCalledTimes(1);
    expect(await remote.edit(508, 7, 'nor here', { idempotencyKey: '508:a:moved' })).toBeUndefined();
    expect(remote.stats.timedOut).toBe(2);
    // One warning for the minute, however many calls timed out in it.
    expect(logs.text().match(/no answer from the front in time \(/g)).toHaveLength(1);
    expect(logs.records().find((r) => r.calls !== undefined)).toMatchObject({ calls: 1, waitedMs: 300 });
    const slow = worker(prefix).remote;
    const waiting = slow.edit(508, 1, 'nobody listens either');
    await vi.waitFor(() => expect(slow.stats.enqueued).toBe(1));
    const started = Date.now();
    await slow.close();
    expect(await waiting).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await slow.send(508, 'after close')).toBeUndefined();
    expect(slow.stats.abandoned).toBe(2);
  });

  it('closes every Redis connection it opened', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = nextPrefix();
    const probe = new Redis(redis.url);
    stopAfter({ close: () => probe.quit() });
    const ours = async () => {
      const list = String(await probe.call('CLIENT', 'LIST'));
      return list.split('\n').filter((line) => /name=bb-(alerts|claims)/.test(line)).length;
    };
    const before = await ours();
    const handles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'Timeout').length;
    const handlesBefore = handles();
    const fake = await startFakeTelegram();
    const outbox = new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: captureLogs().logger });
    outbox.start();
    const consumer: AlertConsumer = startAlertConsumer({ connection: { url: redis.url }, prefix, outbox, logger: captureLogs().logger });
    const remote: RemoteOutbox = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: captureLogs().logger });
    expect(await remote.send(509, 'hello', { idempotencyKey: '509:a' })).toBe(1);
    expect(await ours()).toBeGreaterThan(before);
    await remote.close();
    await consumer.close();
    outbox.stop();
    await outbox.stopped();
    await fake.close();
    await vi.waitFor(async () => expect(await ours()).toBe(before));
    // Nothing left holding the process open: no socket, no timer (the outbox's own sleep ends within its 1 s slice).
    await vi.waitFor(() => expect(handles()).toBeLessThanOrEqual(handlesBefore), { timeout: 3000 });
  });
});
