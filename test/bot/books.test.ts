/**
 * /books and /book end to end (issue 22, item 1): settings per bookmaker stored on the user record,
 * shown in /books with buttons, used by the alerts' maths; bad input and forged buttons change
 * nothing; /forget deletes them with the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBooksAction } from '../../src/bot/callback-data/index.js';
import { applyBookChange, parseBookArgs } from '../../src/bot/parse/book-args.js';
import { subscriptionKey } from '../../src/store/schema.js';
import { BOOKMAKERS_EN, makeItem } from './fakes.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

// The fixture dictionaries have no exchange: add one (and take it away after) for these tests.
beforeAll(() => {
  BOOKMAKERS_EN['31'] = 'Betfair Exchange';
});
afterAll(() => {
  delete BOOKMAKERS_EN['31'];
});

const last = () => h.last(ALICE.id);
const books = () => h.store.getUser(ALICE.id)?.books;

describe('/book <bookmaker> key=value …', () => {
  it('sets several values in one line, by name or id, and /book … reset removes them', async () => {
    await h.say(ALICE, '/book pinnacle max=300 step=5');
    expect(books()).toEqual({ '7': { max: 300, step: 5 } });
    expect(last().text).toContain('Saved for Pinnacle: max 300 · step 5 · ok');
    // "betfair" is the exchange, not the sportsbook of the same name
    await h.say(ALICE, '/book betfair commission=2');
    expect(books()?.['31']).toEqual({ commission: 2 });
    await h.say(ALICE, '/book 7 status=limited min=2,5');
    expect(books()?.['7']).toEqual({ max: 300, step: 5, status: 'limited', min: 2.5 });
    await h.say(ALICE, '/book Pinnacle reset');
    expect(books()?.['7']).toBeUndefined();
    expect(last().text).toContain('Pinnacle: back to the defaults.');
  });

  it('answers bad input clearly and changes nothing', async () => {
    await h.say(ALICE, '/book pinnacle max=300');
    const before = books();
    for (const [line, says] of [
      ['/book', 'One line:'],
      ['/book nosuchbook max=5', 'I know no bookmaker'],
      ['/book pinnacle', 'Nothing to change for Pinnacle'],
      ['/book pinnacle max=-5', 'max: “-5” is not above zero'],
      ['/book pinnacle max=1e9999', 'is not a number'],
      ['/book pinnacle commission=80', '“80” is not a commission: it is a percentage from 0 to 50'],
      ['/book pinnacle status=gone', 'is not a status'],
      ['/book pinnacle colour=red', 'is not an option I know'],
      ['/book pinnacle max=5 max=6', 'given twice'],
      ['/book pinnacle min=400', 'The minimum (400) would be over the maximum (300)'],
      ['/book pinnacle reset max=5', '“reset” goes alone'],
      ['/book b max=5', 'Several bookmakers match'],
    ] as const) {
      await h.say(ALICE, line);
      expect(last().text, line).toContain(says);
      expect(books(), line).toEqual(before);
    }
  });

  it('is in Russian for a Russian user', async () => {
    await h.say(BORIS, '/book pinnacle max=abc');
    expect(h.last(BORIS.id).text).toContain('не число');
  });
});

describe('/books', () => {
  it('lists exchanges with their assumed commission and set bookmakers; buttons cycle the status and reset', async () => {
    await h.say(ALICE, '/book pinnacle max=300');
    await h.say(ALICE, '/books');
    const list = last();
    expect(list.text).toContain('Betfair Exchange</b> (31): commission 5 % (assumed: check your account’s rate) · ok');
    expect(list.text).toContain('Pinnacle</b> (7): max 300 · ok');
    await h.press(ALICE, list, h.button(list, 'Set ⚠️ limited: Pinnacle'));
    expect(books()?.['7']).toEqual({ max: 300, status: 'limited' });
    const edited = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(edited.text).toContain('Pinnacle</b> (7): max 300 · ⚠️ limited');
    await h.press(ALICE, edited, h.button(edited, 'Set ⛔ closed: Pinnacle'));
    expect(books()?.['7']?.status).toBe('closed');
    const again = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    await h.press(ALICE, again, h.button(again, '↺ Pinnacle'));
    expect(books()?.['7']).toBeUndefined();
  });

  it('#16 a status button names the status it sets, verb first, never reads as the state', async () => {
    await h.say(ALICE, '/book betfair status=limited');
    await h.say(ALICE, '/books');
    const list = last();
    expect(list.text).toContain('Betfair Exchange</b> (31): commission 5 % (assumed: check your account’s rate) · ⚠️ limited');
    const labels = h.labels(list);
    // Limited now: its button offers the next status, and says so.
    expect(labels).toContain('Set ⛔ closed: Betfair Exchange');
    expect(labels.filter((l) => /^[^:]+: (ok|⚠️ limited|⛔ closed)/.test(l))).toEqual([]);
    await h.say(BORIS, '/books');
    expect(h.labels(h.last(BORIS.id))).toContain('Сделать ⚠️ порезан: Betfair Exchange');
  });

  it('#17 lists the bookmakers of the alerts the user gets, not only those their filters name', async () => {
    const item = makeItem({ id: 'l1', service: 'arbs_live' });
    const leg = (bookmakerId: number) => ({ ...item.legs[0]!, bookmakerId });
    const live = { ...item, legs: [leg(25), leg(18)] };
    const withheld = { ...makeItem({ id: 'l2', service: 'arbs_live' }), legs: [leg(21), leg(25)] };
    h.scheduler.latest.set(ALICE.id, [live, withheld]);
    const entry = { eventId: 'e', chatId: ALICE.id, messageId: 5, firstSeenAt: 0, lastSeenAt: 0, goneAt: null, profit: 2, odds: [2, 2], lastEditAt: 0 };
    h.store.alerts.set(subscriptionKey(ALICE.id, 'arbs_live'), 'l1', entry);
    h.store.alerts.set(subscriptionKey(ALICE.id, 'arbs_live'), 'l2', { ...entry, messageId: null, withheld: true });
    await h.say(ALICE, '/books');
    const list = last();
    expect(list.text).toContain('<b>Fonbet</b> (25): ok');
    expect(list.text).toContain('<b>Unibet</b> (18): ok');
    // Withheld for Alice (no alert went out): its other bookmaker is not hers.
    expect(list.text).not.toContain('1XBet');
    expect(h.labels(list)).toContain('✏️ Fonbet');
  });

  it('a forged button (unknown id, bad form) changes nothing', async () => {
    await h.say(ALICE, '/books');
    const list = last();
    const before = books();
    const planted = await h.plant(ALICE.id, 'x', [
      ['a', encodeBooksAction({ type: 'status', bookmakerId: 999_999, status: 'closed' })],
      ['b', 'bk:s:7:z'],
      ['c', 'bk:r:x'],
    ]);
    for (const data of [encodeBooksAction({ type: 'status', bookmakerId: 999_999, status: 'closed' }), 'bk:s:7:z', 'bk:r:x']) {
      await h.press(ALICE, planted, data);
      expect(books()).toEqual(before);
    }
    expect(list.text).toContain('Your bookmakers');
  });

  it('settings survive in the store and /forget deletes them', async () => {
    await h.say(ALICE, '/book pinnacle max=300');
    expect(h.store.getUser(ALICE.id)?.books).toEqual({ '7': { max: 300 } });
    await h.say(ALICE, '/forget');
    await h.press(ALICE, last(), h.button(last(), 'Yes'));
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
  });
});

describe('/books guided: ✏️ → a setting → its value typed', () => {
  /** /books → ✏️ <name> (or `/books <query>` for one not listed yet) → the setting's button: the question it asks. */
  async function ask(name: string, setting: string, query?: string): Promise<string> {
    if (query === undefined) {
      await h.say(ALICE, '/books');
      await h.press(ALICE, last(), h.button(last(), `✏️ ${name}`));
    } else await h.say(ALICE, `/books ${query}`);
    const menu = last();
    expect(menu.text).toContain(`✏️ <b>${name}</b>`);
    expect(h.labels(menu)).toEqual(['Commission %', 'Max', 'Min', 'Step']);
    await h.press(ALICE, menu, h.button(menu, setting));
    return last().text;
  }

  it('saves a typed value as /book would, after bad values that change nothing and keep the question open', async () => {
    // Pinnacle has no settings yet, so /books does not list it: "/books pinnacle" opens its ✏️
    await h.say(ALICE, '/books');
    expect(h.labels(last())).not.toContain('✏️ Pinnacle');
    await h.say(ALICE, '/books nosuchbook');
    expect(last().text).toContain('I know no bookmaker');
    expect(await ask('Pinnacle', 'Max', 'pinnacle')).toContain('Send the most Pinnacle accepts on one leg');
    for (const [value, says] of [
      ['abc', 'is not a number'],
      ['-5', 'max: “-5” is not above zero'],
      ['0.001', 'max: “0.001” goes beyond the cent'],
      ['1e9999', 'is not a number'],
    ] as const) {
      await h.say(ALICE, value);
      expect(last().text, value).toContain(says);
      expect(last().text, value).toContain('Send another value, or /cancel.');
      expect(books(), value).toEqual({});
    }
    await h.say(ALICE, '300');
    expect(books()).toEqual({ '7': { max: 300 } });
    expect(last().text).toContain('Saved for Pinnacle: max 300 · ok');
    // the question is over: the next number is no answer to it
    await h.say(ALICE, '400');
    expect(books()).toEqual({ '7': { max: 300 } });
    // the same checks against the stored values as /book: min over max is refused
    expect(await ask('Pinnacle', 'Min')).toContain('Send the least Pinnacle accepts');
    await h.say(ALICE, '400');
    expect(last().text).toContain('The minimum (400) would be over the maximum (300)');
    expect(books()).toEqual({ '7': { max: 300 } });
    await h.say(ALICE, '2,5');
    expect(books()).toEqual({ '7': { max: 300, min: 2.5 } });
  });

  it('commission and step of an exchange; /cancel keeps the old value', async () => {
    expect(await ask('Betfair Exchange', 'Commission %')).toContain('in % from 0 to 50');
    await h.say(ALICE, '80');
    expect(last().text).toContain('“80” is not a commission: it is a percentage from 0 to 50');
    await h.say(ALICE, '2');
    expect(books()?.['31']).toEqual({ commission: 2 });
    await ask('Betfair Exchange', 'Step');
    await h.say(ALICE, '/cancel');
    expect(last().text).toContain('Stopped');
    await h.say(ALICE, '5');
    expect(books()?.['31']).toEqual({ commission: 2 });
  });

  it('a forged value button changes nothing and opens no question', async () => {
    const planted = await h.plant(ALICE.id, 'x', [
      ['a', encodeBooksAction({ type: 'value', bookmakerId: 999_999, option: 'max' })],
      ['b', 'bk:v:7:q'],
      ['c', encodeBooksAction({ type: 'edit', bookmakerId: 999_999 })],
    ]);
    for (const data of [encodeBooksAction({ type: 'value', bookmakerId: 999_999, option: 'max' }), 'bk:v:7:q', encodeBooksAction({ type: 'edit', bookmakerId: 999_999 })]) {
      const sent = h.sent(ALICE.id).length;
      await h.press(ALICE, planted, data);
      expect(h.callbackText(), data).toBe('This button is no longer active.');
      expect(h.sent(ALICE.id), data).toHaveLength(sent);
    }
    await h.say(ALICE, '300');
    expect(books()).toEqual({});
  });

  it('a value button pressed in a group is refused and asks nothing (its buttons live in the private chat only: audit 3, L1)', async () => {
    h.fake.setChat({ id: -2001, type: 'supergroup', title: 'Team', botIsAdmin: true, adminIds: [ALICE.id] });
    const inGroup = await h.plant(-2001, 'x', [['Max', encodeBooksAction({ type: 'value', bookmakerId: 7, option: 'max' })]]);
    const groupCount = h.sent(-2001).length;
    const privateCount = h.sent(ALICE.id).length;
    await h.press(ALICE, inGroup, encodeBooksAction({ type: 'value', bookmakerId: 7, option: 'max' }));
    expect(h.callbackText()).toBe('These buttons belong to someone else.');
    expect(h.sent(ALICE.id)).toHaveLength(privateCount);
    expect(h.sent(-2001)).toHaveLength(groupCount);
  });

  it('is in Russian for a Russian user', async () => {
    await h.say(BORIS, '/books pinnacle');
    await h.press(BORIS, h.last(BORIS.id), h.button(h.last(BORIS.id), 'Шаг'));
    expect(h.last(BORIS.id).text).toContain('Пришлите шаг');
    await h.say(BORIS, 'abc');
    expect(h.last(BORIS.id).text).toContain('Пришлите другое значение или /cancel.');
  });
});

describe('parseBookArgs / applyBookChange', () => {
  const dict = { '7': 'Pinnacle', '10': 'Betfair Sportsbook', '31': 'Betfair Exchange', '40': 'Matchbook' };
  it('reads names with spaces, ids, decimal commas; applies min/max checks against the stored values', () => {
    const r = parseBookArgs('betfair exchange commission=2,5 max=100', dict);
    expect(r).toEqual({ ok: true, value: { bookmakerId: 31, name: 'Betfair Exchange', reset: false, set: { commission: 2.5, max: 100 } } });
    const sportsbook = parseBookArgs('betfair sportsbook status=closed', dict);
    expect(sportsbook.ok && sportsbook.value.bookmakerId).toBe(10);
    const applied = applyBookChange({ '7': { max: 50 } }, { bookmakerId: 7, name: 'Pinnacle', reset: false, set: { min: 60 } });
    expect(applied.ok).toBe(false);
    // a change back to the defaults leaves nothing stored
    const cleared = applyBookChange({ '7': { status: 'limited' } }, { bookmakerId: 7, name: 'Pinnacle', reset: false, set: { status: 'ok' } });
    expect(cleared).toEqual({ ok: true, value: {} });
    expect(parseBookArgs('pinnacle step=0.001', dict).ok).toBe(false);
    // a commission is kept as the alerts print and count it: two decimals of a per cent
    expect(parseBookArgs('betfair exchange commission=2.345', dict)).toMatchObject({ ok: true, value: { set: { commission: 2.35 } } });
  });
});
