/**
 * One item the formatter cannot draw (here a start time no date API can hold, as an older parser
 * let through) costs only its own card: inline answers and /event keep every other item.
 */
import { describe, expect, it } from 'vitest';
import type { InlineQueryResultArticle } from 'grammy/types';
import { makeItem } from './fakes.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));

const undrawable = (id: string) => makeItem({ id, eventId: 'ev1', team1: 'Broken', startsAt: 1e23 });

describe('an item that cannot be drawn', () => {
  it('is left out of the inline answer; the rest is answered', async () => {
    h.scheduler.latest.set(ALICE.id, [undrawable('bad'), makeItem({ id: 'good', team1: 'Rune', profit: 1 })]);
    await h.handle(h.fake.inlineQuery(ALICE, ''));
    const results = h.fake.answers.inline.at(-1)?.results as unknown as InlineQueryResultArticle[];
    expect(results.map((r) => r.id)).toEqual(['arbs_prematch:good']);
  });

  it('is left out of /event with a note in the user language; the other cards are sent', async () => {
    h.client.items = [undrawable('bad'), makeItem({ id: 'good', eventId: 'ev1', team1: 'Sinner' })];
    await h.say(ALICE, '/event ev1');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.at(-2)).toContain('Sinner');
    expect(texts.at(-1)).toContain('1 of these items came from the service with data I cannot show');
  });
});
