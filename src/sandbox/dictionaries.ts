/**
 * The sandbox's dictionaries in English and Russian, in the wire layout the Dictionaries API
 * serves (maps keyed by id strings). The ids of bookmakers, sports and sections follow what
 * public sources show (service-api.md §6); the world draws every id it uses from here.
 */

/** Languages served under /dicts/v1/{lang}. */
export const DICT_LANGS = ['en', 'ru'] as const;
export type DictLang = (typeof DICT_LANGS)[number];

/** One odds type (market outcome) as served. `%s` in a title stands for the line. */
export interface WireOddsType {
  title_short: string;
  title_full: string;
  lay: boolean;
  section_id: number;
}

/** The whole dictionaries answer for one language. */
export interface WireDictionaries {
  lang: DictLang;
  bookmakers: Record<string, string>;
  live_bookmakers: number[];
  sports: Record<string, string>;
  odds_groups: Record<string, string>;
  odds_sections: Record<string, string>;
  odds_types: Record<string, WireOddsType>;
  odds_types_reflections: Record<string, number>;
}

type Bilingual = { en: string; ru: string };

const BOOKMAKERS: Record<number, Bilingual> = {
  3: { en: 'Bwin', ru: 'Bwin' },
  5: { en: 'Marathonbet', ru: 'Марафонбет' },
  7: { en: 'Pinnacle', ru: 'Pinnacle' },
  9: { en: 'Sbobet', ru: 'Sbobet' },
  10: { en: 'Betfair Sportsbook', ru: 'Betfair Sportsbook' },
  15: { en: 'Interwetten', ru: 'Interwetten' },
  18: { en: 'Unibet', ru: 'Unibet' },
  21: { en: '1XBet', ru: '1XBet' },
  22: { en: 'Betclic', ru: 'Betclic' },
  25: { en: 'Fonbet', ru: 'Фонбет' },
  31: { en: 'Betfair Exchange', ru: 'Betfair Биржа' },
  39: { en: 'Bet365', ru: 'Bet365' },
  40: { en: 'Matchbook', ru: 'Matchbook' },
  48: { en: 'Betway', ru: 'Betway' },
  52: { en: 'Mostbet', ru: 'Мостбет' },
  85: { en: 'Betano', ru: 'Betano' },
};

/** Bookmaker ids that also offer live odds (the live hosts use only these). */
export const LIVE_BOOKMAKERS: readonly number[] = [3, 5, 7, 9, 18, 21, 25, 31, 39, 48, 52, 85];

/** Every bookmaker id of the dictionary, ascending. */
export const ALL_BOOKMAKERS: readonly number[] = Object.keys(BOOKMAKERS)
  .map(Number)
  .sort((a, b) => a - b);

const SPORTS: Record<number, Bilingual> = {
  1: { en: 'Football', ru: 'Футбол' },
  2: { en: 'Ice Hockey', ru: 'Хоккей' },
  4: { en: 'Volleyball', ru: 'Волейбол' },
  5: { en: 'Basketball', ru: 'Баскетбол' },
  6: { en: 'Tennis', ru: 'Теннис' },
  7: { en: 'Handball', ru: 'Гандбол' },
  8: { en: 'Table Tennis', ru: 'Настольный теннис' },
  10: { en: 'e-Sports', ru: 'Киберспорт' },
  14: { en: 'Futsal', ru: 'Футзал' },
};

const ODDS_GROUPS: Record<number, Bilingual> = {
  1: { en: 'Match', ru: 'Матч' },
  2: { en: '1st half', ru: '1-й тайм' },
  3: { en: '2nd half', ru: '2-й тайм' },
  4: { en: '1st quarter', ru: '1-я четверть' },
  5: { en: '1st set', ru: '1-й сет' },
  6: { en: '1st period', ru: '1-й период' },
  7: { en: 'Corners', ru: 'Угловые' },
  8: { en: 'Cards', ru: 'Карточки' },
};

/** Odds section ids (service-api.md §6). */
export const SECTION = { main: 1, handicaps: 2, totals: 3, itotals: 4, additional: 6 } as const;

const ODDS_SECTIONS: Record<number, Bilingual> = {
  [SECTION.main]: { en: 'Main', ru: 'Основные' },
  [SECTION.handicaps]: { en: 'Handicaps', ru: 'Форы' },
  [SECTION.totals]: { en: 'Totals', ru: 'Тоталы' },
  [SECTION.itotals]: { en: 'Individual totals', ru: 'Индивидуальные тоталы' },
  [SECTION.additional]: { en: 'Additional', ru: 'Дополнительные' },
};

/** Odds type ids the world builds its markets from. */
export const TYPE = {
  home: 1,
  draw: 2,
  away: 3,
  homeOrDraw: 4,
  homeOrAway: 5,
  drawOrAway: 6,
  win1: 7,
  win2: 8,
  ah1: 9,
  ah2: 10,
  totalOver: 11,
  totalUnder: 12,
  team1Over: 13,
  team1Under: 14,
  team2Over: 15,
  team2Under: 16,
  bothScoreYes: 17,
  bothScoreNo: 18,
  odd: 19,
  even: 20,
  layHome: 21,
  layDraw: 22,
  layAway: 23,
  layTotalOver: 24,
  layTotalUnder: 25,
} as const;

interface OddsTypeDef {
  section: number;
  lay: boolean;
  en: [short: string, full: string];
  ru: [short: string, full: string];
}

const ODDS_TYPES: Record<number, OddsTypeDef> = {
  [TYPE.home]: { section: 1, lay: false, en: ['1', 'Home win'], ru: ['П1', 'Победа хозяев'] },
  [TYPE.draw]: { section: 1, lay: false, en: ['X', 'Draw'], ru: ['Х', 'Ничья'] },
  [TYPE.away]: { section: 1, lay: false, en: ['2', 'Away win'], ru: ['П2', 'Победа гостей'] },
  [TYPE.homeOrDraw]: { section: 1, lay: false, en: ['1X', 'Home win or draw'], ru: ['1Х', 'Хозяева не проиграют'] },
  [TYPE.homeOrAway]: { section: 1, lay: false, en: ['12', 'No draw'], ru: ['12', 'Ничьей не будет'] },
  [TYPE.drawOrAway]: { section: 1, lay: false, en: ['X2', 'Away win or draw'], ru: ['Х2', 'Гости не проиграют'] },
  [TYPE.win1]: {
    section: 1,
    lay: false,
    en: ['W1', 'Team 1 to win (incl. overtime)'],
    ru: ['П1 (с ОТ)', 'Победа первой команды с учётом овертайма'],
  },
  [TYPE.win2]: {
    section: 1,
    lay: false,
    en: ['W2', 'Team 2 to win (incl. overtime)'],
    ru: ['П2 (с ОТ)', 'Победа второй команды с учётом овертайма'],
  },
  [TYPE.ah1]: { section: 2, lay: false, en: ['AH1(%s)', 'Asian handicap 1 (%s)'], ru: ['Ф1(%s)', 'Фора первой команды (%s)'] },
  [TYPE.ah2]: { section: 2, lay: false, en: ['AH2(%s)', 'Asian handicap 2 (%s)'], ru: ['Ф2(%s)', 'Фора второй команды (%s)'] },
  [TYPE.totalOver]: { section: 3, lay: false, en: ['TO(%s)', 'Total over %s'], ru: ['ТБ(%s)', 'Тотал больше %s'] },
  [TYPE.totalUnder]: { section: 3, lay: false, en: ['TU(%s)', 'Total under %s'], ru: ['ТМ(%s)', 'Тотал меньше %s'] },
  [TYPE.team1Over]: {
    section: 4,
    lay: false,
    en: ['ITO1(%s)', 'Team 1 total over %s'],
    ru: ['ИТБ1(%s)', 'Индивидуальный тотал первой команды больше %s'],
  },
  [TYPE.team1Under]: {
    section: 4,
    lay: false,
    en: ['ITU1(%s)', 'Team 1 total under %s'],
    ru: ['ИТМ1(%s)', 'Индивидуальный тотал первой команды меньше %s'],
  },
  [TYPE.team2Over]: {
    section: 4,
    lay: false,
    en: ['ITO2(%s)', 'Team 2 total over %s'],
    ru: ['ИТБ2(%s)', 'Индивидуальный тотал второй команды больше %s'],
  },
  [TYPE.team2Under]: {
    section: 4,
    lay: false,
    en: ['ITU2(%s)', 'Team 2 total under %s'],
    ru: ['ИТМ2(%s)', 'Индивидуальный тотал второй команды меньше %s'],
  },
  [TYPE.bothScoreYes]: { section: 6, lay: false, en: ['BTS: yes', 'Both teams to score: yes'], ru: ['ОЗ: да', 'Обе забьют: да'] },
  [TYPE.bothScoreNo]: { section: 6, lay: false, en: ['BTS: no', 'Both teams to score: no'], ru: ['ОЗ: нет', 'Обе забьют: нет'] },
  [TYPE.odd]: { section: 6, lay: false, en: ['Odd', 'Total odd'], ru: ['Нечёт', 'Тотал нечётный'] },
  [TYPE.even]: { section: 6, lay: false, en: ['Even', 'Total even'], ru: ['Чёт', 'Тотал чётный'] },
  [TYPE.layHome]: { section: 1, lay: true, en: ['Lay 1', 'Lay: home win'], ru: ['Против П1', 'Против победы хозяев'] },
  [TYPE.layDraw]: { section: 1, lay: true, en: ['Lay X', 'Lay: draw'], ru: ['Против Х', 'Против ничьей'] },
  [TYPE.layAway]: { section: 1, lay: true, en: ['Lay 2', 'Lay: away win'], ru: ['Против П2', 'Против победы гостей'] },
  [TYPE.layTotalOver]: {
    section: 3,
    lay: true,
    en: ['Lay TO(%s)', 'Lay: total over %s'],
    ru: ['Против ТБ(%s)', 'Против тотала больше %s'],
  },
  [TYPE.layTotalUnder]: {
    section: 3,
    lay: true,
    en: ['Lay TU(%s)', 'Lay: total under %s'],
    ru: ['Против ТМ(%s)', 'Против тотала меньше %s'],
  },
};

/** Bookmakers that are betting exchanges (back and lay bets, commission on winnings). */
export const EXCHANGE_BOOKMAKERS: readonly number[] = [31, 40];

/** The lay odds type of a back odds type, where the dictionary has one. */
export const LAY_OF: Readonly<Record<number, number>> = {
  [TYPE.home]: TYPE.layHome,
  [TYPE.draw]: TYPE.layDraw,
  [TYPE.away]: TYPE.layAway,
  [TYPE.totalOver]: TYPE.layTotalOver,
  [TYPE.totalUnder]: TYPE.layTotalUnder,
};

/** True for a lay odds type (the dictionary's `lay`). */
export function isLayType(typeId: number): boolean {
  return ODDS_TYPES[typeId]?.lay === true;
}

/** Pairs of odds types that mirror each other when the teams swap sides. */
const REFLECTION_PAIRS: [number, number][] = [
  [TYPE.home, TYPE.away],
  [TYPE.homeOrDraw, TYPE.drawOrAway],
  [TYPE.win1, TYPE.win2],
  [TYPE.ah1, TYPE.ah2],
  [TYPE.team1Over, TYPE.team2Over],
  [TYPE.team1Under, TYPE.team2Under],
  [TYPE.layHome, TYPE.layAway],
];

/** The odds section of an odds type id, for the `skip_sections` filter field. */
export function sectionOf(typeId: number): number | undefined {
  return ODDS_TYPES[typeId]?.section;
}

function names(table: Record<number, Bilingual>, lang: DictLang): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, n] of Object.entries(table)) out[id] = n[lang];
  return out;
}

/** The dictionaries answer for `lang`, a fresh object each call. */
export function dictionariesFor(lang: DictLang): WireDictionaries {
  const oddsTypes: Record<string, WireOddsType> = {};
  for (const [id, def] of Object.entries(ODDS_TYPES)) {
    const [short, full] = def[lang];
    oddsTypes[id] = { title_short: short, title_full: full, lay: def.lay, section_id: def.section };
  }
  const reflections: Record<string, number> = {};
  for (const [a, b] of REFLECTION_PAIRS) {
    reflections[String(a)] = b;
    reflections[String(b)] = a;
  }
  return {
    lang,
    bookmakers: names(BOOKMAKERS, lang),
    live_bookmakers: [...LIVE_BOOKMAKERS],
    sports: names(SPORTS, lang),
    odds_groups: names(ODDS_GROUPS, lang),
    odds_sections: names(ODDS_SECTIONS, lang),
    odds_types: oddsTypes,
    odds_types_reflections: reflections,
  };
}

export function isDictLang(value: string): value is DictLang {
  return (DICT_LANGS as readonly string[]).includes(value);
}
