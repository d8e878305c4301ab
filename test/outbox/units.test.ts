import { describe, expect, it } from 'vitest';
import { GrammyError, HttpError } from 'grammy';
import { splitLongLine, splitMessage, truncateMessage } from '../../src/outbox/split.js';
import { classifyTelegramError, describeError } from '../../src/outbox/errors.js';
import { rateWindow, SendTimes } from '../../src/outbox/pacing.js';
import { digestHeader, quietSummaryHeader } from '../../src/outbox/digest-text.js';
import { pluralForm } from '../../src/locales/i18n.js';
import { checkTelegramHtml } from '../../src/fake-telegram/html.js';

const TOKEN = '123456:TEST-TOKEN-abcdefghijklmnopqrstu';

function grammyError(code: number, description: string, parameters = {}): GrammyError {
  return new GrammyError('Call failed', { ok: false, error_code: code, description, parameters }, 'sendMessage', {});
}

describe('splitMessage', () => {
  it('leaves a short text alone and drops an empty one', () => {
    expect(splitMessage('<b>hi</b>\nthere')).toEqual(['<b>hi</b>\nthere']);
    expect(splitMessage('   ')).toEqual([]);
  });

  it('splits on line boundaries into parts within the limit', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'y'.repeat(i % 7)}`);
    const parts = splitMessage(lines.join('\n'), 100);
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(100);
    expect(parts.join('\n').split('\n')).toEqual(lines);
  });

  it('cuts a single over-long line outside tags and entities, closing and reopening its tags', () => {
    const line = `<b>${'word '.repeat(60)}<i>${'&amp; more '.repeat(40)}</i></b>`;
    const pieces = splitLongLine(line, 120);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(120);
      expect(checkTelegramHtml(piece)).toMatchObject({ ok: true });
      expect(piece).not.toMatch(/&[a-z]*$/);
    }
    const visible = (s: string) => s.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
    expect(visible(pieces.join(' '))).toBe(visible(line));
  });

  it('never cuts inside a surrogate pair', () => {
    const pieces = splitLongLine('😀'.repeat(100), 51);
    for (const piece of pieces) expect(piece).toMatch(/^(?:😀)+$/u);
    expect(pieces.join('')).toBe('😀'.repeat(100));
  });

  it('truncates on a line boundary with a marker', () => {
    const text = Array.from({ length: 10 }, (_, i) => `row ${i}`).join('\n');
    expect(truncateMessage(text, 20)).toBe('row 0\nrow 1\nrow 2\n…');
    expect(truncateMessage('short', 20)).toBe('short');
  });
});

describe('classifyTelegramError', () => {
  it('reads grammY errors as Telegram meant them', () => {
    expect(classifyTelegramError(grammyError(429, 'Too Many Requests: retry after 12', { retry_after: 12 }))).toEqual({
      kind: 'rate-limited',
      retryAfterMs: 12_000,
      description: 'Too Many Requests: retry after 12',
    });
    expect(classifyTelegramError(grammyError(403, 'Forbidden: bot was kicked from the group chat')).kind).toBe('blocked');
    expect(classifyTelegramError(grammyError(400, 'Bad Request: message is not modified: specified new message content')).kind).toBe(
      'not-modified',
    );
    expect(classifyTelegramError(grammyError(400, 'Bad Request: message to edit not found')).kind).toBe('message-gone');
    expect(classifyTelegramError(grammyError(500, 'Internal Server Error')).kind).toBe('transient');
    expect(classifyTelegramError(grammyError(400, 'Bad Request: chat not found')).kind).toBe('chat-unavailable');
    expect(classifyTelegramError(grammyError(400, 'Bad Request: not enough rights to send text messages to the chat')).kind).toBe(
      'chat-unavailable',
    );
    expect(
      classifyTelegramError(grammyError(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: -1009 })),
    ).toEqual({ kind: 'migrated', newChatId: -1009, description: 'Bad Request: group chat was upgraded to a supergroup chat' });
    expect(classifyTelegramError(grammyError(400, 'Bad Request: can\'t parse entities')).kind).toBe('permanent');
    expect(classifyTelegramError(new HttpError("Network request for 'sendMessage' failed!", new Error('socket hang up'))).kind).toBe(
      'transient',
    );
  });

  it('describes errors without the bot token', () => {
    const err = new HttpError('Network request failed!', new Error(`request to http://x/bot${TOKEN}/sendMessage failed`));
    const text = describeError(err);
    expect(text).toContain('request to http://x/bot');
    expect(text).not.toContain(TOKEN);
    expect(classifyTelegramError(err).description).not.toContain(TOKEN);
  });
});

describe('pacing windows', () => {
  it('answers when the next send may go', () => {
    const perSecond = rateWindow(2, 1000);
    const times = new SendTimes(2);
    expect(times.nextAllowed(0, perSecond)).toBe(0);
    times.arrived(times.record(0), 0);
    times.arrived(times.record(100), 100);
    expect(times.nextAllowed(150, perSecond)).toBe(1000);
    times.arrived(times.record(1000), 1000);
    expect(times.nextAllowed(1000, perSecond)).toBe(1100);
    expect(times.last).toBe(1000);
  });

  it('counts a send from when Telegram answered it, and one still in flight as arriving now', () => {
    const perSecond = rateWindow(1, 1000);
    const times = new SendTimes(1);
    const first = times.record(0);
    // Still in flight at 700: it may reach Telegram any moment, so the window stays shut a second past now.
    expect(times.nextAllowed(700, perSecond)).toBe(1700);
    times.arrived(first, 400);
    expect(times.nextAllowed(700, perSecond)).toBe(1400);
    // A pending stamp is never dropped to make room.
    const a = times.record(1400);
    times.record(1500);
    times.arrived(a, 1450);
    expect(times.nextAllowed(1600, perSecond)).toBe(2600);
  });

  it('answers as the limit-th latest arrival says, over random sends (in flight, answered, any window)', () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (const limit of [1, 2, 3, 20, 25]) {
      const window = { limit, spanMs: 1000 };
      const times = new SendTimes(limit);
      const all: { at: number; pending: boolean }[] = [];
      let now = 0;
      for (let step = 0; step < 300; step++) {
        now += Math.floor(random() * 400);
        if (random() < 0.5) all.push(times.record(now));
        const inFlight = all.filter((s) => s.pending);
        if (inFlight.length > 0 && random() < 0.6) times.arrived(inFlight[Math.floor(random() * inFlight.length)]!, now + Math.floor(random() * 50));
        // The definition: the limit-th latest of the kept sends, one in flight counted as arriving now.
        const kept = (times as unknown as { stamps: { at: number; pending: boolean }[] }).stamps;
        const latest = kept.map((s) => (s.pending ? Math.max(s.at, now) : s.at)).sort((a, b) => b - a);
        const expected = kept.length < limit ? now : Math.max(now, (latest[limit - 1] ?? Number.NEGATIVE_INFINITY) + 1000);
        expect(times.nextAllowed(now, window)).toBe(expected);
      }
    }
  });

  it('turns slow rates into longer windows and refuses nonsense', () => {
    expect(rateWindow(0.5, 1000)).toEqual({ limit: 1, spanMs: 2000 });
    expect(rateWindow(20, 60_000)).toEqual({ limit: 20, spanMs: 60_000 });
    expect(() => rateWindow(0, 1000)).toThrow(RangeError);
  });
});

describe('outbox texts', () => {
  it('speaks English and Russian with the right plural', () => {
    expect(digestHeader('en', 4)).toBe('<b>+4 more:</b>');
    expect(quietSummaryHeader('en', 1)).toContain('1 alert</b>');
    expect([1, 2, 5, 11, 21, 22, 112].map((n) => pluralForm('ru', n, ['a', 'b', 'c']))).toEqual(['a', 'b', 'c', 'c', 'a', 'b', 'c']);
    expect(quietSummaryHeader('ru', 2)).toContain('2 оповещения');
  });
});
