/**
 * The outbox paces each chat by its own count of Telegram's bucket, from each call's answer. A
 * server may round differently: the fake Bot API's bucket is fractional, and a call that arrived
 * holding exactly one token by our count was refused now and then (1–2 a run in the busy-world
 * benchmark). Here the answers come back the instant the server counts the call, so the outbox's
 * count and the server's agree to the millisecond, and any call paced to exactly one token meets
 * the rounding: the guard on the last token (chat-bucket.ts) keeps every call clear of it.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { FloodControl } from '../../src/fake-telegram/flood.js';
import { silentLogger } from '../../src/logger.js';
import type { OutboxApi } from '../../src/outbox/api.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { ScriptedApi, settle, telegramError } from './helpers.js';
import { stopAfterEach } from '../support/teardown.js';

const stopAfter = stopAfterEach();

describe('pacing against a server that rounds its bucket differently', () => {
  it('keeps four chats with a backlog of alerts and edits at their pace without a single 429', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0, 0) + 17);
    const scripted = new ScriptedApi(clock);
    const flood = new FloodControl();
    scripted.failWhen((call) => {
      const retryAfter = flood.check(call.method, call.chatId, clock.now());
      return retryAfter === undefined ? undefined : telegramError(429, `Too Many Requests: retry after ${retryAfter}`, retryAfter);
    });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // Each call reaches the server 0–3 ms after it leaves and is answered at once: the bucket the
    // server keeps starts from odd milliseconds, as over a real network.
    const api: OutboxApi = {
      sendMessage: async (...args) => {
        await clock.sleep(Math.floor(random() * 4));
        return scripted.sendMessage(...args);
      },
      editMessageText: async (...args) => {
        await clock.sleep(Math.floor(random() * 4));
        return scripted.editMessageText(...args);
      },
    };
    // Backlogs never fold: every alert goes as itself, at the chat's pace.
    const outbox = stopAfter(new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, digestThreshold: 10_000, behindMs: 10 ** 9 }));
    outbox.start();
    const chats = [1, 2, 3, 4];
    for (let ms = 0; ms < 20_000; ms++) {
      if (ms % 97 === 0) for (const chat of chats) for (let k = 0; k < 3; k++) void outbox.send(chat, `alert ${ms}.${k}`, { digestLine: 'alert' });
      if (ms % 31 === 0) for (const chat of chats) void outbox.edit(chat, 1 + (ms % 5), `moved ${ms}`);
      await settle();
      await clock.advance(1);
    }
    outbox.stop();
    expect(flood.snapshot()).toMatchObject({ tooMany: 0, early: 0 });
    expect(outbox.stats.rateLimited).toBe(0);
    // Every chat was kept busy the whole time: three at once, then about one a second.
    expect(outbox.stats.sent + outbox.stats.edited).toBeGreaterThanOrEqual(chats.length * 21);
  }, 60_000);
});
