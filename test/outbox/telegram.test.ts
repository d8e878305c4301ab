import { describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { LAST_TOKEN_GUARD_MS as G } from '../../src/outbox/chat-bucket.js';
import { Outbox } from '../../src/outbox/outbox.js';
import type { OutboxApi } from '../../src/outbox/api.js';
import type { OutboxOptions } from '../../src/outbox/options.js';
import { startFakeTelegram } from '../../src/fake-telegram/server.js';
import { chatGateTransformer } from '../../src/outbox/chat-gate.js';
import { stopAfterEach } from '../support/teardown.js';
import { settle } from './helpers.js';

const user = { id: 4242, first_name: 'Ivan', language_code: 'ru' };
const GROUP = -1001234567890;

const stopAfter = stopAfterEach();

async function setup(clock?: ManualClock, options: Partial<OutboxOptions> = {}, floodControl = false) {
  const fake = stopAfter(await startFakeTelegram({ ...(clock && { clock }), floodControl }));
  // grammY's own Api satisfies the outbox's port as it is.
  const api: OutboxApi = new Api(fake.token, { apiRoot: fake.apiRoot });
  const outbox = stopAfter(new Outbox({ api, logger: silentLogger, ...(clock && { clock }), ...options }));
  outbox.start();
  return { fake, outbox };
}

/** Moves the manual clock once the outbox is waiting, then waits for the HTTP round trips it starts. */
async function step(clock: ManualClock, ms: number, until: () => void): Promise<void> {
  await settle();
  await clock.advance(ms);
  await vi.waitFor(until, { timeout: 3000, interval: 5 });
  await settle();
}

describe('outbox against the fake Bot API (grammY Api over HTTP)', () => {
  it('paces a private chat and a group, as the fake server recorded them, and gets no 429 from its flood control', async () => {
    const clock = new ManualClock();
    const { fake, outbox } = await setup(clock, {}, true);
    fake.setChat({ id: GROUP, type: 'supergroup', title: 'Arbs', botIsAdmin: true });
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) void outbox.send(user.id, `<b>private ${i}</b>`);
    for (let i = 0; i < 4; i++) void outbox.send(GROUP, `group ${i}`);
    await vi.waitFor(() => expect(outbox.stats.sent).toBe(4));
    // Each chat's last token of the burst goes after its guard (chat-bucket.ts).
    await step(clock, G, () => expect(outbox.stats.sent).toBe(6));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(8));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(9));
    expect(fake.sendTimes(user.id).map((t) => t - t0)).toEqual([0, 0, G, 1000 + G, 2000 + G]);
    expect(fake.sendTimes(GROUP).map((t) => t - t0)).toEqual([0, 0, G, 1000 + G]);
    expect(fake.messages(user.id).map((m) => [m.text, m.parse_mode])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`<b>private ${i}</b>`, 'HTML']),
    );
    expect(fake.flood()).toMatchObject({ tooMany: 0, early: 0 });
    expect(fake.messages(user.id)[0]?.link_preview_options).toEqual({ is_disabled: true });
  });

  it("waits out a real 429's retry_after from the server", async () => {
    const clock = new ManualClock();
    const { fake, outbox } = await setup(clock);
    const t0 = clock.now();
    fake.failNext({ method: 'sendMessage', chatId: user.id, count: 1, code: 429, retryAfter: 2 });
    const id = outbox.send(user.id, 'after the flood wait');
    await vi.waitFor(() => expect(outbox.stats.rateLimited).toBe(1));
    await settle();
    await clock.advance(1999);
    await settle();
    expect(fake.sendTimes(user.id)).toEqual([]);
    await step(clock, 1, () => expect(outbox.stats.sent).toBe(1));
    expect(fake.sendTimes(user.id)).toEqual([t0 + 2000]);
    expect(await id).toBe(1);
    expect(fake.calls('sendMessage').map((c) => c.error_code ?? 'ok')).toEqual([429, 'ok']);
  });

  it('reports a user who blocked the bot and drops their queue', async () => {
    const clock = new ManualClock();
    const blocked: number[] = [];
    const { fake, outbox } = await setup(clock, { onBlocked: (id) => blocked.push(id) });
    fake.chatMember(user, 'kicked');
    const results = [outbox.send(user.id, 'one'), outbox.send(user.id, 'two')];
    expect(await Promise.all(results)).toEqual([undefined, undefined]);
    expect(blocked).toEqual([user.id]);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    expect(outbox.depth).toBe(0);
  });

  it('sends split HTML that the server accepts, and coalesced edits as one', async () => {
    const clock = new ManualClock();
    const { fake, outbox } = await setup(clock);
    const long = Array.from({ length: 150 }, (_, i) => `<b>Arb ${i}</b> <i>Pinnacle</i> 2.10 &amp; 1.95 — ${'·'.repeat(20)}`).join('\n');
    expect(long.length).toBeGreaterThan(8192);
    expect(long.length).toBeLessThan(12_000);
    const id = outbox.send(user.id, long, { buttons: [[{ text: 'Stakes', callbackData: 'st:1' }]] });
    // Three parts: the chat's burst takes them at once (the last after its guard).
    await vi.waitFor(() => expect(outbox.stats.sent).toBe(2));
    await step(clock, G, () => expect(outbox.stats.sent).toBe(3));
    const parts = fake.messages(user.id);
    expect(parts).toHaveLength(3);
    expect(parts.map((p) => p.reply_markup !== undefined)).toEqual([false, false, true]);
    const last = await id;
    expect(last).toBe(parts[2]?.message_id);

    const edits = [1, 2, 3].map((v) => outbox.edit(user.id, last ?? 0, `<b>moved</b> v${v}`, { buttons: [[{ text: 'Stakes', callbackData: 'st:1' }]] }));
    // An edit waits for a full bucket: three seconds after the burst.
    await step(clock, 2999 - G, () => expect(outbox.stats.edited).toBe(0));
    await step(clock, 1, () => expect(outbox.stats.edited).toBe(1));
    expect(await Promise.all(edits)).toEqual([true, true, true]);
    const edited = fake.messages(user.id)[2];
    expect(edited?.text).toBe('<b>moved</b> v3');
    expect(edited?.history).toHaveLength(1);
    expect(edited?.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Stakes', callback_data: 'st:1' }]] });
  });

  it('sends, edits and replies to busy chats without a 429 from the stand-in’s flood control; a new alert never waits for an edit', async () => {
    const clock = new ManualClock();
    const { fake, outbox } = await setup(clock, {}, true);
    fake.setChat({ id: GROUP, type: 'supergroup', title: 'Arbs', botIsAdmin: true });
    const replies = new Api(fake.token, { apiRoot: fake.apiRoot });
    replies.config.use(chatGateTransformer(outbox));
    const chats = [user.id, GROUP];
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const waits: number[] = [];
    const answers: Promise<unknown>[] = [];
    const messages = new Map<number, number[]>(chats.map((c) => [c, []]));
    for (let tick = 0; tick < 240; tick++) {
      for (const chat of chats) {
        const r = random();
        const known = messages.get(chat) ?? [];
        if (r < 0.03) {
          const queuedAt = clock.now();
          void outbox.send(chat, `new ${tick}`, { digestLine: `new ${tick}` }).then((id) => {
            if (id === undefined) return;
            known.push(id);
            // A group's 20 a minute may hold a new alert back; the private chat has only its bucket.
            const arrived = fake.messages(chat).find((m) => m.message_id === id)?.at;
            if (chat === user.id && arrived !== undefined) waits.push(arrived - queuedAt);
          });
        } else if (r < 0.5) {
          if (known.length > 0) void outbox.edit(chat, known[Math.floor(random() * known.length)] ?? 1, `moved ${tick}`, { gone: random() < 0.2 });
        }
        if (tick % 40 === 20) answers.push(replies.sendMessage(chat, `reply ${tick}`));
      }
      await settle();
      await clock.advance(250);
      // Let the HTTP round trips this step started finish (the manual clock stands still meanwhile).
      await new Promise((resolve) => setTimeout(resolve, 3));
      await settle();
    }
    for (let i = 0; i < 90 && outbox.depth > 0; i++) await step(clock, 1000, () => undefined);
    expect(await Promise.all(answers)).toHaveLength(answers.length);
    expect(answers).toHaveLength(12);
    expect(fake.calls('editMessageText').length).toBeGreaterThan(15);
    expect(fake.flood()).toMatchObject({ tooMany: 0, early: 0 });
    expect(outbox.stats.rateLimited).toBe(0);
    // A new alert or a reply comes every several seconds per chat, edits twice a second: the burst
    // takes each new alert at once, whatever edits wait (at most the guard on a chat's last token).
    expect(waits.length).toBeGreaterThan(3);
    expect(Math.max(...waits)).toBeLessThanOrEqual(G);
  });

  it('keeps the global pace on the real clock too', async () => {
    const { fake, outbox } = await setup(undefined, { globalPerSecond: 10 });
    const started = Date.now();
    const ids = await Promise.all(Array.from({ length: 15 }, (_, i) => outbox.send(1000 + i, `hi ${i}`)));
    expect(ids.every((id) => id === 1)).toBe(true);
    // Arrival times at the server lag the outbox's decisions by a jittery round trip, so check
    // what cannot jitter: the 11th message left no earlier than a second after the first could.
    const arrived = fake.sendTimes().sort((a, b) => a - b);
    expect(arrived).toHaveLength(15);
    expect((arrived[10] ?? 0) - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
