/** Quiet-hours decisions (src/outbox/quiet-hours.ts) without the loop: what is held, when it is released, the summary. */
import { describe, expect, it } from 'vitest';
import { newSendJob } from '../../src/outbox/jobs.js';
import { holdAlert, holdFor, quietSummary, releaseDue, type HeldAlerts } from '../../src/outbox/quiet-hours.js';

describe('holdFor and holdAlert', () => {
  it('makes a held record on first use and keeps the latest end of quiet hours', () => {
    const chat: { held: HeldAlerts | undefined } = { held: undefined };
    const held = holdFor(chat, 5000, 'ru');
    expect(chat.held).toBe(held);
    expect(holdFor(chat, 3000, 'en')).toBe(held);
    expect(held.until).toBe(5000);
    // The language is the first message's: a summary is written in one language.
    expect(held.lang).toBe('ru');
    holdFor(chat, 9000, 'en');
    expect(held.until).toBe(9000);
  });

  it('counts every held alert but keeps only the lines the summary will list', () => {
    const held = holdFor({ held: undefined }, 1, 'en');
    for (const line of ['a', 'b', 'c']) holdAlert(held, line, 2);
    expect(held.count).toBe(3);
    expect(held.lines).toEqual([{ line: 'a' }, { line: 'b' }]);
  });
});

describe('releaseDue', () => {
  it('takes off only the records whose hours are over, in the chats\' order, and says when the next ends', () => {
    const chats = [5000, 1000, undefined, 3000, 1000].map((until, id) => ({
      id,
      held: until === undefined ? undefined : holdFor({ held: undefined }, until, 'en'),
    }));
    const { due, next } = releaseDue(chats, 1000);
    expect(due.map((d) => d.chat.id)).toEqual([1, 4]);
    expect(chats.map((c) => c.held !== undefined)).toEqual([true, false, false, true, false]);
    expect(next).toBe(3000);
    // Nothing left held: wait for no hour at all.
    expect(releaseDue(chats, 10_000).next).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('quietSummary', () => {
  it('sums up the held alerts in the chat\'s language, listing at most maxLines', () => {
    const held = holdFor({ held: undefined }, 1, 'en');
    for (const line of ['a', 'b', 'c']) holdAlert(held, line, 2);
    expect(quietSummary(held, 2)).toBe('🌙 <b>While quiet hours were on: 3 alerts</b>\n1. a\n2. b\n… and 1 more');
  });

  it('writes no summary when only other messages were held', () => {
    const held = holdFor({ held: undefined }, 1, 'en');
    held.infos.push(newSendJob(0, 0, 1, ['hello'], { kind: 'info', buttons: undefined, digestLine: 'hello', lang: 'en', resolve: () => {} }));
    expect(quietSummary(held, 2)).toBeUndefined();
  });
});
