import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { FloodControl } from '../../src/fake-telegram/flood.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';

describe('flood control', () => {
  it('lets a chat take a burst of 3, then about one a second, answering retry_after beyond it', () => {
    const f = new FloodControl();
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect(f.check('sendMessage', 7, t0)).toBeUndefined();
    expect(f.check('editMessageText', 7, t0)).toBe(1);
    // Another chat has its own budget.
    expect(f.check('sendMessage', 8, t0)).toBeUndefined();
    expect(f.check('sendMessage', 7, t0 + 1_000)).toBeUndefined();
    expect(f.check('sendMessage', 7, t0 + 1_500)).toBe(1);
    expect(f.snapshot()).toMatchObject({ tooMany: 2, tooManyByMethod: { editMessageText: 1, sendMessage: 1 }, early: 0 });
  });

  it('counts and refuses any request to a chat before its retry_after is over, chat actions included', () => {
    const f = new FloodControl();
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) f.check('sendMessage', 7, t0);
    expect(f.check('sendMessage', 7, t0)).toBe(1);
    expect(f.check('sendChatAction', 7, t0 + 300)).toBe(1);
    expect(f.check('deleteMessage', 7, t0 + 999)).toBe(1);
    const s = f.snapshot();
    expect(s.early).toBe(2);
    expect(s.earlyLog).toEqual([
      { method: 'sendChatAction', chatId: 7, at: t0 + 300, earlyByMs: 700 },
      { method: 'deleteMessage', chatId: 7, at: t0 + 999, earlyByMs: 1 },
    ]);
    // Once the wait is over the chat is served again; chat actions never count against the limit.
    expect(f.check('sendMessage', 7, t0 + 1_000)).toBeUndefined();
    expect(f.check('sendChatAction', 7, t0 + 1_001)).toBeUndefined();
    expect(f.snapshot().early).toBe(2);
  });

  it('holds the whole bot to 30 messages a second, and a group to 20 a minute', () => {
    const f = new FloodControl();
    const t0 = 1_000_000;
    for (let chat = 1; chat <= 30; chat++) expect(f.check('sendMessage', chat, t0)).toBeUndefined();
    expect(f.check('sendMessage', 31, t0 + 10)).toBe(1);
    // A global 429 makes every chat wait.
    expect(f.check('sendMessage', 32, t0 + 500)).toBe(1);
    expect(f.snapshot().early).toBe(1);

    const g = new FloodControl();
    for (let i = 0; i < 20; i++) expect(g.check('sendMessage', -100, t0 + i * 1_000)).toBeUndefined();
    expect(g.check('sendMessage', -100, t0 + 20_000)).toBe(40);
  });
});

describe('fake Bot API with flood control', () => {
  let fake: FakeTelegram | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const send = async (f: FakeTelegram, chatId: number) => {
    const res = await fetch(`${f.apiRoot}/bot${f.token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chatId, text: 'hi' }),
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; parameters?: { retry_after: number } } };
  };

  it('answers 429 with retry_after over HTTP and reports what it saw', async () => {
    const clock = new ManualClock();
    fake = await startFakeTelegram({ floodControl: true, clock });
    for (let i = 0; i < 3; i++) expect((await send(fake, 5)).status).toBe(200);
    const refused = await send(fake, 5);
    expect(refused.status).toBe(429);
    expect(refused.body.parameters?.retry_after).toBe(1);
    expect((await send(fake, 5)).status).toBe(429);
    expect(fake.flood()).toMatchObject({ counted: 4, tooMany: 2, early: 1 });
    expect(fake.messages(5)).toHaveLength(3);
    await clock.advance(1_000);
    expect((await send(fake, 5)).status).toBe(200);
  });

  it('enforces nothing unless asked', async () => {
    fake = await startFakeTelegram();
    for (let i = 0; i < 10; i++) expect((await send(fake, 5)).status).toBe(200);
    expect(fake.flood()).toBeUndefined();
  });
});
