/**
 * Exchange legs and commission in the alert (issue 22, items 2 and 5): a lay leg is printed as the
 * exchange shows it (lay stake, liability, lay odds) and priced as a lay bet; a commission changes
 * the effective odds, the headline ("after commission"), the stakes, returns, worst case and
 * break-even odds; a default exchange commission is flagged; caps are respected and named in the
 * title; a service figure that disagrees with the odds is shown beside them. Every expected number
 * is worked out in the comments from the formulas of stake-maths.md §2.
 */
import { describe, expect, it } from 'vitest';
import { formatAlert, formatCard, formatShortLine, type AlertView } from '../../src/alerts/format.js';
import { namesFor, type Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Leg, Opportunity } from '../../src/service/opportunity.js';

const NOW = Date.UTC(2026, 0, 3, 10, 0);

const dicts = (lang: 'en' | 'ru'): Dictionaries => ({
  lang,
  bookmakers: { '9': 'Sbobet', '31': lang === 'ru' ? 'Betfair Биржа' : 'Betfair Exchange', '40': 'Matchbook', '85': 'Betano', '10': 'Betfair Sportsbook' },
  liveBookmakers: [],
  sports: { '1': 'Football' },
  oddsGroups: {},
  oddsSections: {},
  oddsTypes: {
    '1': { titleShort: '1', titleFull: 'Home win', lay: false, sectionId: 1 },
    '3': { titleShort: '2', titleFull: 'Away win', lay: false, sectionId: 1 },
    '21': { titleShort: 'Lay 1', titleFull: 'Lay: home win', lay: true, sectionId: 1 },
  },
  reflections: {},
});
const names = { en: namesFor(dicts('en'), 'en'), ru: namesFor(dicts('ru'), 'ru') };

const leg = (i: number, bookmakerId: number, typeId: number, odds: number): Leg => ({
  subEventId: `s${i}`,
  bookmakerId,
  typeId,
  line: '',
  odds,
  prevOdds: null,
  updatedAt: NOW,
  initiator: i === 0,
});

const arb = (legs: Leg[], profit: number | null): Opportunity => ({
  id: 'x1',
  service: 'arbs_prematch',
  kind: 'arbs',
  event: { id: 'e1', sportId: 1, league: 'L', team1: 'A', team2: 'B', startsAt: NOW + 3_600_000, live: false },
  legs,
  profit,
  middleProfit: null,
  overvalue: null,
  probability: null,
  createdAt: NOW,
  masked: false,
});

const view = (extra: Partial<AlertView> = {}): AlertView => ({ lang: 'en', timeZone: 'UTC', bankroll: 300, roundingStep: 5, now: NOW, ...extra });

describe('a back/lay arb with a Betfair Exchange lay leg', () => {
  // Back 2.20 at Sbobet, lay 2.10 on Betfair Exchange at its default 5 %.
  // Lay as a back of "not home": 1 + 0.95/1.10 = 1.863636; Σ 1/o = 1/2.2 + 1/1.863636 = 0.991133 → +0.89 %.
  // Before commission: 1/2.2 + 1/(1 + 1/1.1) = 0.454545 + 0.52381 = 0.978355 → +2.21 %.
  const item = arb([leg(0, 9, 1, 2.2), leg(1, 31, 21, 2.1)], 2.21);

  it('shows the lay stake, the liability and the profit after 5 % commission, to the cent', () => {
    const text = formatAlert(item, names.en, view(), { state: 'new' }).text;
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +0.89% after commission</b> · prematch');
    // effective lay odds (zero-commission equivalent): (2.10 − 0.05)/0.95 = 2.157894… printed to five decimals
    expect(text).toContain('2) Betfair Exchange · Lay 1 · <b>2.10</b> → 2.15789 after 5% commission');
    // back 135 → 135 × 2.2 = 297.00; lay 144.87: liability 144.87 × 1.1 = 159.357 → 159.36,
    // wins 144.87 × 0.95 = 137.6265 → 137.63, returns 159.36 + 137.63 = 296.99; total 135 + 159.36 = 294.36;
    // worst 296.99 − 294.36 = +2.63 (0.89 % of 294.36).
    expect(text).toContain('💰 Stakes for bankroll 300 (total 294.36: more on these steps would not guarantee more):\n1) Sbobet 135 → 297.00\n2) Betfair Exchange lay 144.87 · liability 159.36 → 296.99');
    expect(text).toContain('Worst case after rounding and commission: +2.63 (+0.89%)');
    // break-even: back 1/(1 − 1/1.863636) = 2.158; lay: the back needs 1/(1 − 1/2.2) = 1.8333 → L = 1 + 0.95/0.8333 = 2.14
    expect(text).toContain('Break-even odds: 1) 2.16 · 2) 2.14');
    expect(text).toContain("ℹ️ Commission assumed: Betfair Exchange 5%. Check your account's rate and set it with /book.");
    expect(text).not.toContain('⚠️');
  });

  it('with the user\'s own commission (2 %) the default note goes and the numbers follow', () => {
    const text = formatAlert(item, names.en, view({ books: { '31': { commission: 2 } } }), { state: 'new' }).text;
    // lay: 1 + 0.98/1.1 = 1.890909; Σ = 0.454545 + 0.528846 = 0.983392 → +1.69 % (stake-maths.md 2.3: 1.6889 %)
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +1.69% after commission</b> · prematch');
    expect(text).not.toContain('Commission assumed');
  });

  it('the issue\'s pair 3.83 / lay 3.67 at no commission is +1.15 %, never +87.41 %', () => {
    const pair = arb([leg(0, 9, 1, 3.83), leg(1, 31, 21, 3.67)], 1.15);
    const text = formatAlert(pair, names.en, view({ books: { '31': { commission: 0 } } }), { state: 'new' }).text;
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +1.15%</b> · prematch');
    expect(text).not.toContain('87.41');
    expect(text).not.toContain('after commission');
  });

  it('says "no guaranteed profit" for back 2.00 / lay 2.00 at 5 % (−1.27 %) instead of printing stakes', () => {
    const pair = arb([leg(0, 9, 1, 2.0), leg(1, 31, 21, 2.0)], null);
    const text = formatAlert(pair, names.en, view(), { state: 'new' }).text;
    expect(text.split('\n')[0]).toBe('⚖️ <b>Not an arb for you: −1.27% after commission</b> · prematch');
    expect(text).toContain('No stakes on your steps and limits give a guaranteed profit here');
    expect(text).not.toContain('💰');
  });

  it('shows both figures when the service disagrees with the odds (a misread market)', () => {
    // Arb-Seeker's (back − lay)/lay = 4.76 % is not this pair's profit (+2.21 % before commission).
    const misread = { ...item, profit: 4.76 };
    const text = formatAlert(misread, names.en, view(), { state: 'new' }).text;
    expect(text).toContain('⚠️ The service says +4.76%; these odds give +2.21% before commission. Check the market before betting.');
    const ru = formatAlert(misread, names.ru, view({ lang: 'ru' }), { state: 'new' }).text;
    expect(ru).toContain('⚠️ Сервис пишет +4.76%; по этим коэффициентам выходит +2.21% до комиссии.');
  });

  it('reads in Russian with the same numbers', () => {
    const en = formatAlert(item, names.en, view(), { state: 'new' }).text;
    const ru = formatAlert(item, names.ru, view({ lang: 'ru' }), { state: 'new' }).text;
    expect(ru).toContain('2) Betfair Биржа против 144.87 · ответственность 159.36 → 296.99');
    expect(ru.split('\n')[0]).toBe('⚖️ <b>Вилка +0.89% после комиссии</b> · прематч');
    const nums = (t: string) => t.match(/\d+(?:\.\d+)?/g);
    expect(nums(ru)).toEqual(nums(en));
  });

  it('the card and the digest line use the same maths', () => {
    const card = formatCard(item, names.en, view());
    expect(card).toContain('2) Betfair Exchange lay 144.87 · liability 159.36 → 296.99');
    expect(formatShortLine(item, names.en, view())).toContain('Arb +0.89% after commission');
  });
});

describe('commission on a back leg and a capped leg', () => {
  // 2.10 at Betano (max 300) / 2.05 at Matchbook (default 2 %): 2.05 → 1 + 1.05 × 0.98 = 2.029;
  // Σ = 0.47619 + 0.492854 = 0.969044 → +3.19 % after commission (3.73 % before).
  const item = arb([leg(0, 85, 1, 2.1), leg(1, 40, 3, 2.05)], 3.73);

  it('caps the leg, names the cap in the title and never redistributes its share', () => {
    const text = formatAlert(item, names.en, view({ bankroll: 1000, books: { '85': { max: 300, status: 'limited' } } }), { state: 'new' }).text;
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +3.19% after commission</b> · prematch');
    expect(text).toContain('2) Matchbook · 2 · <b>2.05</b> → 2.029 after 2% commission');
    // 300 × 2.10 = 630.00; 310 at 2.05: 310 + 310 × 1.05 × 0.98 = 310 + 318.99 = 628.99; worst 628.99 − 610 = +18.99
    // (305 would return 305 + 313.85 = 618.85 → +13.85; 315 → 639.14, min 630 − 615 = +15.00).
    expect(text).toContain('💰 Stakes for bankroll 1000 (total 610: Betano capped at 300):\n1) Betano 300 (capped) → 630.00\n2) Matchbook 310 → 628.99');
    expect(text).toContain('Worst case after rounding and commission: +18.99 (+3.11%)');
  });

  it('a Betfair Sportsbook leg is a bookmaker: no commission assumed', () => {
    const sportsbook = arb([leg(0, 10, 1, 2.1), leg(1, 9, 3, 2.05)], 3.73);
    const text = formatAlert(sportsbook, names.en, view(), { state: 'new' }).text;
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +3.73%</b> · prematch');
    expect(text).not.toContain('commission');
  });
});

describe('the alert for newcomer defects #15 and #39, as the trial met them', () => {
  it('#15: the effective odds are printed as the maths use them: 1.61 at 5 % → 1.5795, and 65 × 1.5795 = 102.67', () => {
    // Alert 10: Betfair Exchange back 1.61 at 5 % against 2.95 at Sbobet, bankroll 100, step 5.
    const item = arb([leg(0, 31, 1, 1.61), leg(1, 9, 3, 2.95)], null);
    const text = formatAlert(item, names.en, view({ bankroll: 100 }), { state: 'new' }).text;
    expect(text).toContain('1) Betfair Exchange · 1 · <b>1.61</b> → 1.5795 after 5% commission');
    // 1/1.5795 + 1/2.95 = 0.972095 → +2.87 %; a calculator fed "1.579" got +2.85 % and 102.64
    expect(text.split('\n')[0]).toBe('⚖️ <b>Arb +2.87% after commission</b> · prematch');
    expect(text).toContain('1) Betfair Exchange 65 → 102.67');
  });

  it('#39: "(total 55)" says which cap limits it although no leg sits at it', () => {
    // Alert 128: Fonbet 1.88 / Bet365 2.256 capped at 30, bankroll 1000, step 5: 30 / 25 gives
    // 56.40 / 56.40 → +1.40; Bet365 at its cap 30 needs Fonbet 35: 65.80 − 65 = +0.80.
    const books = { '9': { max: 30 } };
    const item = arb([leg(0, 85, 1, 1.88), leg(1, 9, 3, 2.256)], null);
    const text = formatAlert(item, names.en, view({ bankroll: 1000, books }), { state: 'new' }).text;
    expect(text).toContain('💰 Stakes for bankroll 1000 (total 55: Sbobet’s max 30 limits the stakes):\n1) Betano 30 → 56.40\n2) Sbobet 25 → 56.40');
    expect(text).toContain('Worst case after rounding: +1.40 (+2.55%)');
    const ru = formatAlert(item, names.ru, view({ lang: 'ru', bankroll: 1000, books }), { state: 'new' }).text;
    expect(ru).toContain('💰 Ставки на банк 1000 (всего 55: ставки ограничивает максимум Sbobet: 30):');
    // and when only the steps keep the total under the bankroll, the title says so
    const steps = formatAlert(arb([leg(0, 85, 1, 2.1), leg(1, 9, 3, 2.0)], null), names.en, view({ bankroll: 100, roundingStep: 1 }), { state: 'new' }).text;
    expect(steps).toContain('💰 Stakes for bankroll 100 (total 82: more on these steps would not guarantee more):');
  });
});
