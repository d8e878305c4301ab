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
    expect(last()).toContain('No opportunity with the id <code>0123456789abcdef</code> was found.');
    await h.say(ALICE, `/item ${'0123456789'.repeat(4)}`);
    expect(last()).toContain('No opportunity with the id <code>01234567890123456789…</code> was found.');
    await h.say(ALICE, '/event 51607041');
    expect(last()).toContain('No opportunities of the event <code>51607041</code> were found.');
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

  it('with one service answering "no such id" and another limited, it is "not found" with the reason', async () => {
    await h.say(ALICE, '/filter arbs_live');
    h.client.failNext('readItem', 'rate_limited', 5_000);
    await h.say(ALICE, '/item abc123');
    expect(last()).toContain('No opportunity with the id <code>abc123</code> was found.');
    expect(last()).toContain('request limit was reached');
  });

  it('the lookup cap says it could not look and when it frees', async () => {
    for (let i = 0; i < 10; i += 1) await h.say(ALICE, `/item x${i}`);
    const reads = h.client.callsOf('readItem').length;
    await h.say(ALICE, '/item x99');
    expect(last()).toMatch(/I could not look now: you made many lookups .* The limit frees in 1 minute\./);
    expect(h.client.callsOf('readItem')).toHaveLength(reads);
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
  it('new, moved and gone alerts end with the id as tap-to-copy code, in en and ru', () => {
    const item = makeItem({ id: 'f00dbabe42' });
    const names = namesFor(undefined, 'en');
    const view = { lang: 'en' as const, timeZone: 'UTC', bankroll: 100, roundingStep: 1, now: Date.UTC(2026, 0, 3, 10) };
    expect(formatAlert(item, names, view, { state: 'new' }).text).toContain('🆔 <code>f00dbabe42</code> · for /item');
    expect(formatAlert(item, names, view, { state: 'moved', prev: item }).text).toContain('🆔 <code>f00dbabe42</code> · for /item');
    expect(formatAlert(item, names, view, { state: 'gone', livedMs: 1000, last: item }).text).toContain('<code>f00dbabe42</code>');
    expect(formatAlert(item, namesFor(undefined, 'ru'), { ...view, lang: 'ru' }, { state: 'new' }).text).toContain('🆔 <code>f00dbabe42</code> · для /item');
  });
});
