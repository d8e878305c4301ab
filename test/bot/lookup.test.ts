/** /item, /event, inline mode and the buttons under alerts, end to end. */
import { describe, expect, it } from 'vitest';
import type { InlineQueryResultArticle } from 'grammy/types';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, type Harness, recordGroupAlert, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));

const last = () => h.last(ALICE.id);

describe('/item and /event', () => {
  it('reads the item by id (interactive, never waiting) and shows the full card', async () => {
    h.client.items = [makeItem({ id: 'a1', team1: 'Rune', team2: 'Sinner' })];
    await h.say(ALICE, '/item a1');
    const reads = h.client.callsOf('readItem');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ service: 'arbs_prematch', id: 'a1', opts: { priority: 'interactive', wait: false } });
    expect(last().text).toContain('Rune');
    expect(last().text).toContain('Sinner');
    expect(last().text).toContain('a1');
  });

  it('falls back to the latest items when the service read is not offered, and says so', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a7', team1: 'Held' })]);
    await h.say(ALICE, '/item a7 arbs_prematch');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.at(-2)).toContain('from the latest list');
    expect(texts.at(-1)).toContain('Held');
  });

  it('an id found nowhere is answered; service errors are named', async () => {
    await h.say(ALICE, '/item n0pe');
    expect(last().text).toContain('No opportunity with the id <code>n0pe</code>');
    h.client.failNext('readItem', 'rate_limited', 10_000);
    await h.say(ALICE, '/item n0pe');
    expect(last().text).toContain('I could not look for <code>n0pe</code> now: the service’s request limit was reached; the limit frees in 10 seconds.');
  });

  it.each([
    ['/item a1 b2 c3', 'Use <code>/item'],
    ['/item <b>bad</b>', '“&lt;b&gt;bad&lt;/b&gt;” is not a valid id'],
    [`/item ${'x'.repeat(201)}`, 'too long'],
    ['/item a1 poker', '“poker” is not a service'],
  ])('%s → a clear answer and no read', async (line, answer) => {
    await h.say(ALICE, line);
    expect(last().text).toContain(answer);
    expect(h.client.callsOf('readItem')).toHaveLength(0);
  });

  it('/event shows every item of the event', async () => {
    h.client.items = [makeItem({ id: 'x1', eventId: 'ev9' }), makeItem({ id: 'x2', eventId: 'ev9', team1: 'Second' })];
    await h.say(ALICE, '/event ev9');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.at(-3)).toContain('(event <code>ev9</code>): 2 opportunities');
    expect(texts.at(-3)).toMatch(/^📋 \S.* — \S.* \(event <code>ev9<\/code>\)/);
    expect(texts.at(-1)).toContain('Second');
  });

  it('/event found nowhere', async () => {
    await h.say(ALICE, '/event ev404');
    expect(last().text).toContain('No opportunities of the event <code>ev404</code>');
  });

  it('without a key or filters', async () => {
    await h.say(BORIS, '/item a1');
    expect(h.last(BORIS.id).text).toContain('/connect');
  });
});

describe('inline mode', () => {
  it('answers with personal, briefly cached cards from the latest items', async () => {
    h.scheduler.latest.set(ALICE.id, [
      makeItem({ id: 'a1', team1: 'Rune', team2: 'Sinner', profit: 1.2 }),
      makeItem({ id: 'a2', team1: 'Alcaraz', team2: 'Zverev', profit: 3.4 }),
    ]);
    await h.handle(h.fake.inlineQuery(ALICE, ''));
    const answer = h.fake.answers.inline.at(-1);
    expect(answer?.is_personal).toBe(true);
    expect(answer?.cache_time).toBe(5);
    const results = answer?.results as unknown as InlineQueryResultArticle[];
    expect(results.map((r) => r.id)).toEqual(['arbs_prematch:a2', 'arbs_prematch:a1']);
    expect(results[0]?.title).not.toMatch(/<|&lt;/);

    await h.handle(h.fake.inlineQuery(ALICE, 'rune sinner'));
    const words = h.fake.answers.inline.at(-1)?.results as unknown as InlineQueryResultArticle[];
    expect(words.map((r) => r.id)).toEqual(['arbs_prematch:a1']);
    expect(JSON.stringify(words[0]?.input_message_content)).toContain('Rune');

    await h.handle(h.fake.inlineQuery(ALICE, 'a2'));
    expect((h.fake.answers.inline.at(-1)?.results as unknown as InlineQueryResultArticle[]).map((r) => r.id)).toEqual(['arbs_prematch:a2']);
  });

  it("never shows another user's items; without a key offers to connect", async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'secret-item' })]);
    await h.handle(h.fake.inlineQuery(BORIS, ''));
    const answer = h.fake.answers.inline.at(-1);
    expect(answer?.results).toEqual([]);
    expect(JSON.stringify(answer?.button)).toContain('connect');
  });
});

describe('alert buttons', () => {
  const data = (action: Parameters<typeof encodeAlertAction>[0]) => {
    const encoded = encodeAlertAction(action);
    if (!encoded) throw new Error('not encodable');
    return encoded;
  };

  it('all items of the event', async () => {
    h.client.items = [makeItem({ id: 'x1', eventId: 'ev1' })];
    const d = data({ type: 'event', service: 'arbs_prematch', eventId: 'ev1' });
    const alert = await h.plant(ALICE.id, 'alert', [['All', d]]);
    await h.press(ALICE, alert, d);
    expect(h.client.callsOf('readEventItems')[0]).toMatchObject({ id: 'ev1', service: 'arbs_prematch' });
    expect(last().text).toContain('x1');
  });

  it('stakes for another amount: asks, refuses a bad amount, then shows the card with it', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const d = data({ type: 'stakes', service: 'arbs_prematch', itemId: 'a1' });
    const alert = await h.plant(ALICE.id, 'alert', [['Stakes', d]]);
    await h.press(ALICE, alert, d);
    expect(last().text).toContain('Send the amount to split (your bankroll is 100)');
    await h.say(ALICE, 'lots');
    expect(last().text).toContain('“lots” is not an amount. Send digits, like 500');
    await h.say(ALICE, '-10');
    expect(last().text).toContain('must be above zero');
    await h.say(ALICE, '1000');
    expect(last().text).toContain('Stakes for 1000');
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    // The question is closed.
    await h.say(ALICE, '500');
    expect(last().text).toContain('not sure what you mean');
  });

  it('mute the event for 24 h and snooze the filter for 1 h', async () => {
    const mute = data({ type: 'mute', service: 'arbs_prematch', eventId: 'ev1' });
    const snooze = data({ type: 'snooze', service: 'arbs_prematch' });
    const alert = await h.plant(ALICE.id, 'alert', [
      ['Mute', mute],
      ['Snooze', snooze],
    ]);
    await h.press(ALICE, alert, mute);
    expect(h.store.getUser(ALICE.id)?.mutedEvents.ev1).toBe(h.clock.now() + 24 * 3_600_000);
    await h.press(ALICE, alert, snooze);
    expect(h.store.getUser(ALICE.id)?.snoozedUntil.arbs_prematch).toBe(h.clock.now() + 3_600_000);
    expect(h.callbackText()).toBe('Arbs · prematch: alerts snoozed until Sat 3 Jan 11:00.');
  });

  it('#12 the quiet-hours summary\'s 🔎 button opens the held alert\'s card, as it is now', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'q1', team1: 'Held', team2: 'Over' })]);
    const open = data({ type: 'open', service: 'arbs_prematch', itemId: 'q1' });
    const summary = await h.plant(ALICE.id, 'summary', [['🔎 1', open]]);
    await h.press(ALICE, summary, open);
    expect(last().text).toContain('Held');
    expect(last().text).toContain('q1');
    // Gone from the latest read: the lookup says what it found.
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, summary, open);
    expect(h.client.callsOf('readItem').at(-1)).toMatchObject({ id: 'q1' });
  });

  it('#32 after /forget, a button on one of the user\'s own older alerts says their data was deleted (not "someone else\'s")', async () => {
    const mute = data({ type: 'mute', service: 'arbs_prematch', eventId: 'ev1' });
    const alert = await h.plant(ALICE.id, 'alert', [['Mute', mute]]);
    await h.say(ALICE, '/forget');
    await h.press(ALICE, last(), h.button(last(), 'Yes'));
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
    await h.press(ALICE, alert, mute);
    expect(h.callbackText()).toBe('You deleted your data with /forget, so this older alert’s buttons do nothing now. /connect to start again.');
    expect(h.callbackText()).not.toContain('someone else');
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
  });

  it('in a group: the owner may use the buttons, another member gets a polite refusal', async () => {
    h.fake.setChat({ id: -2001, type: 'supergroup', title: 'Team', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings alerts -2001');
    const d = data({ type: 'mute', service: 'arbs_prematch', eventId: 'ev5' });
    const alert = await h.plant(-2001, 'alert', [['Mute', d]]);
    recordGroupAlert(h.store, ALICE.id, 'i5', 'ev5', alert);
    await h.press(BORIS, alert, d);
    expect(h.callbackText()).toBe('Это оповещение другого пользователя, и его кнопки — тоже.');
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
    await h.press(ALICE, alert, d);
    expect(h.store.getUser(ALICE.id)?.mutedEvents.ev5).toBeDefined();
    // An alert message the bot does not know in that group is not Alice's either.
    const other = await h.plant(-2001, 'someone else', [['Mute', d]]);
    await h.press(ALICE, other, d);
    expect(h.callbackText()).toContain('belongs to someone else');
  });

  it('garbage alert data is answered as a stale button', async () => {
    const alert = await h.plant(ALICE.id, 'alert', [['?', 'a:ev:9:x']]);
    await h.press(ALICE, alert, 'a:ev:9:x');
    expect(h.callbackText()).toBe('This button is no longer active.');
    const odd = await h.plant(ALICE.id, 'odd', [['?', 'zz:1']]);
    await h.press(ALICE, odd, 'zz:1');
    expect(h.callbackText()).toBe('This button is no longer active.');
  });
});
