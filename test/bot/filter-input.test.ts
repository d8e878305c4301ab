/**
 * What people type, read the way they mean it (issue 29, items 2 and 6; defects #6, #20, #21, #22,
 * #25 and #31 of the newcomer trial, 2026-11-28): a one-line /filter changes only what it names
 * (`reset` starts from scratch) and says the whole result; "3%" wherever a percentage is asked;
 * sports searched and "did you mean" like bookmakers; one order of sports; a typed hedge bookmaker
 * read as the dictionaries' one or confirmed as new; /book values refused with the right words.
 * Through the fake Bot API, in English and Russian where the words are new.
 */
import { describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { parsePercent, parseRange } from '../../src/bot/parse/values.js';
import { defaultFilter } from '../../src/service/filter-model.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const last = (user = ALICE) => h.last(user.id);
const writes = () => h.client.callsOf('writeFilter');
const saved = (user = ALICE) => h.store.getUser(user.id)?.filters.arbs_prematch?.settings;
/** Alice reads Russian from now on (one key pair serves one chat, so Boris cannot connect beside her). */
const inRussian = () =>
  h.store.updateUser(ALICE.id, (u) => {
    u.lang = 'ru';
  });

describe('#6 a one-line /filter on a saved filter changes only what it names', () => {
  const built = '/filter arbs_prematch sports=1,6,5 bookmakers=7,3 min_odds=1.3 max_odds=5 hours=48 min_profit=1';

  it('min_profit=0 keeps the sports, bookmakers, odds and hours; the answer lists the filter in words', async () => {
    await h.say(ALICE, built);
    await h.say(ALICE, '/filter arbs_prematch min_profit=0');
    expect(writes().at(-1)?.filter).toEqual({
      sports: [1, 6, 5],
      bookmakers: [7, 3],
      minProfit: 0,
      maxProfit: null,
      minOdds: 1.3,
      maxOdds: 5,
      hoursToStart: 48,
      minOvervalue: null,
      marketsOff: [],
      minProfitBySport: {},
    });
    expect(saved()).toMatchObject({ sports: [1, 6, 5], bookmakers: [7, 3], minProfit: 0 });
    const text = last().text;
    expect(text).toContain('Filter for Arbs · prematch saved');
    expect(text).toContain('Sports: Football, Tennis, Basketball');
    expect(text).toContain('Bookmakers: Pinnacle, Bwin');
    expect(text).toContain('Odds: 1.3–5');
    expect(text).toContain('Changed: min_profit. The rest is kept from your filter');
  });

  it('reset starts from scratch, and says so', async () => {
    await h.say(ALICE, built);
    await h.say(ALICE, '/filter arbs_prematch reset min_profit=1');
    expect(writes().at(-1)?.filter).toEqual({ ...defaultFilter(), minProfit: 1 });
    expect(last().text).toContain('Started from scratch (reset)');
    expect(last().text).toContain('Sports: All sports');
  });

  it('no option named: the filter is written again as it was, and the answer says how to change or reset it', async () => {
    await h.say(ALICE, built);
    await h.say(ALICE, '/filter arbs_prematch');
    expect(writes().at(-1)?.filter).toMatchObject({ sports: [1, 6, 5], bookmakers: [7, 3], minProfit: 1 });
    expect(last().text).toContain('No option named: your filter is written again as it was');
  });

  it('option=any puts one option back to its default and keeps the rest', async () => {
    await h.say(ALICE, built);
    await h.say(ALICE, '/filter arbs_prematch max_odds=any sports=all');
    expect(writes().at(-1)?.filter).toMatchObject({ sports: [], bookmakers: [7, 3], minOdds: 1.3, maxOdds: null, minProfit: 1, hoursToStart: 48 });
  });

  it('a bound that crosses one kept from the filter is refused, naming the kept one; nothing written', async () => {
    await h.say(ALICE, '/filter arbs_prematch max_profit=5');
    const before = writes().length;
    await h.say(ALICE, '/filter arbs_prematch min_profit=10');
    expect(last().text).toContain('10 is above 5, and max_profit=5 is kept from your filter');
    expect(writes()).toHaveLength(before);
    expect(saved()).toMatchObject({ minProfit: 0, maxProfit: 5 });
    await h.say(ALICE, '/filter arbs_prematch min_profit=10 max_profit=any');
    expect(saved()).toMatchObject({ minProfit: 10, maxProfit: null });
  });

  it('in Russian', async () => {
    inRussian();
    await h.say(ALICE, '/filter arbs_prematch sports=1,6');
    await h.say(ALICE, '/filter arbs_prematch min_profit=2');
    expect(saved()).toMatchObject({ sports: [1, 6], minProfit: 2 });
    expect(last().text).toContain('Изменено: min_profit. Остальное осталось от вашего фильтра');
    expect(last().text).toContain('Футбол, Теннис');
    await h.say(ALICE, '/filter arbs_prematch reset');
    expect(saved()).toMatchObject({ sports: [], minProfit: 0 });
    expect(last().text).toContain('Начато с нуля (reset)');
  });
});

describe('#20 percentages as people type them', () => {
  it('one parser reads 3%, 2.5%, 1,5 % and ranges with the sign', () => {
    for (const [typed, value] of [['3%', 3], ['2.5%', 2.5], ['1,5 %', 1.5], [' 4 ', 4], ['-2%', -2]] as const) {
      expect(parsePercent(typed), typed).toEqual({ ok: true, value });
    }
    for (const typed of ['%', '3%%', '% 3', '3 % 4', 'three%']) expect(parsePercent(typed).ok, typed).toBe(false);
    const rules = { lowest: 0, highest: 1000, lowKey: 'negative_not_allowed' } as const;
    expect(parseRange('1%-3%', rules, true)).toEqual({ ok: true, value: { min: 1, max: 3 } });
    expect(parseRange('1 – 3 %', rules, true)).toEqual({ ok: true, value: { min: 1, max: 3 } });
    expect(parseRange('1%', rules, true)).toEqual({ ok: true, value: { min: 1, max: null } });
    // Odds are no percentage: the sign stays refused there.
    expect(parseRange('1.5%', { lowest: 1, highest: 1000, lowKey: 'odds_below_one' }).ok).toBe(false);
  });

  it('the one-line /filter takes min_profit=3%, max_profit=10 % and min_overvalue=2,5%', async () => {
    await h.say(ALICE, '/filter arbs_prematch min_profit=3% max_profit=10 %');
    expect(writes().at(-1)?.filter).toMatchObject({ minProfit: 3, maxProfit: 10 });
    await h.say(ALICE, '/filter valuebets_live min_overvalue=2,5%');
    expect(writes().at(-1)?.filter).toMatchObject({ minOvervalue: 2.5 });
  });

  it('the builder takes 1% for the profit and 3% for the overvalue', async () => {
    const press = async (label: string) => h.press(ALICE, last(), h.button(last(), label));
    await h.say(ALICE, '/filter');
    for (const label of ['Arbs · live', 'All sports', 'All bookmakers']) await press(label);
    await h.say(ALICE, '1% - 3%');
    expect(last().text).toContain('Odds of every leg');
    await press('Any odds');
    await press('Save');
    expect(writes().at(-1)?.filter).toMatchObject({ minProfit: 1, maxProfit: 3 });

    await h.say(ALICE, '/filter');
    for (const label of ['Valuebets · live', 'All sports', 'All bookmakers']) await press(label);
    await h.say(ALICE, '3%');
    expect(last().text).not.toContain('is not a number');
    await press('Any odds');
    await press('Save');
    expect(writes().at(-1)?.filter).toMatchObject({ minOvervalue: 3 });
  });

  it('/book and the /books question take commission=2.5%', async () => {
    await h.say(ALICE, '/book pinnacle commission=2.5%');
    expect(h.store.getUser(ALICE.id)?.books['7']).toEqual({ commission: 2.5 });
    await h.say(ALICE, '/books pinnacle');
    await h.press(ALICE, last(), h.button(last(), 'Commission %'));
    await h.say(ALICE, '1,5 %');
    expect(h.store.getUser(ALICE.id)?.books['7']).toEqual({ commission: 1.5 });
  });
});

describe('#21 sports searched and "did you mean", like bookmakers', () => {
  const toSports = async () => {
    await h.say(ALICE, '/filter');
    await h.press(ALICE, last(), h.button(last(), 'Arbs · prematch'));
  };

  it('"bask" in the sports step finds Basketball; a typo is offered the near name', async () => {
    await toSports();
    await h.say(ALICE, 'bask');
    expect(last().text).toContain('Search: “bask”');
    expect(h.labels(last()).filter((l) => !/Clear|All|Done/.test(l))).toEqual(['Basketball']);
    await h.press(ALICE, last(), h.button(last(), 'Basketball'));
    expect(last().text).toContain('Selected (1): Basketball');
    await h.say(ALICE, 'tenis');
    const guess = h.sent(ALICE.id).at(-2)!;
    expect(guess.text).toContain('Nothing matches “tenis”. Did you mean Tennis? Tap it below');
    expect(last().text).toContain('Search: “tenis”');
    await h.press(ALICE, last(), h.button(last(), 'Tennis'));
    expect(last().text).toContain('Selected (2): Basketball, Tennis');
  });

  it('the one-line sports=bask is offered Basketball', async () => {
    await h.say(ALICE, '/filter arbs_prematch sports=bask');
    expect(last().text).toContain('Did you mean Basketball?');
    expect(writes()).toHaveLength(0);
  });

  it('/book Pinacle → did you mean Pinnacle; nothing changed (en, ru)', async () => {
    await h.say(ALICE, '/book Pinacle max=5');
    expect(last().text).toContain('I know no bookmaker “Pinacle”. Did you mean Pinnacle?');
    await h.say(ALICE, '/books Pinacle');
    expect(last().text).toContain('Did you mean Pinnacle?');
    expect(h.store.getUser(ALICE.id)?.books).toEqual({});
    await h.say(BORIS, '/start');
    await h.say(BORIS, '/book Pinacle max=5');
    expect(last(BORIS).text).toContain('Не знаю букмекера «Pinacle». Может быть, Pinnacle?');
  });

  it('the "did you mean" of the builder in Russian', async () => {
    inRussian();
    await h.say(ALICE, '/filter');
    await h.press(ALICE, last(), h.button(last(), 'Вилки · прематч'));
    await h.say(ALICE, 'Футбл');
    expect(h.sent(ALICE.id).at(-2)?.text).toContain('Ничего не найдено по «Футбл». Может быть, Футбол?');
    // The service's own (English) names search too, as the one-line form reads them in any language.
    await h.say(ALICE, 'footb');
    expect(h.labels(last()).filter((l) => !/Сброс|Все|Готово|Clear|All|Done/.test(l))).toEqual(['Футбол']);
  });
});

describe('#22 one order of sports', () => {
  it('the same for every service and in the edit, whatever the alerts carry', async () => {
    const item = makeItem({ id: 'a1' });
    const of = (id: string, sportId: number) => ({ ...item, id, event: { ...item.event, sportId } });
    const orders: string[][] = [];
    const press = async (label: string) => h.press(ALICE, last(), h.button(last(), label));
    // What the services carry changes between the visits; the order does not.
    const carried = [[10, 10, 6], [6, 14, 14], [5, 8, 8], [2, 7, 7]];
    for (const [i, service] of ['Arbs · prematch', 'Arbs · live', 'Valuebets · prematch'].entries()) {
      h.scheduler.latest.set(ALICE.id, (carried[i] ?? []).map((sport, n) => of(`x${i}${n}`, sport)));
      await h.say(ALICE, '/filter');
      await press(service);
      orders.push(h.labels(last()));
      await h.say(ALICE, '/cancel');
    }
    await h.say(ALICE, '/filter arbs_prematch sports=6');
    h.scheduler.latest.set(ALICE.id, (carried[3] ?? []).map((sport, n) => of(`y${n}`, sport)));
    await h.say(ALICE, '/filters');
    await press('✏️ Edit');
    orders.push(h.labels(last()).map((l) => l.replace('✅ ', '')));
    expect(orders[0]?.slice(0, 8)).toEqual(['Football', 'Ice hockey', 'Baseball', 'Basketball', 'Tennis', 'Volleyball', 'Handball', 'Table tennis']);
    for (const order of orders) expect(order).toEqual(orders[0]);
  });
});

describe('#25 a typed hedge bookmaker is the dictionaries’ one, or confirmed as new', () => {
  const differently = (itemId: string) => encodeAlertAction({ type: 'placedDifferently', service: 'arbs_prematch', itemId })!;

  /** ✏️ on an alert, leg 1 kept, leg 2 refused, "Hedge placed": the hedge's question is open. */
  async function toHedge(russian = false): Promise<void> {
    const user = ALICE;
    if (russian) inRussian();
    h.store.updateUser(user.id, (u) => {
      u.bankroll = 1000;
      u.roundingStep = 5;
    });
    h.scheduler.latest.set(user.id, [makeItem({ id: 'a2' })]);
    const alert = await h.plant(user.id, 'alert', [['✏️', differently('a2')]]);
    await h.press(user, alert, differently('a2'));
    await h.say(user, '2.08 495');
    await h.press(user, last(user), h.button(last(user), russian ? 'Не приняли' : 'Refused'));
    const refusal = h.sent(user.id).find((m) => m.text.startsWith('❌'))!;
    await h.press(user, refusal, h.button(refusal, russian ? 'Перекрытие поставлено' : 'Hedge placed'));
  }
  const hedgeLeg = async () => (await h.store.ledger.book(ALICE.id)).positions[0]!.legs[2]!;

  it('"1.57 628 Marathon" is recorded at Marathonbet', async () => {
    await toHedge();
    await h.say(ALICE, '1.57 628 Marathon');
    expect(await hedgeLeg()).toMatchObject({ status: 'placed', bookmaker: 'Marathonbet', odds: 1.57, stake: 628 });
  });

  it('a near miss gets "did you mean" and records nothing; the listed name then records', async () => {
    await toHedge();
    await h.say(ALICE, '1.57 628 Pinacle');
    expect(last().text).toContain('I know no bookmaker “Pinacle”. Did you mean Pinnacle?');
    expect(last().text).toContain('Nothing was recorded');
    expect((await hedgeLeg()).status).toBe('open');
    await h.say(ALICE, '1.57 628 pinnacle');
    expect(await hedgeLeg()).toMatchObject({ status: 'placed', bookmaker: 'Pinnacle' });
  });

  it('a bookmaker the dictionaries do not have is recorded when the same line is sent again', async () => {
    await toHedge();
    await h.say(ALICE, '1.57 628 Tipsport');
    expect(last().text).toContain('if “Tipsport” is a bookmaker of its own, send the same line again');
    expect((await hedgeLeg()).status).toBe('open');
    await h.say(ALICE, '1.57 628 Tipsport');
    expect(await hedgeLeg()).toMatchObject({ status: 'placed', bookmaker: 'Tipsport' });
  });

  it('in Russian', async () => {
    await toHedge(true);
    await h.say(ALICE, '1.57 628 Tipsport');
    expect(last().text).toContain('если «Tipsport» — отдельный букмекер, пришлите ту же строку ещё раз');
    await h.say(ALICE, '1.57 628 Marathon');
    expect(await hedgeLeg()).toMatchObject({ status: 'placed', bookmaker: 'Marathonbet' });
  });
});

describe('#31 /book values refused with the right words, quoting what was typed', () => {
  const books = (user = ALICE) => h.store.getUser(user.id)?.books;

  it('too large, not positive, beyond the cent: each says which', async () => {
    for (const [line, says] of [
      ['/book pinnacle max=1000000000000', 'max: “1000000000000” is too large (at most 1000000000)'],
      ['/book pinnacle max=0', 'max: “0” is not above zero'],
      ['/book pinnacle step=0.001', 'step: “0.001” goes beyond the cent'],
      ['/book pinnacle commission=75%', '“75%” is not a commission'],
    ] as const) {
      await h.say(ALICE, line);
      expect(last().text, line).toContain(says);
      expect(books(), line).toEqual({});
    }
  });

  it('a max under the step can never stake: refused, with the way out', async () => {
    await h.say(ALICE, '/book pinnacle max=0.5 step=5');
    expect(last().text).toContain('With max 0.50 and step 5, Pinnacle could never take a stake');
    expect(books()).toEqual({});
    await h.say(ALICE, '/book pinnacle step=5');
    await h.say(ALICE, '/book pinnacle max=0.5');
    expect(last().text).toContain('could never take a stake');
    expect(books()).toEqual({ '7': { step: 5 } });
    // The user's own rounding step counts where the bookmaker has none.
    h.store.updateUser(ALICE.id, (u) => {
      u.roundingStep = 10;
    });
    await h.say(ALICE, '/book bwin max=5');
    expect(last().text).toContain('With max 5 and your rounding step 10 (/settings), Bwin could never take a stake');
    await h.say(ALICE, '/book bwin max=5 step=5');
    expect(books()?.['3']).toEqual({ max: 5, step: 5 });
  });

  it('in Russian', async () => {
    await h.say(BORIS, '/start');
    await h.say(BORIS, '/book pinnacle max=1000000000000');
    expect(last(BORIS).text).toContain('max: «1000000000000» — слишком много (не больше 1000000000)');
    await h.say(BORIS, '/book pinnacle max=0.5 step=5');
    expect(last(BORIS).text).toContain('При max 0.50 и шаге 5 у Pinnacle ставка невозможна');
    expect(books(BORIS)).toEqual({});
  });
});
