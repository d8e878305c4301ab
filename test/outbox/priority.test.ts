import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { LAST_TOKEN_GUARD_MS as G } from '../../src/outbox/chat-bucket.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { insertByPriority, PRIORITY } from '../../src/outbox/priority.js';
import { run, ScriptedApi, settle, telegramError, times } from './helpers.js';
import { stopAfterEach } from '../support/teardown.js';

const stopAfter = stopAfterEach();

function setup() {
  const clock = new ManualClock();
  const api = new ScriptedApi(clock);
  const migrated: [number, number][] = [];
  const unavailable: number[] = [];
  const outbox = new Outbox({
    api,
    logger: silentLogger,
    clock,
    random: () => 0.5,
    onMigrated: (from, to) => migrated.push([from, to]),
    onChatUnavailable: (chatId) => unavailable.push(chatId),
  });
  stopAfter(outbox);
  outbox.start();
  return { clock, api, outbox, t0: clock.now(), migrated, unavailable };
}

const order = (api: ScriptedApi, chatId: number) =>
  api.calls.filter((c) => c.ok && c.chatId === chatId).map((c) => (c.method === 'sendMessage' ? `send ${c.text}` : `edit ${c.messageId} ${c.text}`));

describe('the order of one chat’s jobs', () => {
  it('a new alert overtakes queued edits, gone marks go before moves, and edits of one message coalesce', async () => {
    const { clock, api, outbox, t0 } = setup();
    // Six moving alerts: their edits fill the chat's queue; an edit goes only with a full bucket,
    // so they go one a second and leave the burst to new alerts.
    for (let m = 1; m <= 6; m++) void outbox.edit(7, m, `moved ${m} v1`);
    await settle();
    expect(order(api, 7)).toEqual(['edit 1 moved 1 v1']);
    for (let m = 2; m <= 6; m++) void outbox.edit(7, m, `moved ${m} v2`);
    void outbox.edit(7, 5, 'gone 5', { gone: true });
    const fresh = outbox.send(7, 'NEW', { digestLine: 'NEW' });
    await run(clock, 10_000);
    expect(order(api, 7)).toEqual([
      'edit 1 moved 1 v1',
      // The new alert goes at once, right after the edit, ahead of five older edits…
      'send NEW',
      // …then the gone mark (which replaced message 5's queued move), then the moves, latest text only.
      'edit 5 gone 5',
      'edit 2 moved 2 v2',
      'edit 3 moved 3 v2',
      'edit 4 moved 4 v2',
      'edit 6 moved 6 v2',
    ]);
    const sendAt = api.calls.find((c) => c.text === 'NEW')?.at;
    expect(sendAt).toBe(t0);
    // The edits wait for a full bucket again: the new alert's token is back two seconds later.
    expect(api.calls.filter((c) => c.method === 'editMessageText').map((c) => c.at - t0)).toEqual([0, 2000, 3000, 4000, 5000, 6000]);
    expect(await fresh).toBe(1);
    expect(outbox.stats.coalesced).toBe(6);
  });

  it('a late alert (a backlog found when a token came back) goes after fresh alerts, before gone marks and edits', async () => {
    const { clock, api, outbox } = setup();
    // The chat's burst is spent, so what follows queues and goes one a second in its order.
    for (let i = 0; i < 3; i++) void outbox.send(9, `burst ${i}`, { digestLine: `burst ${i}` });
    await settle();
    void outbox.edit(9, 1, 'moved 1');
    void outbox.edit(9, 2, 'gone 2', { gone: true });
    const backlog = [1, 2, 3].map((i) => outbox.send(9, `late ${i}`, { digestLine: `late ${i}`, late: true }));
    await run(clock, 1500);
    // A fresh alert found meanwhile overtakes the backlog still queued.
    void outbox.send(9, 'fresh', { digestLine: 'fresh' });
    await run(clock, 10_000);
    expect(order(api, 9)).toEqual(['send burst 0', 'send burst 1', 'send burst 2', 'send late 1', 'send fresh', 'send late 2', 'send late 3', 'edit 2 gone 2', 'edit 1 moved 1']);
    // Every late alert went as itself.
    expect((await Promise.all(backlog)).every((id) => typeof id === 'number')).toBe(true);
    expect(outbox.stats.folded).toBe(0);
  });

  it('a backlog kept waiting behind fresh alerts folds once its oldest has waited behindMs', async () => {
    const clock = new ManualClock();
    const api = new ScriptedApi(clock);
    const outbox = stopAfter(new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, digestThreshold: 100, behindMs: 5_000 }));
    outbox.start();
    for (let i = 0; i < 3; i++) void outbox.send(10, `burst ${i}`, { digestLine: `burst ${i}` });
    for (let i = 0; i < 4; i++) void outbox.send(10, `late ${i}`, { digestLine: `late ${i}`, late: true });
    // A fresh alert every second: each goes ahead of the backlog, so its first never comes to the head.
    for (let s = 0; s < 8; s++) {
      void outbox.send(10, `fresh ${s}`, { digestLine: `fresh ${s}` });
      await run(clock, 1000);
    }
    const texts = api.sent(10).map((c) => c.text);
    expect(texts.filter((t) => t.startsWith('late'))).toEqual([]);
    // The backlog waited 5 s: it went as one digest, its lines all there.
    const digest = texts.find((t) => t.includes('more'));
    expect(digest).toBeDefined();
    for (let i = 0; i < 4; i++) expect(digest).toContain(`late ${i}`);
  });

  it('a command reply through the gate goes before every queued alert and edit of its chat', async () => {
    const { clock, api, outbox, t0 } = setup();
    void outbox.send(8, 'first');
    await settle();
    void outbox.edit(8, 1, 'edit');
    void outbox.send(8, 'second');
    let grantedAt: number | undefined;
    const reply = outbox.acquire(8, true).then((ticket) => {
      grantedAt = clock.now();
      ticket.done({});
    });
    await run(clock, 1000);
    await reply;
    // The reply takes a token of the burst at once, then the new alert the last one (after its guard)…
    expect(grantedAt).toBe(t0);
    await run(clock, 3000);
    // …and the edit waits until the bucket is full again.
    expect(api.calls.map((c) => c.at - t0)).toEqual([0, G, 3000]);
    expect(order(api, 8)).toEqual(['send first', 'send second', 'edit 1 edit']);
  });

  it('a 429 reported by a reply pauses the outbox’s sends to that chat', async () => {
    const { clock, api, outbox, t0 } = setup();
    const ticket = await outbox.acquire(9, true);
    void outbox.send(9, 'alert');
    ticket.done({ retryAfterMs: 3000 });
    await run(clock, 2999);
    expect(api.calls).toEqual([]);
    await run(clock, 1);
    expect(api.sent(9).map((c) => c.at - t0)).toEqual([3000]);
  });

  it('after a bot-wide 429 (two chats told to wait at once) a reply to any other chat waits too', async () => {
    const { clock, api, outbox, t0 } = setup();
    api.failWhen(times(2, () => true, () => telegramError(429, 'Too Many Requests: retry after 5', 5)));
    void outbox.send(1, 'a');
    void outbox.send(2, 'b');
    await settle();
    expect(outbox.stats.rateLimited).toBe(2);
    let grantedAt: number | undefined;
    void outbox.acquire(3, true).then((ticket) => {
      grantedAt = clock.now();
      ticket.done({});
    });
    let callbackAt: number | undefined;
    void outbox.acquire(undefined, false).then((ticket) => {
      callbackAt = clock.now();
      ticket.done({});
    });
    await run(clock, 4999);
    expect([grantedAt, callbackAt]).toEqual([undefined, undefined]);
    await run(clock, 1);
    expect([grantedAt, callbackAt]).toEqual([t0 + 5000, t0 + 5000]);
  });

  it('follows a group to its supergroup: the message is resent there, later ones go there too, old edits are dropped', async () => {
    const { clock, api, outbox, migrated } = setup();
    api.failWhen(
      times(
        10,
        (c) => c.chatId === -100,
        () => {
          const err = telegramError(400, 'Bad Request: group chat was upgraded to a supergroup chat');
          Object.assign(err.parameters, { migrate_to_chat_id: -1009 });
          return err;
        },
      ),
    );
    const first = outbox.send(-100, 'alert 1');
    const edit = outbox.edit(-100, 3, 'old message');
    await run(clock, 1000);
    expect(await first).toBe(1);
    expect(await edit).toBe(false);
    expect(migrated).toEqual([[-100, -1009]]);
    void outbox.send(-100, 'alert 2');
    await run(clock, 2000);
    expect(api.sent(-1009).map((c) => c.text)).toEqual(['alert 1', 'alert 2']);
    expect(outbox.stats.migrated).toBe(1);
  });

  it('reports a chat that is gone or refuses the bot (a 400 about the chat), and gives the message up', async () => {
    const { clock, api, outbox, unavailable } = setup();
    api.failWhen(times(1, (c) => c.chatId === -200, () => telegramError(400, 'Bad Request: not enough rights to send text messages to the chat')));
    const sent = outbox.send(-200, 'alert');
    await run(clock, 10);
    expect(await sent).toBeUndefined();
    expect(unavailable).toEqual([-200]);
    expect(outbox.stats.gaveUp).toBe(1);
  });
});

describe('insertByPriority', () => {
  it('keeps the queue sorted by priority, then arrival', () => {
    const queue: { priority: number; seq: number }[] = [
      { priority: PRIORITY.send, seq: 1 },
      { priority: PRIORITY.edit, seq: 2 },
    ];
    insertByPriority(queue, { priority: PRIORITY.reply, seq: 5 });
    insertByPriority(queue, { priority: PRIORITY.gone, seq: 4 });
    insertByPriority(queue, { priority: PRIORITY.send, seq: 3 });
    expect(queue.map((j) => j.seq)).toEqual([5, 1, 3, 4, 2]);
  });
});
