import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { LAST_TOKEN_GUARD_MS as G } from '../../src/outbox/chat-bucket.js';
import type { OutboxJobInfo } from '../../src/outbox/jobs.js';
import type { OutboxOptions } from '../../src/outbox/options.js';
import type { HeldAliveCheck, HeldItem } from '../../src/outbox/port.js';
import { latestReadCheck } from '../../src/outbox/quiet-summary.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { checkTelegramHtml } from '../../src/fake-telegram/html.js';
import {
  bucketRefusals,
  maxInWindow,
  run,
  memoryLogger,
  networkError,
  ScriptedApi,
  settle,
  telegramError,
  times,
} from './helpers.js';
import { stopAfterEach } from '../support/teardown.js';

const TOKEN = '123456:TEST-TOKEN-abcdefghijklmnopqrstu';
const stopAfter = stopAfterEach();

function setup(options: Partial<OutboxOptions> = {}) {
  const clock = new ManualClock();
  const api = new ScriptedApi(clock);
  const outbox = new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, ...options });
  stopAfter(outbox);
  outbox.start();
  return { clock, api, outbox, t0: clock.now() };
}

const gaps = (ts: number[]) => ts.slice(1).map((t, i) => t - (ts[i] ?? 0));

describe('outbox pacing', () => {
  it('gives a private chat a burst of three, then one message a second, while other chats go in parallel', async () => {
    const { clock, api, outbox, t0 } = setup();
    const ids = [1, 2, 3, 4, 5].flatMap((n) => [outbox.send(101, `a${n}`), outbox.send(102, `b${n}`)]);
    await settle();
    // The third waits for the guard on the last token (chat-bucket.ts).
    expect(api.sent().map((c) => c.text).sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
    await run(clock, G);
    expect(api.sent().map((c) => c.text).sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    await run(clock, 999);
    expect(api.sent()).toHaveLength(6);
    await run(clock, 5000);
    expect(api.sent(101).map((c) => c.at - t0)).toEqual([0, 0, G, 1000 + G, 2000 + G]);
    expect(api.sent(102).map((c) => c.at - t0)).toEqual([0, 0, G, 1000 + G, 2000 + G]);
    for (const chat of [101, 102]) expect(bucketRefusals(api.sent(chat).map((c) => c.at), 3, 1000)).toBe(0);
    expect(await Promise.all(ids)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    // Quiet for three seconds, the chat has its whole burst again.
    await run(clock, 3000);
    const later = [outbox.send(101, 'c1'), outbox.send(101, 'c2'), outbox.send(101, 'c3'), outbox.send(101, 'c4')];
    await run(clock, 1000 + G);
    expect(api.sent(101).slice(5).map((c) => c.at - t0)).toEqual([8999 + G, 8999 + G, 8999 + 2 * G, 9999 + 2 * G]);
    expect(await Promise.all(later)).toEqual([6, 7, 8, 9]);
    expect(outbox.depth).toBe(0);
    expect(outbox.stats.sent).toBe(14);
  });

  it('never gives a chat more than its bucket allows, and never spends the burst on an edit or a gone mark', async () => {
    const { clock, api, outbox } = setup();
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const chats = [201, 202, -203];
    for (let tick = 0; tick < 600; tick++) {
      for (const chat of chats) {
        const r = random();
        if (r < 0.05) void outbox.send(chat, `new ${tick}`, { digestLine: `new ${tick}` });
        else if (r < 0.25) void outbox.edit(chat, 1 + Math.floor(random() * 4), `moved ${tick}`, { gone: random() < 0.2 });
        else if (r < 0.27) {
          void outbox.acquire(chat, true).then(async (ticket) => {
            await api.sendMessage(chat, `reply ${tick}`);
            ticket.done({});
          });
        }
      }
      await run(clock, 100);
    }
    await run(clock, 60_000);
    for (const chat of chats) {
      const calls = api.calls.filter((c) => c.chatId === chat);
      expect(calls.length).toBeGreaterThan(20);
      expect(bucketRefusals(calls.map((c) => c.at), 3, 1000)).toBe(0);
      // The bucket replayed call by call (empty again at `emptyAt`): an edit finds it full.
      let emptyAt = Number.NEGATIVE_INFINITY;
      let edits = 0;
      for (const c of calls) {
        if (c.method === 'editMessageText') {
          edits += 1;
          expect(emptyAt).toBeLessThanOrEqual(c.at);
        }
        emptyAt = Math.max(emptyAt, c.at) + 1000;
      }
      expect(edits).toBeGreaterThan(5);
    }
    expect(outbox.stats.replies).toBeGreaterThan(0);
  });

  it('holds a group to 20 messages a minute (and to its bucket of three, one a second)', async () => {
    const { clock, api, outbox, t0 } = setup();
    for (let i = 0; i < 25; i++) void outbox.send(-100123, `g${i}`);
    await run(clock, 130_000);
    const at = api.sent(-100123).map((c) => c.at);
    expect(at).toHaveLength(25);
    expect(maxInWindow(at, 60_000)).toBe(20);
    expect(bucketRefusals(at, 3, 1000)).toBe(0);
    expect(at.slice(0, 5).map((t) => t - t0)).toEqual([0, 0, G, 1000 + G, 2000 + G]);
    // The minute is full after the 20th; the bucket refilled meanwhile, so a burst follows.
    expect(at.slice(20).map((t) => t - t0)).toEqual([60_000, 60_000, 60_000 + G, 61_000 + G, 62_000 + G]);
  });

  it('sends at most 25 messages a second over all chats', async () => {
    const { clock, api, outbox, t0 } = setup();
    for (let chat = 1; chat <= 80; chat++) void outbox.send(chat, `hello ${chat}`);
    await settle();
    expect(api.sent()).toHaveLength(25);
    await run(clock, 4000);
    const at = api.sent().map((c) => c.at);
    expect(at).toHaveLength(80);
    expect(maxInWindow(at, 1000)).toBe(25);
    // Oldest first: chats get their turn in the order their messages were queued.
    expect(api.sent().map((c) => c.chatId)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(at.at(-1)).toBe(t0 + 3000);
  });

  it('leaves the last ten of the bot’s second to new messages: twenty edits never hold back ten new alerts', async () => {
    const { clock, api, outbox, t0 } = setup();
    for (let chat = 1; chat <= 20; chat++) void outbox.edit(chat, 1, `moved ${chat}`);
    await settle();
    expect(api.calls.filter((c) => c.method === 'editMessageText')).toHaveLength(15);
    await run(clock, 100);
    for (let chat = 101; chat <= 110; chat++) void outbox.send(chat, `new ${chat}`);
    await settle();
    // The ten new alerts go at once, beside the fifteen edits of the last second.
    expect(api.sent().map((c) => c.at - t0)).toEqual(Array.from({ length: 10 }, () => 100));
    await run(clock, 1000);
    // The other five edits once the edits' share of the second has room again.
    const edits = api.calls.filter((c) => c.method === 'editMessageText').map((c) => c.at - t0);
    expect(edits).toEqual([...Array.from({ length: 15 }, () => 0), ...Array.from({ length: 5 }, () => 1000)]);
    expect(maxInWindow(api.calls.map((c) => c.at), 1000)).toBeLessThanOrEqual(25);
  });

  it('under a flood of new messages at the bot-wide pace, edits and gone marks still get five of each second', async () => {
    const { clock, api, outbox, t0 } = setup();
    // 30 edits and gone marks of alerts already sent wait while 200 chats each get a new alert.
    for (let chat = 16; chat <= 30; chat++) void outbox.edit(chat, 1, `moved ${chat}`);
    for (let chat = 1; chat <= 15; chat++) void outbox.edit(chat, 1, `⛔ gone ${chat}`, { gone: true });
    for (let chat = 101; chat <= 300; chat++) void outbox.send(chat, `new ${chat}`);
    await run(clock, 2_999);
    const inSecond = (method: string, s: number) => api.calls.filter((c) => c.method === method && c.at - t0 >= s * 1000 && c.at - t0 < (s + 1) * 1000).length;
    for (const s of [0, 1, 2]) {
      expect(inSecond('editMessageText', s)).toBe(5);
      expect(inSecond('sendMessage', s)).toBe(20);
    }
    // Gone marks first among the edits; the window of 25 a second is kept throughout.
    expect(api.calls.filter((c) => c.method === 'editMessageText').slice(0, 15).every((c) => c.text.startsWith('⛔'))).toBe(true);
    expect(maxInWindow(api.calls.map((c) => c.at), 1000)).toBeLessThanOrEqual(25);
  });

  it('drops a message whose expiresAt passed while it waited, without a call or a place in any window', async () => {
    const { clock, api, outbox, t0 } = setup();
    // Chat 7 is told to wait 40 s; its re-alert may wait 30 s, its alert has no limit.
    api.failWhen(times(1, (c) => c.chatId === 7, () => telegramError(429, 'Too Many Requests: retry after 40', 40)));
    const first = outbox.send(7, 'alert');
    await settle();
    const stale = outbox.send(7, '▲ now +4%', { replyTo: 1, expiresAt: t0 + 30_000 });
    const fresh = outbox.send(7, '▲ now +5%', { replyTo: 1, expiresAt: t0 + 60_000 });
    await run(clock, 40_000);
    expect(await first).toBe(1);
    expect(await stale).toBeUndefined();
    expect(await fresh).toBe(2);
    expect(api.sent(7).map((c) => [c.text, c.at - t0])).toEqual([
      ['alert', 40_000],
      ['▲ now +5%', 40_000],
    ]);
    expect(outbox.stats).toMatchObject({ dropped: 1, sent: 2 });
    expect(outbox.depth).toBe(0);
  });

  it('forgets the pacing state of chats that went quiet', async () => {
    const { clock, outbox } = setup();
    for (let chat = 1; chat <= 30; chat++) void outbox.send(chat, 'x');
    await run(clock, 2000);
    expect(outbox.trackedChats).toBe(30);
    await run(clock, 75_000);
    expect(outbox.trackedChats).toBe(0);
  });
});

describe('outbox failures', () => {
  it("honours a 429's retry_after for that chat only", async () => {
    const { clock, api, outbox, t0 } = setup();
    api.failWhen(times(1, (c) => c.chatId === 7, () => telegramError(429, 'Too Many Requests: retry after 3', 3)));
    const limited = outbox.send(7, 'first');
    const other = [outbox.send(8, 'x1'), outbox.send(8, 'x2')];
    await run(clock, 2999);
    expect(api.sent(7)).toHaveLength(0);
    expect(api.sent(8).map((c) => c.at - t0)).toEqual([0, 0]);
    await run(clock, 1);
    expect(api.sent(7).map((c) => c.at - t0)).toEqual([3000]);
    expect(await limited).toBe(1);
    expect(await Promise.all(other)).toEqual([1, 2]);
    expect(outbox.stats).toMatchObject({ rateLimited: 1, retried: 1, sent: 3, gaveUp: 0 });
  });

  it('pauses everything when two chats are told to wait at once (the bot-wide limit)', async () => {
    const { clock, api, outbox, t0 } = setup();
    api.failWhen(times(2, (c) => c.chatId === 1 || c.chatId === 2, () => telegramError(429, 'Too Many Requests: retry after 5', 5)));
    const jobs = [outbox.send(1, 'a'), outbox.send(2, 'b')];
    await settle();
    const third = outbox.send(3, 'c');
    await run(clock, 4999);
    expect(api.sent()).toHaveLength(0);
    await run(clock, 1);
    expect(api.sent().map((c) => [c.chatId, c.at - t0])).toEqual([
      [1, 5000],
      [2, 5000],
      [3, 5000],
    ]);
    expect(await Promise.all([...jobs, third])).toEqual([1, 1, 1]);
  });

  it('drops the queue of a chat that blocked the bot and reports it once', async () => {
    const blocked: number[] = [];
    const { clock, api, outbox } = setup({ onBlocked: (id) => blocked.push(id) });
    api.failWhen((c) => (c.chatId === 5 ? telegramError(403, 'Forbidden: bot was blocked by the user') : undefined));
    const doomed = [outbox.send(5, 'one'), outbox.send(5, 'two'), outbox.send(5, 'three', { digestLine: 'x', holdUntil: clock.now() + 60_000 })];
    const fine = outbox.send(6, 'still delivered');
    await run(clock, 5000);
    expect(await Promise.all(doomed)).toEqual([undefined, undefined, undefined]);
    expect(await fine).toBe(1);
    expect(blocked).toEqual([5]);
    expect(api.calls.filter((c) => c.chatId === 5)).toHaveLength(1);
    expect(outbox.depth).toBe(0);
    expect(outbox.stats).toMatchObject({ blocked: 1, dropped: 3, sent: 1 });
  });

  it('retries 5xx with growing backoff, then gives up: logged without the token, counted, reported', async () => {
    const { logger, lines } = memoryLogger();
    const lost: OutboxJobInfo[] = [];
    const { clock, api, outbox, t0 } = setup({ logger, maxAttempts: 4, onGiveUp: (job) => lost.push(job) });
    api.failWhen((c) => (c.chatId === 9 ? (c.at - t0 < 2000 ? networkError(TOKEN) : telegramError(502, 'Bad Gateway')) : undefined));
    const result = outbox.send(9, 'Arb 2.5% <b>Team A</b>');
    await run(clock, 60_000);
    expect(await result).toBeUndefined();
    // 1 s, 2 s, 4 s between attempts (the jitter is fixed at its middle here).
    expect(gaps(api.calls.map((c) => c.at))).toEqual([1000, 2000, 4000]);
    expect(outbox.stats).toMatchObject({ gaveUp: 1, retried: 3, sent: 0 });
    expect(lost).toEqual([expect.objectContaining({ chatId: 9, type: 'send', kind: 'info', attempts: 4, reason: 'Bad Gateway' })]);
    const log = lines().join('\n');
    expect(log).toContain('outbox: gave up on a message');
    expect(log).toContain('ECONNREFUSED');
    expect(log).not.toContain(TOKEN);
  });

  it('recovers after network failures without losing the message', async () => {
    const { clock, api, outbox } = setup();
    api.failWhen(times(2, () => true, () => networkError(TOKEN)));
    const id = outbox.send(3, 'hello');
    await run(clock, 10_000);
    expect(await id).toBe(1);
    expect(api.calls.map((c) => c.ok)).toEqual([false, false, true]);
    expect(outbox.stats).toMatchObject({ retried: 2, sent: 1, gaveUp: 0 });
  });

  it('gives up at once on a permanent refusal, and treats "not modified" as done and a vanished message as dropped', async () => {
    const { logger, lines } = memoryLogger();
    const { clock, api, outbox } = setup({ logger });
    api.failWhen((c) => (c.text === 'bad' ? telegramError(400, "Bad Request: can't parse entities: Unsupported start tag") : undefined));
    api.failWhen((c) => (c.messageId === 1 ? telegramError(400, 'Bad Request: message is not modified: specified new message content') : undefined));
    api.failWhen((c) => (c.messageId === 2 ? telegramError(400, 'Bad Request: message to edit not found') : undefined));
    const bad = outbox.send(4, 'bad');
    const same = outbox.edit(4, 1, 'same text');
    const gone = outbox.edit(4, 2, 'new text');
    await run(clock, 5000);
    expect(await bad).toBeUndefined();
    expect(await same).toBe(true);
    expect(await gone).toBe(false);
    expect(api.calls).toHaveLength(3);
    expect(outbox.stats).toMatchObject({ gaveUp: 1, edited: 1, dropped: 1, retried: 0 });
    const warnings = lines().filter((l) => l.includes('"level":40'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("can't parse entities");
  });
});

describe('outbox folding, splitting and quiet hours', () => {
  it('folds a burst to one chat into the first alert and one "+N more" digest', async () => {
    const { clock, api, outbox } = setup({ digestThreshold: 5 });
    const results = Array.from({ length: 8 }, (_, i) =>
      outbox.send(11, `<b>Alert ${i}</b>\nfull details ${i}`, { kind: 'alert', digestLine: `• alert ${i} <i>2.1%</i>`, buttons: [[{ text: 'Stakes', callbackData: `s:${i}` }]] }),
    );
    const info = outbox.send(11, 'an info message is never folded');
    await run(clock, 5000);
    expect(api.sent(11).map((c) => c.text)).toEqual([
      '<b>Alert 0</b>\nfull details 0',
      ['<b>+7 more:</b>', ...Array.from({ length: 7 }, (_, i) => `• alert ${i + 1} <i>2.1%</i>`)].join('\n'),
      'an info message is never folded',
    ]);
    expect(api.sent(11)[1]?.other?.reply_markup).toBeUndefined();
    expect(await Promise.all(results)).toEqual([1, undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(await info).toBe(3);
    expect(outbox.stats.folded).toBe(7);
    for (const c of api.sent()) expect(checkTelegramHtml(c.text).ok).toBe(true);
  });

  it('does not fold up to the threshold, and writes the digest in the chat language', async () => {
    const { clock, api, outbox } = setup({ digestThreshold: 3, langFor: () => 'ru' });
    for (let i = 0; i < 3; i++) void outbox.send(12, `a${i}`, { digestLine: `l${i}` });
    for (let i = 0; i < 5; i++) void outbox.send(13, `b${i}`, { digestLine: `m${i}` });
    await run(clock, 5000);
    expect(api.sent(12).map((c) => c.text)).toEqual(['a0', 'a1', 'a2']);
    expect(api.sent(13).map((c) => c.text)).toEqual(['b0', '<b>+4 ещё:</b>\nm1\nm2\nm3\nm4']);
  });

  it('when it has fallen behind, folds what waits behind an old alert even below the threshold', async () => {
    const { clock, api, outbox } = setup({ digestThreshold: 5, behindMs: 30_000 });
    // Telegram makes this chat wait a minute: the alerts queued meanwhile are stale by then.
    api.failWhen(times(1, (c) => c.chatId === 21, () => telegramError(429, 'Too Many Requests: retry after 60', 60)));
    const results = [0, 1, 2].map((i) => outbox.send(21, `alert ${i}`, { digestLine: `line ${i}` }));
    // Another chat, not behind, keeps its alerts whole.
    void outbox.send(22, 'b0', { digestLine: 'm0' });
    void outbox.send(22, 'b1', { digestLine: 'm1' });
    await run(clock, 70_000);
    expect(api.sent(21).map((c) => c.text)).toEqual(['alert 0', '<b>+2 more:</b>\nline 1\nline 2']);
    expect(await Promise.all(results)).toEqual([1, undefined, undefined]);
    expect(api.sent(22).map((c) => c.text)).toEqual(['b0', 'b1']);
  });

  it('keeps a flood to one chat as one alert and one digest while it waits, and starts afresh once the digest is sent', async () => {
    const { clock, api, outbox } = setup({ digestThreshold: 5, digestMaxLines: 3 });
    // Telegram makes the chat wait, so everything below piles up behind its first alert.
    api.failWhen(times(1, (c) => c.chatId === 31, () => telegramError(429, 'Too Many Requests: retry after 20', 20)));
    const first = outbox.send(31, 'alert 0', { digestLine: 'line 0' });
    await settle();
    const flood = Array.from({ length: 500 }, (_, i) => outbox.send(31, `alert ${i + 1} ${'x'.repeat(2000)}`, { digestLine: `line ${i + 1}` }));
    // The queue holds what will be sent, not 500 full messages: the first alert and one digest.
    expect(outbox.depth).toBe(2);
    await run(clock, 25_000);
    expect(api.sent(31).map((c) => c.text)).toEqual(['alert 0', '<b>+500 more:</b>\nline 1\nline 2\nline 3\n… and 497 more']);
    expect(await first).toBe(1);
    expect(new Set(await Promise.all(flood))).toEqual(new Set([undefined]));
    expect(outbox.stats.folded).toBe(500);

    // The digest went out: the next alert is a whole message again.
    const next = outbox.send(31, 'alert 501', { digestLine: 'line 501' });
    await run(clock, 2_000);
    expect(api.sent(31).at(-1)?.text).toBe('alert 501');
    expect(await next).toBe(3);
  });

  it('splits text over 4096 characters between lines, buttons on the last part', async () => {
    const { clock, api, outbox } = setup();
    const lines = Array.from({ length: 300 }, (_, i) => `<b>line ${String(i).padStart(3, '0')}</b> ${'x'.repeat(20)}`);
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(8192);
    const id = outbox.send(14, text, { buttons: [[{ text: 'More', callbackData: 'more' }]] });
    await run(clock, 5000);
    const parts = api.sent(14);
    expect(parts).toHaveLength(3);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(4096);
      expect(checkTelegramHtml(part.text).ok).toBe(true);
    }
    expect(parts.map((p) => p.text).join('\n')).toBe(text);
    expect(parts.map((p) => p.other?.reply_markup !== undefined)).toEqual([false, false, true]);
    // The parts use the chat's burst: they go one after the other at once (the last token after its guard).
    expect(gaps(parts.map((p) => p.at))).toEqual([0, G]);
    expect(await id).toBe(3);
    expect(outbox.stats.sent).toBe(3);
  });

  it('holds alerts during quiet hours and sends one summary when they end', async () => {
    const { clock, api, outbox, t0 } = setup();
    const until = t0 + 10 * 60_000;
    const held = [1, 2, 3].map((n) => outbox.send(15, `alert ${n}`, { digestLine: `• alert ${n}`, holdUntil: until, lang: 'en' }));
    const notice = outbox.send(15, 'your key stopped working', { kind: 'info', holdUntil: until });
    expect(await Promise.all(held)).toEqual([undefined, undefined, undefined]);
    expect(outbox.depth).toBe(4);
    const now = outbox.send(16, 'not in quiet hours');
    await run(clock, 10 * 60_000 - 1);
    expect(api.sent(15)).toHaveLength(0);
    expect(await now).toBe(1);
    await run(clock, 5000);
    expect(api.sent(15).map((c) => [c.text, c.at - t0])).toEqual([
      ['🌙 <b>While quiet hours were on: 3 alerts</b>\n1. • alert 1\n2. • alert 2\n3. • alert 3', 10 * 60_000],
      ['your key stopped working', 10 * 60_000],
    ]);
    expect(await notice).toBe(2);
    expect(outbox.stats.held).toBe(4);
    expect(outbox.depth).toBe(0);
  });

  it('caps a long summary and uses Russian plurals', async () => {
    const { clock, api, outbox, t0 } = setup({ digestMaxLines: 2 });
    for (let n = 0; n < 5; n++) void outbox.send(17, `a${n}`, { digestLine: `l${n}`, holdUntil: t0 + 1000, lang: 'ru' });
    await run(clock, 2000);
    expect(api.sent(17).map((c) => c.text)).toEqual(['🌙 <b>За время тихих часов: 5 оповещений</b>\n1. l0\n2. l1\n… и ещё 3']);
  });
});

describe('the quiet-hours summary (#12)', () => {
  const item = (n: number): HeldItem => ({ id: `item-${n}`, userId: 7, service: 'arbs_live', openData: `a:op:1:item-${n}` });

  it('gives each held alert its id, a still-there mark asked when the summary goes, and a button for those still there', async () => {
    const asked: string[][] = [];
    // Items 1 and 3 are still in the latest read when quiet hours end; 2 is gone.
    const heldAlive: HeldAliveCheck = async (items) => {
      asked.push(items.map((i) => i.id));
      return items.map((i) => i.id !== 'item-2');
    };
    const { clock, api, outbox, t0 } = setup({ heldAlive });
    for (const n of [1, 2, 3]) void outbox.send(15, `alert ${n}`, { digestLine: `• alert ${n}`, holdUntil: t0 + 60_000, lang: 'en', heldItem: item(n) });
    await run(clock, 30_000);
    expect(asked).toEqual([]);
    await run(clock, 40_000);
    expect(asked).toEqual([['item-1', 'item-2', 'item-3']]);
    const [summary] = api.sent(15);
    expect(summary?.text).toBe(
      [
        '🌙 <b>While quiet hours were on: 3 alerts</b>',
        '🟢 still on offer · ⚪ gone since; 🔎 N opens the card of line N',
        '1. 🟢 • alert 1 · <code>item-1</code>',
        '2. ⚪ • alert 2 · <code>item-2</code>',
        '3. 🟢 • alert 3 · <code>item-3</code>',
      ].join('\n'),
    );
    expect(summary?.other?.reply_markup).toEqual({ inline_keyboard: [[{ text: '🔎 1', callback_data: 'a:op:1:item-1' }, { text: '🔎 3', callback_data: 'a:op:1:item-3' }]] });
    expect(checkTelegramHtml(summary!.text).ok).toBe(true);
  });

  it('many held alerts: one message within 4096 characters and 100 buttons, the rest counted in "… and N more"', async () => {
    const { clock, api, outbox, t0 } = setup({ digestMaxLines: 500, heldAlive: async (items) => items.map(() => true) });
    const long = 'x'.repeat(20);
    for (let n = 0; n < 300; n++) void outbox.send(18, `a${n}`, { digestLine: `• ${long} ${n}`, holdUntil: t0 + 1000, lang: 'en', heldItem: item(n) });
    await run(clock, 5000);
    const sent = api.sent(18);
    expect(sent).toHaveLength(1);
    const text = sent[0]!.text;
    expect(text.length).toBeLessThanOrEqual(4096);
    const listed = text.split('\n').filter((l) => /^\d+\. /.test(l)).length;
    expect(listed).toBeGreaterThan(50);
    expect(text.endsWith(`… and ${300 - listed} more`)).toBe(true);
    const buttons = (sent[0]!.other?.reply_markup as { inline_keyboard: unknown[][] }).inline_keyboard.flat();
    expect(buttons.length).toBe(Math.min(listed, 100));
    expect(buttons.length).toBeLessThanOrEqual(100);
  });

  it('the check reads each owner\'s latest read once: still there when its service\'s read holds the id', async () => {
    const reads: number[] = [];
    const check = latestReadCheck({
      latestItems: (userId: number) => {
        reads.push(userId);
        if (userId === 9) throw new Error('worker out of reach');
        return [{ id: 'item-1', service: 'arbs_live' }, { id: 'item-2', service: 'arbs_prematch' }] as Opportunity[];
      },
    });
    const answers = await check([item(1), item(2), item(3), { ...item(1), userId: 9 }]);
    expect(answers).toEqual([true, false, false, undefined]);
    expect(reads).toEqual([7, 9]);
  });

  it('a check that fails leaves the lines unmarked, and the summary still goes', async () => {
    const { clock, api, outbox, t0 } = setup({ heldAlive: () => Promise.reject(new Error('worker out of reach')) });
    void outbox.send(19, 'a', { digestLine: '• a', holdUntil: t0 + 1000, lang: 'en', heldItem: item(1) });
    await run(clock, 5000);
    expect(api.sent(19).map((c) => c.text)).toEqual(['🌙 <b>While quiet hours were on: 1 alert</b>\n1. • a · <code>item-1</code>']);
  });
});

describe('outbox edits and drain', () => {
  it('coalesces queued edits of one message: only the latest text is sent', async () => {
    const { clock, api, outbox } = setup();
    const id = await (async () => {
      const p = outbox.send(20, 'v0', { buttons: [[{ text: 'b', callbackData: 'b' }]] });
      await settle();
      return p;
    })();
    expect(id).toBe(1);
    const edits = ['v1', 'v2', 'v3'].map((t) => outbox.edit(20, 1, t, { buttons: [[{ text: 'b', callbackData: 'b' }]] }));
    const otherMessage = outbox.edit(20, 99, 'other');
    await run(clock, 5000);
    const sentEdits = api.calls.filter((c) => c.method === 'editMessageText');
    expect(sentEdits.map((c) => [c.messageId, c.text])).toEqual([
      [1, 'v3'],
      [99, 'other'],
    ]);
    expect(sentEdits[0]?.other?.reply_markup).toEqual({ inline_keyboard: [[{ text: 'b', callback_data: 'b' }]] });
    expect(sentEdits[1]?.other?.reply_markup).toBeUndefined();
    expect(await Promise.all([...edits, otherMessage])).toEqual([true, true, true, true]);
    expect(outbox.stats).toMatchObject({ edited: 2, coalesced: 2 });
  });

  it('accepts idempotency keys and ignores them: one process replays nothing, so each call is sent', async () => {
    const { clock, api, outbox } = setup();
    const ids = [outbox.send(40, 'same', { idempotencyKey: 'k' }), outbox.send(40, 'same', { idempotencyKey: 'k' })];
    await run(clock, 2000);
    expect(await Promise.all(ids)).toEqual([1, 2]);
    expect(await outbox.edit(40, 1, 'edited', { idempotencyKey: 'e' })).toBe(true);
    expect(api.sent(40)).toHaveLength(2);
    expect(api.calls.filter((c) => c.method === 'editMessageText')).toHaveLength(1);
  });

  it('drain stops taking jobs and returns how many were left when the time is up', async () => {
    const { clock, api, outbox } = setup();
    // A burst of three at once, then one a second: by 2.5 s five are sent.
    for (let i = 0; i < 8; i++) void outbox.send(30, `m${i}`);
    await settle();
    const drained = outbox.drain(2500);
    await run(clock, 2600);
    expect(await drained).toBe(3);
    expect(api.sent(30)).toHaveLength(5);
    expect(outbox.depth).toBe(3);
    expect(await outbox.send(31, 'too late')).toBeUndefined();
    expect(await outbox.edit(30, 1, 'too late')).toBe(false);
    expect(api.sent(31)).toHaveLength(0);
  });

  it('drain returns as soon as the queue is empty', async () => {
    const { clock, outbox } = setup();
    void outbox.send(32, 'a');
    void outbox.send(32, 'b');
    const drained = outbox.drain(60_000);
    let done: number | undefined;
    void drained.then((n) => (done = n));
    await run(clock, 1000);
    expect(done).toBe(0);
  });

  it('stop leaves queued jobs for a later start', async () => {
    const { clock, api, outbox } = setup();
    for (const text of ['a', 'b', 'c', 'd']) void outbox.send(40, text);
    await run(clock, G);
    outbox.stop();
    await outbox.stopped();
    await run(clock, 5000);
    expect(api.sent(40)).toHaveLength(3);
    expect(outbox.depth).toBe(1);
    outbox.start();
    await run(clock, 1000);
    expect(api.sent(40)).toHaveLength(4);
  });
});
