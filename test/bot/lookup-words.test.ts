/** Lookups say what happened: the id quoted back, "could not look" apart from "not found", the id on every alert, and /item or /event alone asking for the id. */
import { describe, expect, it } from 'vitest';
import { formatAlert } from '../../src/alerts/format.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import { makeItem } from './fakes.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));
const last = () => h.last(ALICE.id).text;

describe('not found, or could not look', () => {
  it('quotes the id back: whole when short, clipped at the end when long', async () => {
    await h.say(ALICE, '/item 0123456789abcdef');
    expect(last()).toContain('No opportunity with the id <code>0123456789abcdef</code> was found in your current opportunities');
    await h.say(ALICE, `/item ${'0123456789'.repeat(4)}`);
    expect(last()).toContain('No opportunity with the id <code>01234567890123456789…</code> was found in your current opportunities');
    await h.say(ALICE, '/event 51607041');
    expect(last()).toContain('No opportunities of the event <code>51607041</code> were found in your current opportunities');
  });

  it('says it could not look, and when the limit frees, when no service was asked', async () => {
    h.client.failNext('readItem', 'rate_limited', 42_000);
    await h.say(ALICE, '/item abc123');
    expect(last()).toContain('I could not look for <code>abc123</code> now');
    expect(last()).toContain('the limit frees in 42 seconds');
    expect(last()).not.toContain('No opportunity');
    h.client.failNext('readItem', 'timeout');
    await h.say(ALICE, '/item abc123');
    expect(last()).toContain('I could not look for <code>abc123</code> now: the service did not answer in time. That is not “not found”: try again in a minute.');
  });

  it('"not found" says where it looked and why it may be missing, with no limit words when no limit stopped it', async () => {
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/item 0123456789abcdef');
    expect(h.client.callsOf('readItem').map((c) => c.service)).toEqual(['arbs_prematch', 'arbs_live']);
    expect(last()).toBe(
      'No opportunity with the id <code>0123456789abcdef</code> was found in your current opportunities (it may be gone, or outside your filter).',
    );
    await h.say(ALICE, '/event 41717759');
    expect(last()).toBe(
      'No opportunities of the event <code>41717759</code> were found in your current opportunities (they may be gone, or outside your filter).',
    );
  });

  it('with one service answering "no such id" and another held back by a limit, it says which was searched and which was not', async () => {
    // The trial's case: every not-found ended "(the service’s request limit was reached)", because the
    // service the poller's share had used up was merged into the other's "no such id".
    await h.say(ALICE, '/filter arbs_live');
    h.client.failNext('readItem', 'rate_limited', 5_000);
    await h.say(ALICE, '/item abc123');
    expect(last()).toBe(
      '🔎 Not found in Arbs · live. I could not look in Arbs · prematch now: the service’s request limit was reached; the limit frees in 5 seconds. For that service that is not “not found”: try again then.',
    );
    expect(last()).not.toContain('No opportunity');
  });

  it('the lookup cap says it could not look and when it frees', async () => {
    for (let i = 0; i < 10; i += 1) await h.say(ALICE, `/item x${i}`);
    const reads = h.client.callsOf('readItem').length;
    await h.say(ALICE, '/item x99');
    expect(last()).toMatch(/I could not look now: you made many lookups .* The limit frees in 1 minute\./);
    expect(h.client.callsOf('readItem')).toHaveLength(reads);
  });
});

describe('a name in place of an id', () => {
  const chelsea = () => [
    makeItem({ id: 'c1a', eventId: '24929384', team1: 'Chelsea', team2: 'Arsenal', league: 'Premier League' }),
    makeItem({ id: 'c2b', eventId: '24929384', team1: 'Chelsea', team2: 'Arsenal', league: 'Premier League' }),
    makeItem({ id: 'r9', eventId: '555', team1: 'Real Madrid', team2: 'Chelsea', league: 'Friendlies' }),
    makeItem({ id: 'x7', eventId: '777', team1: 'Rune', team2: 'Sinner', league: 'ATP' }),
  ];

  it('/item hello is answered without asking the service or spending a lookup', async () => {
    await h.say(ALICE, '/item hello');
    expect(last()).toContain('“hello” is not an id, and no team or league of your current opportunities matches it.');
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    // No lookup was spent: the cap's 10 a minute are all still there.
    for (let i = 0; i < 10; i += 1) await h.say(ALICE, `/item x${i}`);
    expect(h.client.callsOf('readItem')).toHaveLength(10);
  });

  it('/event Chelsea lists the matching events of the current opportunities with their ids', async () => {
    h.scheduler.latest.set(ALICE.id, chelsea());
    await h.say(ALICE, '/event Chelsea');
    expect(h.client.callsOf('readEventItems')).toHaveLength(0);
    expect(last()).toContain('“Chelsea” is not an id, so I searched the teams and leagues of your current opportunities: 2 events.');
    expect(last()).toContain('• Chelsea — Arsenal (Premier League): /event <code>24929384</code> · 🆔 <code>c1a</code>, <code>c2b</code>');
    expect(last()).toContain('• Real Madrid — Chelsea (Friendlies): /event <code>555</code> · 🆔 <code>r9</code>');
    expect(last()).not.toContain('Rune');
  });

  it('several words narrow it, a service after them too; typed after a bare /event it works the same', async () => {
    h.scheduler.latest.set(ALICE.id, chelsea());
    await h.say(ALICE, '/event real madrid arbs_prematch');
    expect(last()).toContain(': 1 event.');
    expect(last()).toContain('/event <code>555</code>');
    await h.say(ALICE, '/event');
    await h.say(ALICE, 'Sinner');
    expect(last()).toContain('• Rune — Sinner (ATP): /event <code>777</code>');
    expect(h.client.callsOf('readEventItems')).toHaveLength(0);
  });

  it('no match says so and how to find an id', async () => {
    h.scheduler.latest.set(ALICE.id, chelsea());
    await h.say(ALICE, '/event Barcelona');
    expect(last()).toContain('“Barcelona” is not an id, and no team or league of your current opportunities matches it.');
    expect(last()).toContain('🆔 line');
    // Without a key there are no opportunities to search: it asks to connect.
    await h.say({ id: 909, first_name: 'Nokey', language_code: 'en' }, '/event Chelsea');
    expect(h.last(909).text).toContain('/connect');
  });
});

describe('/item and /event without an id', () => {
  it('/item alone asks for the id; the typed id is looked up and the question closes', async () => {
    h.client.items = [makeItem({ id: 'a1', team1: 'Rune', team2: 'Sinner' })];
    await h.say(ALICE, '/item');
    expect(last()).toContain('Which opportunity? Send its id');
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    await h.say(ALICE, '<b>');
    expect(last()).toContain('is not a valid id');
    expect(last()).toContain('Send another id, or /cancel.');
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    await h.say(ALICE, 'a1');
    expect(last()).toContain('Rune');
    expect(h.client.callsOf('readItem')).toHaveLength(1);
    // Closed: the next message is not taken as an id.
    await h.say(ALICE, 'a1');
    expect(h.client.callsOf('readItem')).toHaveLength(1);
  });

  it('/event alone asks for the event id; /cancel closes the question', async () => {
    h.client.items = [makeItem({ id: 'x1', eventId: 'ev9' })];
    await h.say(ALICE, '/event');
    expect(last()).toContain('Which event? Send its id');
    await h.say(ALICE, '/cancel');
    expect(last()).toContain('Stopped');
    await h.say(ALICE, 'ev9');
    expect(h.client.callsOf('readEventItems')).toHaveLength(0);
    await h.say(ALICE, '/event');
    await h.say(ALICE, 'ev9 arbs_prematch');
    expect(h.client.callsOf('readEventItems')[0]).toMatchObject({ id: 'ev9', service: 'arbs_prematch' });
  });

  it('without a key it asks to connect, not for an id', async () => {
    await h.say({ id: 909, first_name: 'Nokey', language_code: 'en' }, '/item');
    expect(h.last(909).text).toContain('/connect');
  });
});

describe('the id on every alert', () => {
  it('new, moved and gone alerts end with the item and event ids as tap-to-copy code, in en and ru', () => {
    const item = makeItem({ id: 'f00dbabe42', eventId: '24929384' });
    const names = namesFor(undefined, 'en');
    const view = { lang: 'en' as const, timeZone: 'UTC', bankroll: 100, roundingStep: 1, now: Date.UTC(2026, 0, 3, 10) };
    const ids = '🆔 <code>f00dbabe42</code> for /item · event <code>24929384</code> for /event';
    expect(formatAlert(item, names, view, { state: 'new' }).text).toContain(ids);
    expect(formatAlert(item, names, view, { state: 'moved', prev: item }).text).toContain(ids);
    expect(formatAlert(item, names, view, { state: 'gone', livedMs: 1000, last: item }).text).toContain('<code>f00dbabe42</code>');
    expect(formatAlert(item, names, view, { state: 'gone', livedMs: 1000, last: item }).text).toContain('<code>24929384</code>');
    expect(formatAlert(item, namesFor(undefined, 'ru'), { ...view, lang: 'ru' }, { state: 'new' }).text).toContain(
      '🆔 <code>f00dbabe42</code> для /item · событие <code>24929384</code> для /event',
    );
  });
});
