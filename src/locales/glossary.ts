/**
 * The glossary: every market code the service's dictionaries use (the short titles an alert
 * prints, like `ITO1(0.5)` or `BTS: no`) and the betting words the bot uses (arb, middle,
 * valuebet, EV, liability, commission, worst case, yield, CLV…), in English and Russian. One
 * source for `/glossary` and for the docs (`glossaryMarkdown`), so the two never say different
 * things. A test holds it to the dictionaries: every short title they serve has an entry here.
 * Decimals are written with a point in both languages, as the alerts print odds and lines: a
 * market code is a code ("ТБ(2.5)"), not a Russian number.
 */
import { escapeHtml } from '../lib/html.js';
import type { Lang } from './i18n.js';

export interface GlossaryEntry {
  /** The dictionary short titles this entry explains, `%s` standing for the line (empty for words). */
  codes: readonly string[];
  /** What is looked up and shown in bold: the codes as printed (`x` for the line), or the word. */
  term: string;
  meaning: string;
  /**
   * Other names a user may look it up by ("corridor" for a middle, "EV" for a valuebet): found
   * exactly, after the entries whose own term or code matches.
   */
  aliases?: readonly string[];
}

export interface GlossarySection {
  title: string;
  entries: readonly GlossaryEntry[];
}

const en: readonly GlossarySection[] = [
  {
    title: 'Market codes (the middle of each leg line)',
    entries: [
      { codes: ['1', 'X', '2'], term: '1 · X · 2', meaning: 'home win · draw · away win, in regular time.' },
      { codes: ['1X', 'X2', '12'], term: '1X · X2 · 12', meaning: 'double chance: home win or draw · away win or draw · either team wins (no draw).' },
      { codes: ['W1', 'W2'], term: 'W1 · W2', meaning: 'team 1 · team 2 wins, overtime included (sports without draws). Team 1 is the one named first.' },
      {
        codes: ['AH1(%s)', 'AH2(%s)'],
        term: 'AH1(x) · AH2(x)',
        meaning: 'Asian handicap: x is added to that team’s score. AH1(−1.5) wins if team 1 wins by 2 or more; AH2(+1.5) wins unless team 2 loses by 2 or more. On a whole line (−1) an exact tie returns the stake.',
      },
      { codes: ['TO(%s)', 'TU(%s)'], term: 'TO(x) · TU(x)', meaning: 'total over · under x: both teams’ goals (points, games) together, more · fewer than x.' },
      {
        codes: ['ITO1(%s)', 'ITU1(%s)', 'ITO2(%s)', 'ITU2(%s)'],
        term: 'ITO1(x) · ITU1(x) · ITO2(x) · ITU2(x)',
        meaning: 'individual total: team 1 (or 2) alone scores over · under x. ITO1(0.5): team 1 scores at least once.',
      },
      { codes: ['BTS: yes', 'BTS: no'], term: 'BTS: yes · BTS: no', meaning: 'both teams to score: yes · no (at least one team does not score).' },
      { codes: ['Odd', 'Even'], term: 'Odd · Even', meaning: 'the total (goals, points) is odd · even.' },
      {
        codes: ['Lay 1', 'Lay X', 'Lay 2', 'Lay TO(%s)', 'Lay TU(%s)'],
        term: 'Lay 1 · Lay X · Lay 2 · Lay TO(x) · Lay TU(x)',
        meaning: 'a lay bet at an exchange, against the outcome: you win the backer’s stake if it does not happen and pay (odds − 1) × stake if it does.',
      },
    ],
  },
  {
    title: 'Words',
    entries: [
      { codes: [], term: 'Arb', meaning: 'bets on every outcome of one market at different bookmakers, with odds that together pay more than the total stake whatever happens. Profit % = 1 ÷ Σ(1 ÷ odds) − 1.' },
      {
        codes: [],
        term: 'Middle · corridor',
        meaning: 'two bets on different lines (TO(2.5) and TU(3.5)) that both win when the result lands between them (it hits: a big win) and cost a little when it does not (it misses).',
      },
      { codes: [], term: 'Valuebet', meaning: 'one bet at odds above the fair odds of its outcome. It wins over many bets, not every time. Overvalue % = odds × probability − 1 (the EV).', aliases: ['EV', 'overvalue'] },
      {
        codes: [],
        term: 'EV · overvalue',
        meaning: 'expected value: what a bet returns on average per unit staked, odds × probability − 1 (the same as odds ÷ fair odds − 1). A valuebet’s overvalue % is its EV; a filter’s min_overvalue is the least it may be.',
        aliases: ['expected value'],
      },
      { codes: [], term: 'Fair odds', meaning: '1 ÷ the probability the service estimates, without a bookmaker’s margin.' },
      { codes: [], term: 'Break-even odds', meaning: 'the lowest odds at which that leg still does not lose, with the other legs as they are.' },
      {
        codes: [],
        term: 'Worst case',
        meaning: 'what an arb’s stakes make whichever leg wins, after rounding and commission: the smallest return less the total staked. It is the profit you can count on; a middle’s worst case is its miss.',
        aliases: ['guaranteed profit'],
      },
      {
        codes: [],
        term: 'Liability',
        meaning: 'what a lay bet can lose: (lay odds − 1) × lay stake. A lay leg prints it (“lay 100 · liability 58”); it is the money at risk at the exchange, and what a bookmaker’s max in /book caps.',
      },
      {
        codes: [],
        term: 'Commission',
        meaning: 'what an exchange keeps of your net winnings (Betfair Exchange 5 %; Smarkets, Matchbook and Betdaq usually 2 %). Set yours with /book. Alerts count it in every profit and print the odds it leaves: 2.00 → 1.95 after 5% commission.',
      },
      { codes: [], term: 'Bankroll · rounding step', meaning: 'the amount the stakes are worked out for (/settings), and the multiple each stake is rounded to.' },
      { codes: [], term: 'Kelly · ¼ Kelly', meaning: 'the share of the bankroll that grows it fastest on a valuebet: (odds × probability − 1) ÷ (odds − 1). A quarter of it is the usual, calmer stake.' },
      { codes: [], term: 'Yield', meaning: 'profit ÷ total staked over many bets: 100 won on 5,000 staked is a yield of 2 %.' },
      { codes: [], term: 'CLV', meaning: 'closing line value: your odds against the odds just before the start. Beating the closing line again and again is the best sign your valuebets are real.' },
      { codes: [], term: 'Prematch · live', meaning: 'before the start · during the event (live odds move in seconds).' },
    ],
  },
];

const ru: readonly GlossarySection[] = [
  {
    title: 'Обозначения рынков (в середине строки каждой ставки)',
    entries: [
      { codes: ['П1', 'Х', 'П2'], term: 'П1 · Х · П2', meaning: 'победа хозяев · ничья · победа гостей, в основное время.' },
      { codes: ['1Х', 'Х2', '12'], term: '1Х · Х2 · 12', meaning: 'двойной шанс: хозяева не проиграют · гости не проиграют · ничьей не будет.' },
      {
        codes: ['П1 (с ОТ)', 'П2 (с ОТ)'],
        term: 'П1 (с ОТ) · П2 (с ОТ)',
        meaning: 'победа первой · второй команды с учётом овертайма (виды спорта без ничьих). Первая команда названа первой.',
      },
      {
        codes: ['Ф1(%s)', 'Ф2(%s)'],
        term: 'Ф1(x) · Ф2(x)',
        meaning: 'азиатская фора: x прибавляется к счёту команды. Ф1(−1.5) выигрывает, если первая команда победит с разницей в 2 и больше; Ф2(+1.5) — если вторая не проиграет с разницей в 2 и больше. На целой форе (−1) при точном равенстве ставка возвращается.',
      },
      { codes: ['ТБ(%s)', 'ТМ(%s)'], term: 'ТБ(x) · ТМ(x)', meaning: 'тотал больше · меньше x: голов (очков, геймов) обеих команд вместе больше · меньше x.' },
      {
        codes: ['ИТБ1(%s)', 'ИТМ1(%s)', 'ИТБ2(%s)', 'ИТМ2(%s)'],
        term: 'ИТБ1(x) · ИТМ1(x) · ИТБ2(x) · ИТМ2(x)',
        meaning: 'индивидуальный тотал: первая (или вторая) команда одна наберёт больше · меньше x. ИТБ1(0.5): первая команда забьёт хотя бы раз.',
      },
      { codes: ['ОЗ: да', 'ОЗ: нет'], term: 'ОЗ: да · ОЗ: нет', meaning: 'обе забьют: да · нет (хотя бы одна команда не забьёт).' },
      { codes: ['Нечёт', 'Чёт'], term: 'Нечёт · Чёт', meaning: 'тотал (голов, очков) нечётный · чётный.' },
      {
        codes: ['Против П1', 'Против Х', 'Против П2', 'Против ТБ(%s)', 'Против ТМ(%s)'],
        term: 'Против П1 · Против Х · Против П2 · Против ТБ(x) · Против ТМ(x)',
        meaning: 'ставка «против» (лэй) на бирже: вы выигрываете ставку того, кто ставит «за», если исход не случится, и платите (коэффициент − 1) × ставку, если случится.',
      },
    ],
  },
  {
    title: 'Слова',
    entries: [
      { codes: [], term: 'Вилка', meaning: 'ставки на все исходы одного рынка у разных букмекеров, коэффициенты которых вместе платят больше общей суммы ставок при любом исходе. Прибыль % = 1 ÷ Σ(1 ÷ коэффициент) − 1.' },
      {
        codes: [],
        term: 'Коридор · мидл',
        meaning: 'две ставки на разные линии (ТБ(2.5) и ТМ(3.5)), которые обе выигрывают, если результат попадёт между ними (коридор зашёл: крупный выигрыш), и стоят немного, если не попадёт.',
        aliases: ['middle', 'corridor'],
      },
      {
        codes: [],
        term: 'Валуйная ставка',
        meaning: 'одна ставка с коэффициентом выше честного для её исхода. Выигрывает на длинной дистанции, а не каждый раз. Перевес % = коэффициент × вероятность − 1 (EV).',
        aliases: ['EV', 'перевес', 'валуй', 'valuebet'],
      },
      {
        codes: [],
        term: 'EV · перевес',
        meaning: 'ожидаемая доходность (expected value): сколько ставка в среднем приносит на единицу суммы, коэффициент × вероятность − 1 (то же, что коэффициент ÷ честный коэффициент − 1). Перевес % валуйной ставки — это её EV; min_overvalue фильтра — его наименьшее значение.',
        aliases: ['expected value', 'матожидание', 'overvalue'],
      },
      { codes: [], term: 'Честный коэффициент', meaning: '1 ÷ вероятность, которую оценивает сервис, без маржи букмекера.' },
      { codes: [], term: 'Коэффициент безубыточности', meaning: 'самый низкий коэффициент, при котором эта ставка ещё не в минусе, если остальные не изменились.' },
      {
        codes: [],
        term: 'Худший исход',
        meaning: 'сколько ставки вилки приносят при любом исходе после округления и комиссии: наименьшая выплата минус общая сумма ставок. На эту прибыль можно рассчитывать; худший исход коридора — его промах.',
        aliases: ['гарантированная прибыль', 'worst case'],
      },
      {
        codes: [],
        term: 'Ответственность',
        meaning: 'сколько может проиграть ставка «против» (лэй): (коэффициент − 1) × ставка «против». Строка такой ставки её показывает («против 100 · ответственность 58»); это деньги под риском на бирже, и её ограничивает максимум букмекера в /book.',
        aliases: ['liability', 'обязательство'],
      },
      {
        codes: [],
        term: 'Комиссия',
        meaning: 'сколько биржа оставляет себе с вашего чистого выигрыша (Betfair Exchange 5 %; Smarkets, Matchbook и Betdaq обычно 2 %). Свою задайте в /book. Оповещения учитывают её в каждой прибыли и показывают коэффициент после неё: 2.00 → 1.95 после комиссии 5%.',
        aliases: ['commission'],
      },
      { codes: [], term: 'Банк · шаг округления', meaning: 'сумма, на которую рассчитываются ставки (/settings), и число, кратно которому округляется каждая ставка.' },
      { codes: [], term: 'Келли · ¼ Келли', meaning: 'доля банка, при которой он растёт быстрее всего на валуйной ставке: (коэффициент × вероятность − 1) ÷ (коэффициент − 1). Четверть её — обычная, более спокойная ставка.' },
      { codes: [], term: 'Yield (доходность)', meaning: 'прибыль ÷ общая сумма ставок на длинной дистанции: 100 выигрыша на 5 000 поставленных — yield 2 %.' },
      { codes: [], term: 'CLV', meaning: 'closing line value: ваш коэффициент против коэффициента перед самым началом. Если вы снова и снова берёте больше закрытия, ваши валуйные ставки настоящие.' },
      { codes: [], term: 'Прематч · лайв', meaning: 'до начала · во время события (в лайве коэффициенты меняются за секунды).' },
    ],
  },
];

export const GLOSSARY: Readonly<Record<Lang, readonly GlossarySection[]>> = { en, ru };

const entryHtml = (e: GlossaryEntry) => `<b>${escapeHtml(e.term)}</b> — ${escapeHtml(e.meaning)}`;

/** The glossary as Telegram HTML, one message per section (each well under 4096 characters). */
export function glossaryMessages(lang: Lang): string[] {
  return GLOSSARY[lang].map((s) => [`📖 <b>${escapeHtml(s.title)}</b>`, ...s.entries.map(entryHtml)].join('\n'));
}

/** A code or word as a key to look up: `ITO1(0.5)` → `ito1`, `BTS: no` → `bts: no`. */
function lookupKey(text: string): string {
  return text.replace(/\([^)]*\)/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * The entries that explain `query` (a code as an alert prints it, with or without its line, or a
 * word): those whose own code or term it is first, then those that go by it too (aliases), so
 * "EV" is the EV entry, then the valuebet's; only with neither, the terms that contain it.
 */
export function findInGlossary(lang: Lang, query: string): GlossaryEntry[] {
  const q = lookupKey(query);
  if (q === '') return [];
  const all = GLOSSARY[lang].flatMap((s) => s.entries);
  const own = all.filter((e) => e.codes.some((c) => lookupKey(c.replace('%s', '')) === q) || e.term.split(' · ').some((w) => lookupKey(w) === q));
  const alias = all.filter((e) => !own.includes(e) && (e.aliases ?? []).some((a) => lookupKey(a) === q));
  if (own.length > 0 || alias.length > 0) return [...own, ...alias];
  return all.filter((e) => lookupKey(e.term).includes(q));
}

/** The entries as Telegram HTML, for `/glossary <code>`. */
export function glossaryEntriesHtml(entries: readonly GlossaryEntry[]): string {
  return entries.map(entryHtml).join('\n');
}

/** The glossary as Markdown, for the docs (docs/glossary.md). */
export function glossaryMarkdown(lang: Lang): string {
  return GLOSSARY[lang]
    .map((s) => [`## ${s.title}`, '', ...s.entries.map((e) => `- **${e.term}** — ${e.meaning}`)].join('\n'))
    .join('\n\n');
}
