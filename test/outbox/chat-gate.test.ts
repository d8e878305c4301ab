import { describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { chatGateTransformer, chatOf, isCounted } from '../../src/outbox/chat-gate.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { stopAfterEach } from '../support/teardown.js';
import { settle } from './helpers.js';

const USER = 4242;
const stopAfter = stopAfterEach();

/** The outbox on its own Api, and a second Api for replies with the gate installed (as the bot's). */
async function setup() {
  const clock = new ManualClock();
  const fake = stopAfter(await startFakeTelegram({ clock }));
  const outbox = stopAfter(new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: silentLogger, clock }));
  outbox.start();
  const replies = new Api(fake.token, { apiRoot: fake.apiRoot });
  replies.config.use(chatGateTransformer(outbox));
  return { clock, fake, outbox, replies, t0: clock.now() };
}

async function step(clock: ManualClock, ms: number): Promise<void> {
  await settle();
  await clock.advance(ms);
  await settle();
}

/** Calls to `chatId` that Telegram received before `until` after the 429 it answered at `at`. */
function early(f: FakeTelegram, chatId: number): number {
  const calls = f.calls().filter((c) => Number(c.payload.chat_id) === chatId);
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const c of calls) {
    if (c.at < pausedUntil) count += 1;
    if (c.error_code === 429) pausedUntil = c.at + 2000;
  }
  return count;
}

describe('command replies share the outbox’s per-chat budget (chat gate)', () => {
  it('a reply during a 429 pause waits it out and then succeeds, ahead of the queued alert', async () => {
    const { clock, fake, outbox, replies, t0 } = await setup();
    fake.failNext({ method: 'sendMessage', chatId: USER, count: 1, code: 429, retryAfter: 2 });
    void outbox.send(USER, 'alert');
    await vi.waitFor(() => expect(outbox.stats.rateLimited).toBe(1));
    let answered = false;
    const reply = replies.sendMessage(USER, 'your answer').then((m) => {
      answered = true;
      return m;
    });
    await step(clock, 1999);
    expect(answered).toBe(false);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    await step(clock, 1);
    const message = await reply;
    expect(message.text).toBe('your answer');
    // The alert follows at once: the chat's bucket still holds a token of its burst.
    await vi.waitFor(() => expect(fake!.messages(USER)).toHaveLength(2));
    expect(fake.messages(USER).map((m) => [m.text, m.at - t0])).toEqual([
      ['your answer', 2000],
      ['alert', 2000],
    ]);
    expect(early(fake, USER)).toBe(0);
  });

  it('a reply that meets a 429 itself never fails: it waits retry_after, and the outbox sends nothing to the chat meanwhile', async () => {
    const { clock, fake, outbox, replies, t0 } = await setup();
    void outbox.send(USER, 'alert 1');
    await vi.waitFor(() => expect(outbox.stats.sent).toBe(1));
    fake.failNext({ method: 'sendMessage', chatId: USER, count: 1, code: 429, retryAfter: 2 });
    await step(clock, 1000);
    const reply = replies.sendMessage(USER, 'reply');
    void outbox.edit(USER, 1, 'alert 1 moved');
    await vi.waitFor(() => expect(outbox!.stats.rateLimited).toBe(1));
    await step(clock, 1999);
    expect(fake.calls().filter((c) => c.at > t0 + 1000 && Number(c.payload.chat_id) === USER)).toEqual([]);
    await step(clock, 1);
    expect((await reply).text).toBe('reply');
    await step(clock, 1000);
    await vi.waitFor(() => expect(outbox!.stats.edited).toBe(1));
    expect(early(fake, USER)).toBe(0);
    const times = fake.calls().filter((c) => Number(c.payload.chat_id) === USER).map((c) => [c.method, c.error_code ?? 'ok', c.at - t0]);
    expect(times).toEqual([
      ['sendMessage', 'ok', 0],
      ['sendMessage', 429, 1000],
      ['sendMessage', 'ok', 3000],
      ['editMessageText', 'ok', 4000],
    ]);
  });

  it('reads the chat and the kind of call from a request', () => {
    expect(chatOf({ chat_id: -100123 })).toBe(-100123);
    expect(chatOf({ chat_id: '@channel' })).toBeUndefined();
    expect(chatOf(undefined)).toBeUndefined();
    expect(isCounted('sendMessage')).toBe(true);
    expect(isCounted('editMessageReplyMarkup')).toBe(true);
    expect(isCounted('sendChatAction')).toBe(false);
    expect(isCounted('deleteMessage')).toBe(false);
  });
});
