import { describe, expect, it } from 'vitest';
import { decodeAlertAction } from '../../src/alerts/callbacks.js';
import {
  formatAlert,
  formatCard,
  formatShortLine,
  formatShortTitle,
  TELEGRAM_TEXT_MAX,
  type AlertState,
  type AlertView,
  type RenderedAlert,
} from '../../src/alerts/format.js';
import { namesFor, type Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Leg, Opportunity } from '../../src/service/opportunity.js';

// ---------------------------------------------------------------------------------------------
// Fixtures, by hand.

const NOW = Date.UTC(2026, 0, 3, 10, 0); // Sat 3 Jan 2026 10:00 UTC

function dicts(lang: 'en' | 'ru'): Dictionaries {
  const ru = lang === 'ru';
  return {
    lang,
    bookmakers: { '7': 'Pinnacle', '39': 'Bet365', '3': 'Bwin', '66': '<i>Evil & "Co"</i>' },
    liveBookmakers: [7],
    sports: { '6': ru ? 'Теннис' : 'Tennis', '1': ru ? 'Футбол' : 'Football' },
    oddsGroups: {},
    oddsSections: {},
    oddsTypes: {
      '1': { titleShort: '1', titleFull: ru ? 'П1' : 'Home win', lay: false, sectionId: 1 },
      '2': { titleShort: 'X', titleFull: ru ? 'Ничья' : 'Draw', lay: false, sectionId: 1 },
      '3': { titleShort: '2', titleFull: ru ? 'П2' : 'Away win', lay: false, sectionId: 1 },
      '10': { titleShort: 'TO(%s)', titleFull: 'Total over %s', lay: false, sectionId: 3 },
      '11': { titleShort: 'TU(%s)', titleFull: 'Total under %s', lay: false, sectionId: 3 },
    },
    reflections: {},
  };
}
const names = { en: namesFor(dicts('en'), 'en'), ru: namesFor(dicts('ru'), 'ru') };

const view = (lang: 'en' | 'ru', extra: Partial<AlertView> = {}): AlertView => ({
  lang,
  timeZone: 'Europe/Moscow',
  bankroll: 100,
  roundingStep: 1,
  now: NOW,
  ...extra,
});

function leg(partial: Partial<Leg> & Pick<Leg, 'subEventId' | 'typeId'>): Leg {
  return {
    bookmakerId: 7,
    line: '',
    odds: 2,
    prevOdds: null,
    updatedAt: NOW - 5_000,
    initiator: false,
    ...partial,
  };
}

const arb: Opportunity = {
  id: 'a1',
  service: 'arbs_prematch',
  kind: 'arbs',
  event: {
    id: 'e1',
    sportId: 6,
    league: 'ATP Doha',
    team1: 'Nadal',
    team2: 'Federer',
    startsAt: Date.UTC(2026, 0, 3, 12, 5),
    live: false,
  },
  legs: [
    leg({ subEventId: 's1', bookmakerId: 7, typeId: 1, odds: 2.1, prevOdds: 2.05, initiator: true }),
    leg({ subEventId: 's2', bookmakerId: 39, typeId: 3, odds: 2.0 }),
  ],
  profit: 2.44,
  middleProfit: null,
  overvalue: null,
  probability: null,
  createdAt: NOW - 190_000,
  masked: false,
};

const arb3: Opportunity = {
  ...arb,
  id: 'a3',
  event: { ...arb.event, id: 'e3', sportId: 1, league: 'Premier League', team1: 'Arsenal', team2: 'Chelsea' },
  legs: [
    leg({ subEventId: 't1', bookmakerId: 7, typeId: 1, odds: 2.5 }),
    leg({ subEventId: 't2', bookmakerId: 39, typeId: 2, odds: 3.5 }),
    leg({ subEventId: 't3', bookmakerId: 3, typeId: 3, odds: 5.0 }),
  ],
  profit: 12.9,
};

const middle: Opportunity = {
  ...arb,
  id: 'm1',
  service: 'middles_live',
  kind: 'middles',
  event: { ...arb.event, id: 'e2', live: true, startsAt: NOW - 30 * 60_000 },
  legs: [
    leg({ subEventId: 's1', bookmakerId: 7, typeId: 10, line: '2.5', odds: 1.95 }),
    leg({ subEventId: 's2', bookmakerId: 39, typeId: 11, line: '3.5', odds: 1.95 }),
  ],
  profit: -2.5,
  middleProfit: 95,
};

const valuebet: Opportunity = {
  ...arb,
  id: 'v1',
  service: 'valuebets_prematch',
  kind: 'valuebets',
  legs: [leg({ subEventId: 's1', bookmakerId: 7, typeId: 1, odds: 2.1 })],
  profit: null,
  overvalue: 5,
  probability: 0.5,
};

const masked: Opportunity = {
  ...arb,
  id: 'a9',
  masked: true,
  profit: 0,
  legs: arb.legs.map((l) => ({ ...l, odds: null, prevOdds: null })),
};

const ALL = { arb, arb3, middle, valuebet, masked };
const STATES = (item: Opportunity): AlertState[] => [
  { state: 'new' },
  { state: 'moved', prev: item },
  { state: 'gone', livedMs: 250_000, last: item },
];

// ---------------------------------------------------------------------------------------------
// Checks on the HTML itself.

const ALLOWED_TAGS = new Set(['b', 'i', 's', 'code']);

/** Every line opens and closes its own tags (the outbox splits between lines), only known tags, no raw < > &. */
function expectSafeHtml(html: string): void {
  for (const line of html.split('\n')) {
    const stack: string[] = [];
    for (const m of line.matchAll(/<(\/?)([a-z-]+)>/g)) {
      const [, close, tag] = m;
      expect(ALLOWED_TAGS.has(tag ?? ''), `tag <${tag}> in: ${line}`).toBe(true);
      if (close) expect(stack.pop(), `unbalanced in: ${line}`).toBe(tag);
      else stack.push(tag ?? '');
    }
    expect(stack, `unclosed in: ${line}`).toEqual([]);
    const bare = line.replace(/<\/?(b|i|s|code)>/g, '');
    expect(bare, `raw < or > in: ${line}`).not.toMatch(/[<>]/);
    expect(bare, `raw & in: ${line}`).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
  }
}

function expectClean(r: RenderedAlert | string): void {
  const text = typeof r === 'string' ? r : r.text;
  expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
  expect(text).not.toMatch(/NaN|undefined|Infinity|null/);
  expectSafeHtml(text);
  if (typeof r !== 'string') {
    for (const row of r.buttons) {
      expect(row.length).toBeGreaterThan(0);
      for (const b of row) {
        expect(Buffer.byteLength(b.callbackData, 'utf8')).toBeLessThanOrEqual(64);
        expect(decodeAlertAction(b.callbackData)).toBeDefined();
      }
    }
  }
}

const callbackTypes = (r: RenderedAlert) => r.buttons.flat().map((b) => decodeAlertAction(b.callbackData)?.type);

// ---------------------------------------------------------------------------------------------

describe('formatAlert: arbs', () => {
  it('starts with kind, profit and prematch, then the match, start, legs and stakes (en)', () => {
    const r = formatAlert(arb, names.en, view('en'), { state: 'new' });
    const lines = r.text.split('\n');
    expect(lines[0]).toBe('⚖️ <b>Arb +2.44%</b> · prematch');
    expect(lines[1]).toBe('<b>Nadal — Federer</b>');
    expect(lines[2]).toBe('Tennis · ATP Doha');
    // 12:05 UTC is 15:05 in Moscow; 2 h 05 min from 10:00 UTC
    expect(lines[3]).toBe('🕒 Sat 3 Jan 15:05 · in 2 h 05 min');
    // A first message compares with nothing the user saw: the service's earlier odds are not "(was …)" (issue 31 item 4, trial #11).
    expect(r.text).toMatch(/1\) Pinnacle · 1 · <b>2\.10<\/b>(?: · \d+ s)?\n/);
    expect(r.text).not.toMatch(/\(was |[▲▼]/);
    // Each leg ends with its odds' age: updated 5 s before the view's now.
    expect(r.text).toContain('2) Bet365 · 2 · <b>2.00</b> · 5 s\n');
    // The exact solver: +2.00 is the best worst case on the 1-grid (49/51 gives it too), and ties go
    // to the smaller total: 40 × 2.10 = 84.00, 42 × 2.00 = 84.00, 84 − 82 = +2.00 (+2.44 % of 82).
    expect(r.text).toContain('💰 Stakes for bankroll 100 (total 82: more on these steps would not guarantee more):\n1) Pinnacle 40 → 84.00\n2) Bet365 42 → 84.00');
    expect(r.text).toContain('Worst case after rounding: +2.00 (+2.44%)');
    expect(r.text).toContain('Break-even odds: 1) 2.00 · 2) 1.91');
    // The market codes (1, 2) are explained one tap away.
    expect(r.text).toContain('2) Bet365 · 2 · <b>2.00</b> · 5 s\nℹ️ Market codes explained: /glossary\n\n💰');
    expectClean(r);
  });

  it('reads in Russian', () => {
    const r = formatAlert(arb, names.ru, view('ru'), { state: 'new' });
    expect(r.text.split('\n')[0]).toBe('⚖️ <b>Вилка +2.44%</b> · прематч');
    expect(r.text).toContain('Теннис · ATP Doha');
    expect(r.text).toContain('🕒 сб 3 янв 15:05 · через 2 ч 05 мин');
    expect(r.text).not.toContain('было');
    expect(r.text).toContain('💰 Ставки на банк 100 (всего 82: ставки крупнее при этих шагах не дадут большей гарантированной прибыли):');
    expect(r.text).toContain('Худший исход после округления: +2.00 (+2.44%)');
    expect(r.text).toContain('Коэффициенты безубыточности: 1) 2.00 · 2) 1.91');
    expect(r.buttons.flat().map((b) => b.text)).toEqual([
      '📋 Всё по событию',
      '💰 Другая сумма',
      '✏️ Порезали исход',
      '✅ Поставил',
      '✏️ Поставил иначе',
      '🔕 Скрыть событие',
      '😴 Все прематч-вилки · 1 ч',
    ]);
    expectClean(r);
  });

  it('3-way arb, stakes rounded to 10 with the rounding fix, and a currency; the title says the real total', () => {
    // 2.5 / 3.5 / 5.0: 40 / 30 / 20 pays 100 / 105 / 100 → +10 on 90, better than any split of 100 (worst 0).
    const r = formatAlert(arb3, names.en, view('en', { roundingStep: 10, currency: 'EUR' }), { state: 'new' });
    expect(r.text).toContain('💰 Stakes for bankroll 100 EUR (total 90 EUR: more on these steps would not guarantee more):');
    // The currency beside every stake and the worst case, not only the bankroll (issue 30 item 7).
    expect(r.text).toContain('1) Pinnacle 40 EUR → 100.00\n2) Bet365 30 EUR → 105.00\n3) Bwin 20 EUR → 100.00');
    expect(r.text).toContain('Worst case after rounding: +10.00 EUR (+11.11%)');
    expect(r.text).toContain('2) Bet365 · X · <b>3.50</b>');
    expectClean(r);
  });

  it('has the seven buttons, each decoding to the right action', () => {
    const r = formatAlert(arb, names.en, view('en'), { state: 'new' });
    expect(r.buttons.flat().map((b) => b.text)).toEqual([
      '📋 All for this event',
      '💰 Other amount',
      '✏️ Leg limited',
      '✅ Placed',
      '✏️ Placed differently',
      '🔕 Mute event',
      '😴 All prematch arbs · 1 h',
    ]);
    const actions = r.buttons.flat().map((b) => decodeAlertAction(b.callbackData));
    expect(actions).toEqual([
      { type: 'event', service: 'arbs_prematch', eventId: 'e1' },
      { type: 'stakes', service: 'arbs_prematch', itemId: 'a1' },
      { type: 'limited', service: 'arbs_prematch', itemId: 'a1' },
      { type: 'placed', service: 'arbs_prematch', itemId: 'a1' },
      { type: 'placedDifferently', service: 'arbs_prematch', itemId: 'a1' },
      { type: 'mute', service: 'arbs_prematch', eventId: 'e1' },
      { type: 'snooze', service: 'arbs_prematch' },
    ]);
  });

  it('says "✅ Placed" with the stakes, worst case and position number when the user placed it, moved and gone alike', () => {
    const placed = { positionId: '1', kind: 'arbs' as const, stakes: [495, 505], worst: 35.25, refused: 0, open: 0, watchLeg: null, eventStart: null, placedAt: 0 };
    const fresh = formatAlert(arb, names.en, { ...view('en'), placed }, { state: 'new' });
    expect(fresh.text).toContain('<b>✅ Placed 495 / 505 · worst case +35.25 · #1</b>');
    const gone = formatAlert(arb, names.en, { ...view('en'), placed: { ...placed, refused: 1 } }, { state: 'gone', livedMs: 1_000, last: arb });
    expect(gone.text).toContain('<b>✅ Placed 495 / 505 · worst case +35.25 · ❌ 1 refused · #1</b>');
    expect(formatAlert(arb, names.en, view('en'), { state: 'new' }).text).not.toContain('Placed');
  });

  it('leaves out a button whose callback data would not fit in 64 bytes', () => {
    const longIds: Opportunity = { ...arb, id: 'i'.repeat(80), event: { ...arb.event, id: 'e'.repeat(80) } };
    const r = formatAlert(longIds, names.en, view('en'), { state: 'new' });
    expect(callbackTypes(r)).toEqual(['snooze']);
    expectClean(r);
  });

  it('names unknown bookmakers and sports readably', () => {
    const unknown: Opportunity = {
      ...arb,
      event: { ...arb.event, sportId: 77 },
      legs: [{ ...arb.legs[0]!, bookmakerId: 999 }, { ...arb.legs[1]!, bookmakerId: undefined }],
    };
    const en = formatAlert(unknown, names.en, view('en'), { state: 'new' }).text;
    expect(en).toContain('1) bookmaker #999 · 1');
    expect(en).toContain('2) bookmaker ? · 2');
    expect(en).toContain('sport #77 · ATP Doha');
    const ru = formatAlert(unknown, names.ru, view('ru'), { state: 'new' }).text;
    expect(ru).toContain('1) букмекер #999 · 1');
    expect(ru).toContain('спорт #77 · ATP Doha');
  });

  it('computes the headline from the odds when the service sent no profit', () => {
    const r = formatAlert({ ...arb, profit: null }, names.en, view('en'), { state: 'new' });
    expect(r.text.split('\n')[0]).toBe('⚖️ <b>Arb +2.44%</b> · prematch');
  });

  it('says plainly when stakes cannot be computed, never NaN', () => {
    const broken: Opportunity = { ...arb, legs: [{ ...arb.legs[0]!, odds: 1 }, arb.legs[1]!] };
    const r = formatAlert(broken, names.en, view('en'), { state: 'new' });
    expect(r.text).toContain('<i>Stakes cannot be computed from these odds.</i>');
    expectClean(r);
    const poor = formatAlert(arb3, names.ru, view('ru', { bankroll: 10, roundingStep: 10 }), { state: 'new' });
    expect(poor.text).toContain('Банк слишком мал для этих ставок при таком шаге округления.');
    expectClean(poor);
  });

  it('prints no stakes for odds that are no arb, and says so', () => {
    const lopsided: Opportunity = {
      ...arb3,
      legs: arb3.legs.map((l, i) => ({ ...l, odds: [1.5, 1.8, 10][i] ?? 2 })),
      profit: null,
    };
    const r = formatAlert(lopsided, names.en, view('en'), { state: 'new' });
    expect(r.text).toContain('No stakes on your steps and limits give a guaranteed profit here');
    expect(r.text).not.toContain('💰 Stakes');
    expectClean(r);
  });

});

describe('formatAlert: middles and valuebets', () => {
  it('middle: hit and miss in the headline, outcomes for the stakes, live', () => {
    const r = formatAlert(middle, names.en, view('en'), { state: 'new' });
    expect(r.text.split('\n')[0]).toBe('🎯 <b>Middle: hit +95.00%, miss −2.50%</b> · 🔴 live');
    expect(r.text).toContain('🕒 Sat 3 Jan 12:30 · live');
    expect(r.text).toContain('1) Pinnacle · TO(2.5) · <b>1.95</b>');
    expect(r.text).toContain('2) Bet365 · TU(3.5) · <b>1.95</b>');
    expect(r.text).toContain('1) Pinnacle 50 → 97.50\n2) Bet365 50 → 97.50');
    expect(r.text).toContain('If the middle hits: +95.00 (+95.00%)');
    expect(r.text).toContain('If it misses: −2.50 (−2.50%)');
    expect(decodeAlertAction(r.buttons[0]?.[0]?.callbackData)).toEqual({
      type: 'event',
      service: 'middles_live',
      eventId: 'e2',
    });
    expectClean(r);
    const ru = formatAlert(middle, names.ru, view('ru'), { state: 'new' }).text;
    expect(ru.split('\n')[0]).toBe('🎯 <b>Коридор: попадание +95.00%, промах −2.50%</b> · 🔴 лайв');
    expect(ru).toContain('Если коридор зайдёт: +95.00 (+95.00%)');
    expect(ru).toContain('Если не зайдёт: −2.50 (−2.50%)');
  });

  it('valuebet: overvalue in the headline, EV, full Kelly and the quarter-Kelly stake', () => {
    const r = formatAlert(valuebet, names.en, view('en', { bankroll: 1000, roundingStep: 5 }), { state: 'new' });
    expect(r.text.split('\n')[0]).toBe('💎 <b>Value bet +5.00%</b> · prematch');
    expect(r.text).toContain('📈 EV +5.00% · fair odds 2.00');
    // f* = 0.05/1.1 = 4.55 %; quarter × 1000 = 11.36 → 10 at step 5
    expect(r.text).toContain('Kelly 4.55% of bankroll · ¼ Kelly stake: 10');
    expectClean(r);
    const ru = formatAlert(valuebet, names.ru, view('ru'), { state: 'new' }).text;
    expect(ru.split('\n')[0]).toBe('💎 <b>Валуй +5.00%</b> · прематч');
    expect(ru).toContain('Келли 4.55% банка · ставка ¼ Келли: 1');
  });

  it('valuebet without probability uses the overvalue; without an edge it says not to stake', () => {
    const onlyOvervalue = formatAlert({ ...valuebet, probability: null }, names.en, view('en'), { state: 'new' });
    expect(onlyOvervalue.text).toContain('📈 EV +5.00% · fair odds 2.00');
    const noEdge: Opportunity = { ...valuebet, overvalue: -5, probability: null };
    const r = formatAlert(noEdge, names.en, view('en'), { state: 'new' });
    expect(r.text).toContain('Kelly: no stake, no edge at these odds');
    const tiny = formatAlert(valuebet, names.en, view('en', { bankroll: 10, roundingStep: 5 }), { state: 'new' });
    expect(tiny.text).toContain('¼ Kelly is below one rounding step');
    const nothing = formatAlert({ ...valuebet, overvalue: null, probability: null }, names.en, view('en'), {
      state: 'new',
    });
    expect(nothing.text.split('\n')[0]).toBe('💎 <b>Value bet</b> · prematch');
    expect(nothing.text).toContain('EV cannot be computed: the service gave no probability or overvalue.');
    for (const x of [onlyOvervalue, r, tiny, nothing]) expectClean(x);
  });
});

describe('formatAlert: every number from the odds it shows', () => {
  it('the issue\'s middle: 1.88 / 1.95 with the service\'s value +1.00 reads miss −4.28 %, never +1.00 %', () => {
    // Σ 1/o = 0.531915 + 0.512821 = 1.044736; miss 1/Σ − 1 = −4.28 %, hit 2/Σ − 1 = +91.44 %.
    // Stakes 51 / 49 pay 95.88 / 95.55: hit 191.43 − 100 = +91.43, miss 95.55 − 100 = −4.45.
    const issue: Opportunity = {
      ...middle,
      profit: 1,
      middleProfit: 91.44,
      legs: [{ ...middle.legs[0]!, odds: 1.88 }, { ...middle.legs[1]!, odds: 1.95 }],
    };
    for (const text of [
      formatAlert(issue, names.en, view('en'), { state: 'new' }).text,
      formatCard(issue, names.en, view('en')),
      formatShortLine(issue, names.en, view('en')),
    ]) {
      expect(text).toContain('Middle: hit +91.44%, miss −4.28%');
      expect(text).not.toContain('+1.00%');
    }
    const r = formatAlert(issue, names.en, view('en'), { state: 'new' }).text;
    expect(r).toContain('💰 Stakes for bankroll 100:\n1) Pinnacle 51 → 95.88\n2) Bet365 49 → 95.55');
    expect(r).toContain('If the middle hits: +91.43 (+91.43%)');
    expect(r).toContain('If it misses: −4.45 (−4.45%)');
  });

  it('the issue\'s arb 1.80 / 2.53: stakes 58 / 41 and the title says total 99 (never 59 + 42 = 101 "for 100")', () => {
    // 1/(1/1.8 + 1/2.53) − 1 = +5.17 %; 58 × 1.8 = 104.40, 41 × 2.53 = 103.73; worst 103.73 − 99 = +4.73 (4.78 %).
    // break-even: 1/(1 − 1/2.53) = 1.654, 1/(1 − 1/1.8) = 2.25.
    const item: Opportunity = { ...arb, profit: 5.17, legs: [{ ...arb.legs[0]!, odds: 1.8, prevOdds: null }, { ...arb.legs[1]!, odds: 2.53 }] };
    const en = formatAlert(item, names.en, view('en'), { state: 'new' }).text;
    expect(en.split('\n')[0]).toBe('⚖️ <b>Arb +5.17%</b> · prematch');
    // The exact solver beats that floor/ceil split: 56 × 1.8 = 100.80, 40 × 2.53 = 101.20, 100.80 − 96 = +4.80 (5.00 %).
    expect(en).toContain('💰 Stakes for bankroll 100 (total 96: more on these steps would not guarantee more):\n1) Pinnacle 56 → 100.80\n2) Bet365 40 → 101.20');
    expect(en).toContain('Worst case after rounding: +4.80 (+5.00%)');
    expect(en).toContain('Break-even odds: 1) 1.66 · 2) 2.25');
    const ru = formatAlert(item, names.ru, view('ru'), { state: 'new' }).text;
    expect(ru).toContain('💰 Ставки на банк 100 (всего 96: ставки крупнее при этих шагах не дадут большей гарантированной прибыли):');
  });

  it('never stakes more than the bankroll: one step per leg that does not fit is said plainly', () => {
    // 3 × 3.10 on 20, step 10: a step each would be 30.
    const item: Opportunity = { ...arb3, profit: null, legs: arb3.legs.map((l) => ({ ...l, odds: 3.1 })) };
    const en = formatAlert(item, names.en, view('en', { bankroll: 20, roundingStep: 10 }), { state: 'new' }).text;
    expect(en).toContain('The bankroll is too small for these stakes at this rounding step.');
    expect(en).not.toContain('💰 Stakes');
  });

  it('computes with the odds as printed: 2.1049 / 2.0 is shown and counted as 2.105 / 2.00', () => {
    // 1/(1/2.105 + 1/2) − 1 = 1/0.975059 − 1 = +2.56 %. On 200: 97 / 102 (199) pays 97 × 2.105 = 204.185 → 204.19
    // (cents, half up; 97 × 2.1049 would be 204.18) and 204 → worst +5.00; 97 / 103 → +4.19; 98 / 102 → +4.00.
    const item: Opportunity = { ...arb, legs: [{ ...arb.legs[0]!, odds: 2.1049, prevOdds: null }, arb.legs[1]!] };
    const en = formatAlert(item, names.en, view('en', { bankroll: 200 }), { state: 'new' }).text;
    expect(en).toContain('<b>2.105</b>');
    expect(en.split('\n')[0]).toBe('⚖️ <b>Arb +2.56%</b> · prematch');
    // +5.00 is the best worst case on the 1-grid; the smallest total giving it: 96 × 2.105 = 202.08, 101 × 2 = 202.00.
    expect(en).toContain('💰 Stakes for bankroll 200 (total 197: more on these steps would not guarantee more):\n1) Pinnacle 96 → 202.08\n2) Bet365 101 → 202.00');
    expect(en).toContain('Worst case after rounding: +5.00 (+2.54%)');
  });

  it('a valuebet\'s EV and Kelly come from the fair odds it prints: 1.15 / 1.111 − 1 = +3.51 %', () => {
    // p 0.9 prints fair odds 1/0.9 = 1.111; with them EV = 1.15/1.111 − 1 = +3.51 % (not 1.15 × 0.9 − 1 = +3.50 %).
    // Kelly with p = 1/1.111 = 0.900090, b = 0.15: (0.15 × 0.900090 − 0.099910) / 0.15 = 23.40 %;
    // a quarter of it on 100 is 5.85 → 6 at step 1.
    const item: Opportunity = { ...valuebet, overvalue: 3.5, probability: 0.9, legs: [{ ...valuebet.legs[0]!, odds: 1.15 }] };
    const en = formatAlert(item, names.en, view('en'), { state: 'new' }).text;
    expect(en.split('\n')[0]).toBe('💎 <b>Value bet +3.51%</b> · prematch');
    expect(en).toContain('📈 EV +3.51% · fair odds 1.111');
    expect(en).toContain('Kelly 23.40% of bankroll · ¼ Kelly stake: 6');
  });
});

describe('formatAlert: masked data', () => {
  it('labels the service\'s figures when the odds are hidden (en, ru), in the alert, card and short line', () => {
    const arbHidden: Opportunity = { ...masked, profit: 2.35 };
    expect(formatAlert(arbHidden, names.en, view('en'), { state: 'new' }).text.split('\n')[0]).toBe(
      "⚖️ <b>Arb +2.35% (service&#39;s figure)</b> · prematch",
    );
    expect(formatShortTitle(arbHidden, names.ru, view('ru'))).toBe('⚖️ Вилка +2.35% (данные сервиса) · Nadal — Federer · сб 3 янв 15:05');
    const middleHidden: Opportunity = {
      ...middle,
      masked: true,
      profit: 1,
      middleProfit: 91.44,
      legs: middle.legs.map((l) => ({ ...l, odds: null })),
    };
    expect(formatShortTitle(middleHidden, names.en, view('en'))).toBe(
      "🎯 Middle: value +1.00%, middle value +91.44% (service's figures) · Nadal — Federer · 🔴 live",
    );
    expect(formatCard(middleHidden, names.ru, view('ru')).split('\n')[0]).toBe(
      '🎯 <b>Коридор: значение +1.00%, значение коридора +91.44% (данные сервиса)</b> · 🔴 лайв',
    );
    const valueHidden: Opportunity = { ...valuebet, masked: true, probability: null, legs: valuebet.legs.map((l) => ({ ...l, odds: null })) };
    expect(formatShortTitle(valueHidden, names.en, view('en'))).toBe(
      "💎 Value bet +5.00% (service's figure) · Nadal — Federer · Sat 3 Jan 15:05",
    );
    // An edit of a masked middle compares the service's figures with the service's figures.
    const moved = formatAlert({ ...middleHidden, profit: 1.5 }, names.en, view('en'), { state: 'moved', prev: middleHidden }).text;
    expect(moved).toContain('✏️ Changed: value +1.00% → +1.50%');
  });


  it('says the odds are hidden instead of showing 0.00, and offers no stakes button (en, ru)', () => {
    const en = formatAlert(masked, names.en, view('en'), { state: 'new' });
    expect(en.text.split('\n')[0]).toBe('⚖️ <b>Arb</b> · prematch');
    expect(en.text).toContain('1) Pinnacle · 1 · <i>odds hidden</i>');
    expect(en.text).toContain('🔒 Odds hidden: your plan does not include them.');
    expect(en.text).not.toMatch(/0\.00|Stakes for/);
    expect(callbackTypes(en)).toEqual(['event', 'mute', 'snooze']);
    expectClean(en);
    const ru = formatAlert(masked, names.ru, view('ru'), { state: 'new' });
    expect(ru.text).toContain('<i>коэффициент скрыт</i>');
    expect(ru.text).toContain('🔒 Коэффициенты скрыты: ваш тариф их не включает.');
    expect(ru.text).not.toMatch(/0\.00/);
    expectClean(ru);
  });

  it('a masked valuebet and middle read the same way', () => {
    for (const item of [valuebet, middle]) {
      const hidden: Opportunity = {
        ...item,
        masked: true,
        profit: item.profit === null ? null : 0,
        middleProfit: item.middleProfit === null ? null : 0,
        overvalue: item.overvalue === null ? null : 0,
        probability: null,
        legs: item.legs.map((l) => ({ ...l, odds: null })),
      };
      const r = formatAlert(hidden, names.en, view('en'), { state: 'new' });
      expect(r.text).toContain('Odds hidden: your plan does not include them.');
      expect(r.text).not.toMatch(/0\.00/);
      expectClean(r);
    }
  });
});

describe('formatAlert: moved and gone', () => {
  // The service's profit (3.1) disagrees with the odds: the alert shows what 2.15 / 2.00 give,
  // 1 / (1/2.15 + 1/2) − 1 = 1 / 0.965116 − 1 = +3.61 %.
  const movedArb: Opportunity = {
    ...arb,
    profit: 3.1,
    legs: [{ ...arb.legs[0]!, odds: 2.15, prevOdds: 2.1 }, arb.legs[1]!],
  };

  it('moved: marks the changed leg and the profit change, leaves the others unmarked', () => {
    const r = formatAlert(movedArb, names.en, view('en'), { state: 'moved', prev: arb });
    expect(r.text.split('\n')[0]).toBe('⚖️ <b>Arb +3.61% ▲</b> · prematch');
    expect(r.text).toContain('✏️ Changed: +2.44% → +3.61%');
    expect(r.text).toContain('1) Pinnacle · 1 · <b>2.15</b> ▲ (was 2.10)');
    // Each leg ends with its odds' age: updated 5 s before the view's now.
    expect(r.text).toContain('2) Bet365 · 2 · <b>2.00</b> · 5 s\n');
    expect(callbackTypes(r)).toEqual(['event', 'stakes', 'limited', 'placed', 'placedDifferently', 'mute', 'snooze']);
    expectClean(r);
  });

  it('moved down reads ▼ in Russian', () => {
    const r = formatAlert(arb, names.ru, view('ru'), { state: 'moved', prev: movedArb });
    expect(r.text.split('\n')[0]).toBe('⚖️ <b>Вилка +2.44% ▼</b> · прематч');
    expect(r.text).toContain('✏️ Изменилось: +3.61% → +2.44%');
    expect(r.text).toContain('1) Pinnacle · 1 · <b>2.10</b> ▼ (было 2.15)');
  });

  it('moved without a change in the numbers has no "Changed" line', () => {
    const r = formatAlert(arb, names.en, view('en'), { state: 'moved', prev: arb });
    expect(r.text).not.toContain('Changed');
    expect(r.text).not.toMatch(/[▲▼]/);
  });

  it('moved middle lists each headline number that moved, computed from the odds before and after', () => {
    // 1.95 / 1.95 → 2.00 / 1.95: Σ 1/o = 0.5 + 0.512821 = 1.012821; miss 1/Σ − 1 = −1.27 %, hit 2/Σ − 1 = +97.47 %.
    // The service's own figures (−1.5, 96) are not what these odds give, so they are not shown.
    const after: Opportunity = { ...middle, profit: -1.5, middleProfit: 96, legs: [{ ...middle.legs[0]!, odds: 2 }, middle.legs[1]!] };
    const r = formatAlert(after, names.en, view('en'), { state: 'moved', prev: middle });
    expect(r.text.split('\n')[0]).toBe('🎯 <b>Middle: hit +97.47% ▲, miss −1.27% ▲</b> · 🔴 live');
    expect(r.text).toContain('✏️ Changed: hit +95.00% → +97.47%; miss −2.50% → −1.27%');
    expect(r.text).toContain('1) Pinnacle · TO(2.5) · <b>2.00</b> ▲ (was 1.95)');
  });

  it('a service figure that moves without the odds moving is no change (the alert shows what the odds give)', () => {
    const after: Opportunity = { ...middle, profit: -1.5, middleProfit: 96 };
    const r = formatAlert(after, names.en, view('en'), { state: 'moved', prev: middle });
    expect(r.text.split('\n')[0]).toBe('🎯 <b>Middle: hit +95.00%, miss −2.50%</b> · 🔴 live');
    expect(r.text).not.toContain('Changed');
  });

  it('gone: prefixed with how long it lived, struck through, no stakes and no stake or snooze buttons', () => {
    const r = formatAlert(arb, names.en, view('en'), { state: 'gone', livedMs: 250_000, last: arb });
    const lines = r.text.split('\n');
    expect(lines[0]).toBe('<b>⛔ Gone after 4 min 10 s</b>');
    for (const line of lines.slice(1).filter((l) => l !== '')) expect(line).toMatch(/^<s>.*<\/s>$/);
    expect(r.text).toContain('<s>⚖️ <b>Arb +2.44%</b> · prematch</s>');
    expect(r.text).not.toContain('Stakes');
    expect(callbackTypes(r)).toEqual(['event', 'mute']);
    expectClean(r);
    const ru = formatAlert(middle, names.ru, view('ru'), { state: 'gone', livedMs: 65_000, last: middle });
    expect(ru.text.split('\n')[0]).toBe('<b>⛔ Коридор пропал через 1 мин 5 с</b>');
    expectClean(ru);
  });
});

describe('hostile names', () => {
  const hostile: Opportunity = {
    ...arb,
    id: 'x<1>',
    event: {
      ...arb.event,
      league: '<script>alert("x")</script> & co',
      team1: '<b>Evil</b>',
      team2: `A & B "C" 'D'`,
    },
    legs: [{ ...arb.legs[0]!, bookmakerId: 66, line: '<2.5>' , typeId: 10 }, arb.legs[1]!],
  };

  it('escapes every interpolated value in alerts, cards and short lines', () => {
    for (const lang of ['en', 'ru'] as const) {
      for (const state of STATES(hostile)) {
        const r = formatAlert(hostile, names[lang], view(lang), state);
        expect(r.text).not.toContain('<b>Evil');
        expect(r.text).not.toContain('<script>');
        expect(r.text).toContain('&lt;b&gt;Evil&lt;/b&gt;');
        expect(r.text).toContain('A &amp; B &quot;C&quot; &#39;D&#39;');
        expect(r.text).toContain('&lt;i&gt;Evil &amp; &quot;Co&quot;&lt;/i&gt;');
        expect(r.text).toContain('TO(&lt;2.5&gt;)');
        expectClean(r);
      }
      const card = formatCard(hostile, names[lang], view(lang));
      expect(card).toContain('<code>x&lt;1&gt;</code>');
      expectClean(card);
      const line = formatShortLine(hostile, names[lang], view(lang));
      expect(line).toContain('&lt;b&gt;Evil&lt;/b&gt; — A &amp; B');
      expectClean(line);
    }
  });

  it('stays within 4096 characters with huge names and many legs, with valid HTML on every line', () => {
    const huge = '&"<'.repeat(4000);
    const monster: Opportunity = {
      ...arb,
      event: { ...arb.event, league: huge, team1: huge, team2: huge },
      legs: Array.from({ length: 40 }, (_, i) =>
        leg({ subEventId: `s${i}`, bookmakerId: 66, typeId: 10, line: huge, odds: 40 + i }),
      ),
      profit: null,
    };
    for (const lang of ['en', 'ru'] as const) {
      for (const state of STATES(monster)) {
        const r = formatAlert(monster, names[lang], view(lang), state);
        expect(r.text.length).toBeLessThanOrEqual(4096);
        expectClean(r);
      }
      expectClean(formatCard(monster, names[lang], view(lang)));
    }
    const r = formatAlert(monster, names.en, view('en'), { state: 'new' });
    expect(r.text.split('\n')[0]).toMatch(/^⚖️ <b>Arb/);
    // legs and stakes are cut to what fits, saying how many were left out; the worst case stays
    expect(r.text).toMatch(/^… and \d+ more$/m);
    expect(r.text).toContain('Worst case after rounding: ');
  });
});

describe('every fixture, every state, both languages', () => {
  it('is within 4096 characters, valid HTML, without NaN/undefined, buttons ≤ 64 bytes', () => {
    for (const item of Object.values(ALL)) {
      for (const lang of ['en', 'ru'] as const) {
        for (const state of STATES(item)) expectClean(formatAlert(item, names[lang], view(lang), state));
        expectClean(formatCard(item, names[lang], view(lang)));
        const line = formatShortLine(item, names[lang], view(lang));
        expect(line).not.toContain('\n');
        expectClean(line);
      }
    }
  });

  it('works without dictionaries (names fall back to ids)', () => {
    const r = formatAlert(arb, namesFor(undefined, 'en'), view('en'), { state: 'new' });
    expect(r.text).toContain('1) bookmaker #7 · market #1 · <b>2.10</b>');
    expect(r.text).toContain('sport #6 · ATP Doha');
    expectClean(r);
  });
});

describe('stakes name what they are for', () => {
  it('an amount the user typed is said as that amount, never as the bankroll; Kelly names the bankroll', () => {
    const card = formatCard(arb, names.en, view('en', { bankroll: 250, roundingStep: 5, otherAmount: true }));
    expect(card).toContain('💰 Stakes for 250 (total 205: more on these steps would not guarantee more):');
    expect(card).not.toContain('bankroll 250');
    const en = formatAlert(valuebet, names.en, view('en', { bankroll: 1000 }), { state: 'new' }).text;
    expect(en).toMatch(/¼ Kelly stake: \d+ for bankroll 1000$/m);
    const ru = formatAlert(valuebet, names.ru, view('ru', { bankroll: 1000 }), { state: 'new' }).text;
    expect(ru).toMatch(/ставка ¼ Келли: \d+ при банке 1000$/m);
    expect(formatAlert(arb, names.ru, view('ru'), { state: 'new' }).text).toContain('ℹ️ Что значат обозначения: /glossary');
  });

  it('break-even odds have the precision of the odds: two decimals beside two, three beside three', () => {
    const three: Opportunity = { ...arb, legs: arb.legs.map((l, i) => (i === 0 ? { ...l, odds: 2.105 } : l)) };
    const line = (o: Opportunity) => formatAlert(o, names.en, view('en'), { state: 'new' }).text.split('\n').find((l) => l.startsWith('Break-even odds'));
    expect(line(arb)).toMatch(/^Break-even odds: 1\) \d\.\d{2} · 2\) \d\.\d{2}$/);
    expect(line(three)).toMatch(/^Break-even odds: 1\) \d\.\d{3} · 2\) \d\.\d{3}$/);
  });
});

describe('freshness lines', () => {
  it('reads ages at render time: an edit a minute later shows the ages then, ⚠️ past the limit; gone alerts show none', () => {
    const staleAfter = { liveMs: 60_000, prematchMs: 30_000 };
    const sent = formatAlert(arb, names.en, view('en', { staleAfter, foundAt: NOW }), { state: 'new' });
    expect(sent.text).toContain('2) Bet365 · 2 · <b>2.00</b> · 5 s\n');
    expect(sent.text.split('\n').at(-1)).toBe('⏱ Found \u{E000}\u{E001} before sending');
    const edited = formatAlert(arb, names.en, view('en', { staleAfter, now: NOW + 60_000 }), { state: 'moved', prev: arb });
    expect(edited.text).toContain('2) Bet365 · 2 · <b>2.00</b> · ⚠️ 1 min 5 s\n');
    // An edit is not a send: no send delay.
    expect(edited.text).not.toContain('⏱');
    const gone = formatAlert(arb, names.en, view('en', { now: NOW + 60_000 }), { state: 'gone', livedMs: 60_000, last: arb });
    expect(gone.text).not.toMatch(/· \d+ s<\/s>|· 1 min/);
    // A card: ages too, in Russian in its words.
    expect(formatCard(arb, names.ru, view('ru', { staleAfter }))).toContain('<b>2.00</b> · 5 с\n');
  });
});

describe('formatCard', () => {
  it('is the alert content for the given bankroll plus id, service and age', () => {
    const card = formatCard(arb, names.en, view('en', { bankroll: 250, roundingStep: 5 }));
    expect(card.split('\n')[0]).toBe('⚖️ <b>Arb +2.44%</b> · prematch');
    // 2.10 / 2.00 on 250, step 5: +5 is the best worst case (120 / 125 → 252 / 250 on 245 gives it too);
    // the smallest total with it: 100 / 105 → 210 / 210 on 205.
    expect(card).toContain('💰 Stakes for bankroll 250 (total 205: more on these steps would not guarantee more):\n1) Pinnacle 100 → 210.00\n2) Bet365 105 → 210.00');
    expect(card.split('\n').at(-1)).toBe('🆔 <code>a1</code> · event <code>e1</code> · arbs_prematch · found 3 min 10 s ago');
    const ru = formatCard(valuebet, names.ru, view('ru'));
    expect(ru.split('\n').at(-1)).toBe('🆔 <code>v1</code> · событие <code>e1</code> · valuebets_prematch · найдено 3 мин 10 с назад');
    expect(ru).toContain('📈 EV +5.00% · честный коэффициент 2.00');
  });

  it('leaves out the age when the service gave no creation time', () => {
    const card = formatCard({ ...arb, createdAt: undefined }, names.en, view('en'));
    expect(card.split('\n').at(-1)).toBe('🆔 <code>a1</code> · event <code>e1</code> · arbs_prematch');
  });
});

describe('formatShortLine', () => {
  it('is one line: kind and number, teams, start', () => {
    expect(formatShortLine(arb, names.en, view('en'))).toBe('⚖️ Arb +2.44% · Nadal — Federer · Sat 3 Jan 15:05');
    expect(formatShortLine(arb, names.ru, view('ru'))).toBe('⚖️ Вилка +2.44% · Nadal — Federer · сб 3 янв 15:05');
    expect(formatShortLine(middle, names.en, view('en'))).toBe(
      '🎯 Middle: hit +95.00%, miss −2.50% · Nadal — Federer · 🔴 live',
    );
    expect(formatShortLine(masked, names.en, view('en'))).toBe('⚖️ Arb · Nadal — Federer · Sat 3 Jan 15:05');
  });

  it('formatShortTitle is the same line as plain text', () => {
    const item: Opportunity = { ...arb, event: { ...arb.event, team1: 'A & B', team2: '<C>' } };
    expect(formatShortLine(item, names.en, view('en'))).toContain('A &amp; B — &lt;C&gt;');
    expect(formatShortTitle(item, names.en, view('en'))).toBe('⚖️ Arb +2.44% · A & B — <C> · Sat 3 Jan 15:05');
  });
});
