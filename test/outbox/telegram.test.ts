import { describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import type { OutboxApi } from '../../src/outbox/api.js';
import type { OutboxOptions } from '../../src/outbox/options.js';
import { startFakeTelegram } from '../../src/fake-telegram/server.js';
import { stopAfterEach } from '../support/teardown.js';
import { settle } from './helpers.js';

const user = { id: 4242, first_name: 'Ivan', language_code: 'ru' };
const GROUP = -1001234567890;

const stopAfter = stopAfterEach();

async function setup(clock?: ManualClock, options: Partial<OutboxOptions> = {}) {
  const fake = stopAfter(await startFakeTelegram(clock ? { clock } : {}));
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
  it('paces a private chat and a group, as the fake server recorded them', async () => {
    const clock = new ManualClock();
    const { fake, outbox } = await setup(clock);
    fake.setChat({ id: GROUP, type: 'supergroup', title: 'Arbs', botIsAdmin: true });
    const t0 = clock.now();
    for (let i = 0; i < 3; i++) void outbox.send(user.id, `<b>private ${i}</b>`);
    for (let i = 0; i < 2; i++) void outbox.send(GROUP, `group ${i}`);
    await vi.waitFor(() => expect(outbox.stats.sent).toBe(2));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(4));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(5));
    expect(fake.sendTimes(user.id).map((t) => t - t0)).toEqual([0, 1000, 2000]);
    expect(fake.sendTimes(GROUP).map((t) => t - t0)).toEqual([0, 1000]);
    expect(fake.messages(user.id).map((m) => [m.text, m.parse_mode])).toEqual([
      ['<b>private 0</b>', 'HTML'],
      ['<b>private 1</b>', 'HTML'],
      ['<b>private 2</b>', 'HTML'],
    ]);
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
    await vi.waitFor(() => expect(outbox.stats.sent).toBe(1));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(2));
    await step(clock, 1000, () => expect(outbox.stats.sent).toBe(3));
    const parts = fake.messages(user.id);
    expect(parts).toHaveLength(3);
    expect(parts.map((p) => p.reply_markup !== undefined)).toEqual([false, false, true]);
    const last = await id;
    expect(last).toBe(parts[2]?.message_id);

    const edits = [1, 2, 3].map((v) => outbox.edit(user.id, last ?? 0, `<b>moved</b> v${v}`, { buttons: [[{ text: 'Stakes', callbackData: 'st:1' }]] }));
    await step(clock, 1000, () => expect(outbox.stats.edited).toBe(1));
    expect(await Promise.all(edits)).toEqual([true, true, true]);
    const edited = fake.messages(user.id)[2];
    expect(edited?.text).toBe('<b>moved</b> v3');
    expect(edited?.history).toHaveLength(1);
    expect(edited?.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Stakes', callback_data: 'st:1' }]] });
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
