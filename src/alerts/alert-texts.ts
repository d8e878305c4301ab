/**
 * The words of alerts and cards, in English and Russian. Every function here receives values that
 * are already formatted and HTML-escaped by the formatter, and returns an HTML fragment of one line.
 */
import { html, translator } from '../locales/i18n.js';
import type { Kind } from '../service/services.js';
import type { Lang } from '../store/schema.js';
import type { SolveRefusal } from './stake-solver.js';
import type { CannotComputeReason } from './stakes.js';
import { alertOnceEn, alertOnceRu } from '../locales/parts/alert-once.js';

/** The strings of one language. */
export interface AlertTexts {
  kind: Record<Kind, string>;
  /** Under the legs of an alert: where the market codes are explained (/glossary). */
  glossaryHint: string;
  /** The amount the stakes are for when it is the user's bankroll ("bankroll 100"). */
  bankrollAmount(amount: string): string;
  /** The same after "more than" (Russian puts it in the genitive: "больше банка 100"). */
  bankrollAmountOver(amount: string): string;
  /** After a ¼-Kelly stake: the bankroll it is a share of. */
  kellyForBankroll(amount: string): string;
  live: string;
  prematch: string;
  startUnknown: string;
  /** Middle headline: "Middle: hit +95.00%, miss −2.10%". */
  middleHeadline(kindName: string, hit: string, miss: string): string;
  /** After a moved number: "(was +2.10%)". */
  was(previous: string): string;
  /** A line listing what changed since the alert was sent. */
  changed(parts: string): string;
  hitWord: string;
  missWord: string;
  /**
   * After a headline number the service sent that the alert cannot derive from odds it shows
   * (odds hidden): "(service's figure)", or "(service's figures)" for more than one.
   */
  serviceFigures(count: number): string;
  /** Labels of a middle's two service figures when its odds are hidden (its `value`, `middle_value`). */
  serviceValueWord: string;
  serviceMiddleWord: string;
  /** In place of a leg's odds when they are masked. */
  oddsHidden: string;
  /** The plain statement under a masked alert. */
  maskedNote: string;
  stakesTitle(amount: string): string;
  /** The stakes sum to less than the bankroll (rounding to the step): the real total, said plainly. */
  stakesTitleTotal(amount: string, total: string): string;
  /** One step per leg does not fit in the bankroll: the stakes sum to more, and the title says so. */
  stakesOverBankroll(amount: string, total: string): string;
  worstCase(profit: string, pct: string): string;
  breakEven(list: string): string;
  ifHit(profit: string, pct: string): string;
  ifMiss(profit: string, pct: string): string;
  ev(pct: string, fairOdds: string): string;
  kelly(fraction: string, stake: string): string;
  kellyNoEdge: string;
  kellyBelowStep(fraction: string): string;
  cannotCompute: Record<CannotComputeReason | SolveRefusal, string>;
  /** After a headline number a commission changed: "after commission". */
  afterCommission: string;
  /** After a leg's effective odds: "after 2% commission". */
  afterPctCommission(pct: string): string;
  /** The stakes leave part of the bankroll unspent, and why: "(total 605: Betano capped at 300)", a cap that sets the size, or the steps. */
  stakesTitleCapped(amount: string, total: string, capped: string): string;
  /** One capped leg in that title: "Betano capped at 300". */
  cappedAt(bookmaker: string, max: string): string;
  /** A leg under its cap whose cap still sets the stakes' size: "Bet365’s max 30 limits the stakes". */
  maxLimits(bookmaker: string, max: string): string;
  /** No cap binds: the steps are why the total is below the bankroll (more would not fit, or not pay). */
  stepsLimit(nextFits: boolean): string;
  /** The stakes put all the profit on one leg, the others breaking even. */
  stakesTitleProfitOn(amount: string, total: string, leg: string): string;
  /** Profit per winning leg: "If it wins: 1) +71.00 · 2) +4.50". */
  ifLegWins(list: string): string;
  /** One fixed leg in a title: "1) Pinnacle fixed at 150". */
  fixedAt(n: number, bookmaker: string, amount: string): string;
  /** A back leg's stake line. */
  stakeLine(n: number, bookmaker: string, stake: string, payout: string, capped: boolean): string;
  /** A lay leg's stake line: the lay stake, the liability, what it returns if the selection loses. */
  layStakeLine(n: number, bookmaker: string, stake: string, liability: string, payout: string, capped: boolean): string;
  /** The worst case when a commission is counted in it. */
  worstCaseCommission(profit: string, pct: string): string;
  /** A commission the user has not set, assumed from the exchange's usual rate. */
  defaultCommission(list: string): string;
  /** The service's own profit figure disagrees with the odds shown (a misread market?). */
  serviceMismatch(service: string, ours: string): string;
  noLegs: string;
  moreLegs(n: number): string;
  /** First line of a gone alert: "⛔ Gone after 4 min 10 s". */
  gone(kind: Kind, duration: string): string;
  /** Card footer: the item's and the event's ids, service and how long ago the service found it. */
  cardFooter(id: string, eventId: string, service: string, foundAgo: string | undefined): string;
  /** The alert's last line: the item's id for /item and the event's for /event, each one tap to copy. */
  idLine(id: string, eventId: string): string;
  /** Under a new alert: how long after the read that found it the alert went ("0.8 s"; the outbox fills it in). */
  sendDelay(delay: string): string;
  /** A loud reply to an alert whose profit rose: "▲ Arb now +4.10% (was +2.05%)". */
  reAlert(kindName: string, now: string, was: string): string;
  /** The snooze button: it pauses every alert of the service (kind × live/prematch), not this one. */
  snoozeAll(kind: Kind, live: boolean): string;
  buttons: { event: string; stakes: string; mute: string; snooze: string; limited: string; placed: string; placedDifferently: string };
  /** The title of stakes re-solved around legs fixed at the amounts the bookmakers accepted. */
  stakesTitleFixed(amount: string, total: string, fixed: string): string;
  /** The ledger's line on an alert the user placed: "✅ Placed 495 / 505 · worst case +35.25". */
  placed(stakes: string, worst: string | undefined, refused: number): string;
  /** The title of an arb with no winning stakes on the user's steps and caps: "Not an arb for you: −0.19%". */
  notArbForYou(pct: string): string;
  /** Under the headline of an alert revived after "Gone": "🔁 back after 1 min 10 s". */
  backAfter(duration: string): string;
}

const EN_PLURAL: Record<Kind, string> = { arbs: 'arbs', middles: 'middles', valuebets: 'valuebets' };
const RU_PLURAL: Record<Kind, string> = { arbs: 'вилки', middles: 'коридоры', valuebets: 'валуи' };

const en: AlertTexts = {
  kind: { arbs: 'Arb', middles: 'Middle', valuebets: 'Value bet' },
  glossaryHint: 'ℹ️ Market codes explained: /glossary',
  bankrollAmount: (a) => `bankroll ${a}`,
  bankrollAmountOver: (a) => `bankroll ${a}`,
  kellyForBankroll: (a) => `for bankroll ${a}`,
  live: '🔴 live',
  prematch: 'prematch',
  startUnknown: 'start time unknown',
  middleHeadline: (k, hit, miss) => `${k}: hit ${hit}, miss ${miss}`,
  was: (p) => `(was ${p})`,
  changed: (parts) => `✏️ Changed: ${parts}`,
  hitWord: 'hit',
  missWord: 'miss',
  serviceFigures: (n) => (n === 1 ? "(service's figure)" : "(service's figures)"),
  serviceValueWord: 'value',
  serviceMiddleWord: 'middle value',
  oddsHidden: 'odds hidden',
  maskedNote: '🔒 Odds hidden: your plan does not include them.',
  stakesTitle: (a) => `💰 Stakes for ${a}:`,
  stakesTitleTotal: (a, total) => `💰 Stakes for ${a} (total ${total}):`,
  stakesOverBankroll: (a, total) => `💰 Stakes: ${total} in total, more than ${a} (each stake is at least one rounding step):`,
  worstCase: (p, pct) => `Worst case after rounding: ${p} (${pct})`,
  breakEven: (list) => `Break-even odds: ${list}`,
  ifHit: (p, pct) => `If the middle hits: ${p} (${pct})`,
  ifMiss: (p, pct) => `If it misses: ${p} (${pct})`,
  ev: (pct, fair) => `📈 EV ${pct} · fair odds ${fair}`,
  kelly: (f, stake) => `Kelly ${f} of bankroll · ¼ Kelly stake: ${stake}`,
  kellyNoEdge: 'Kelly: no stake, no edge at these odds',
  kellyBelowStep: (f) => `Kelly ${f} of bankroll · ¼ Kelly is below one rounding step`,
  cannotCompute: {
    'no-odds': 'Stakes cannot be computed: no odds.',
    'invalid-odds': 'Stakes cannot be computed from these odds.',
    'invalid-bankroll': 'Set a positive bankroll in /settings to see stakes.',
    'invalid-step': 'Set a positive rounding step in /settings to see stakes.',
    'bankroll-too-small': 'The bankroll is too small for these stakes at this rounding step.',
    'no-probability': 'EV cannot be computed: the service gave no probability or overvalue.',
    'invalid-probability': 'EV cannot be computed: the probability is not usable.',
    'no-guaranteed-profit': '🚫 No stakes on your steps and limits give a guaranteed profit here: this is not an arb for you.',
    'leg-limits-conflict': 'A leg has no stake within your settings for its bookmaker (its minimum is over its maximum): check /books.',
  },
  afterCommission: 'after commission',
  afterPctCommission: (pct) => `after ${pct}% commission`,
  stakesTitleCapped: (a, total, capped) => `💰 Stakes for ${a} (total ${total}: ${capped}):`,
  maxLimits: (book, max) => translator('en')('stakes_why_max', { book: html(book), max: html(max) }),
  stepsLimit: (nextFits) => translator('en')(nextFits ? 'stakes_why_step' : 'stakes_why_fit'),
  cappedAt: (book, max) => `${book} capped at ${max}`,
  fixedAt: (n, book, amount) => `${n}) ${book} fixed at ${amount}`,
  stakeLine: (n, book, stake, payout, capped) => `${n}) ${book} ${stake}${capped ? ' (capped)' : ''} → ${payout}`,
  layStakeLine: (n, book, stake, liability, payout, capped) =>
    `${n}) ${book} lay ${stake} · liability ${liability}${capped ? ' (capped)' : ''} → ${payout}`,
  worstCaseCommission: (p, pct) => `Worst case after rounding and commission: ${p} (${pct})`,
  defaultCommission: (list) => `ℹ️ Commission assumed: ${list}. Check your account's rate and set it with /book.`,
  serviceMismatch: (svc, ours) =>
    `⚠️ The service says ${svc}; these odds give ${ours} before commission. Check the market before betting.`,
  noLegs: 'This item has no legs.',
  moreLegs: (n) => `… and ${n} more`,
  gone: (_kind, d) => `⛔ Gone after ${d}`,
  cardFooter: (id, ev, svc, ago) => `🆔 ${id} · event ${ev} · ${svc}${ago ? ` · found ${ago} ago` : ''}`,
  idLine: (id, ev) => `🆔 ${id} for /item · event ${ev} for /event`,
  sendDelay: (d) => `⏱ Found ${d} before sending`,
  reAlert: (k, now, was) => `▲ ${k} now ${now} (was ${was})`,
  snoozeAll: (kind, live) => `😴 All ${live ? 'live' : 'prematch'} ${EN_PLURAL[kind]} · 1 h`,
  buttons: { event: '📋 All for this event', stakes: '💰 Other amount', mute: '🔕 Mute event', snooze: '😴 Snooze 1 h', limited: '✏️ Leg limited', placed: '✅ Placed', placedDifferently: '✏️ Placed differently' },
  stakesTitleFixed: (a, total, fixed) => `💰 Stakes for ${a} with ${fixed} (total ${total}):`,
  stakesTitleProfitOn: (a, total, leg) => `💰 Stakes for ${a}, all profit on ${leg} (total ${total}):`,
  ifLegWins: (list) => `Profit if it wins: ${list}`,
  notArbForYou: (pct) => alertOnceEn.alert_not_arb_title.replace('{pct}', pct),
  backAfter: (d) => alertOnceEn.alert_back_after.replace('{duration}', d),
  placed: (stakes, worst, refused) => `✅ Placed ${stakes}${worst === undefined ? '' : ` · worst case ${worst}`}${refused > 0 ? ` · ❌ ${refused} refused` : ''}`,
};

const RU_GONE: Record<Kind, string> = {
  arbs: 'Вилка пропала',
  middles: 'Коридор пропал',
  valuebets: 'Валуй пропал',
};

const ru: AlertTexts = {
  kind: { arbs: 'Вилка', middles: 'Коридор', valuebets: 'Валуй' },
  glossaryHint: 'ℹ️ Что значат обозначения: /glossary',
  bankrollAmount: (a) => `банк ${a}`,
  bankrollAmountOver: (a) => `банка ${a}`,
  kellyForBankroll: (a) => `при банке ${a}`,
  live: '🔴 лайв',
  prematch: 'прематч',
  startUnknown: 'время начала неизвестно',
  middleHeadline: (k, hit, miss) => `${k}: попадание ${hit}, промах ${miss}`,
  was: (p) => `(было ${p})`,
  changed: (parts) => `✏️ Изменилось: ${parts}`,
  hitWord: 'попадание',
  missWord: 'промах',
  serviceFigures: () => '(данные сервиса)',
  serviceValueWord: 'значение',
  serviceMiddleWord: 'значение коридора',
  oddsHidden: 'коэффициент скрыт',
  maskedNote: '🔒 Коэффициенты скрыты: ваш тариф их не включает.',
  stakesTitle: (a) => `💰 Ставки на ${a}:`,
  stakesTitleTotal: (a, total) => `💰 Ставки на ${a} (всего ${total}):`,
  stakesOverBankroll: (a, total) => `💰 Ставки: всего ${total}, больше ${a} (каждая ставка не меньше шага округления):`,
  worstCase: (p, pct) => `Худший исход после округления: ${p} (${pct})`,
  breakEven: (list) => `Коэффициенты безубыточности: ${list}`,
  ifHit: (p, pct) => `Если коридор зайдёт: ${p} (${pct})`,
  ifMiss: (p, pct) => `Если не зайдёт: ${p} (${pct})`,
  ev: (pct, fair) => `📈 EV ${pct} · честный коэффициент ${fair}`,
  kelly: (f, stake) => `Келли ${f} банка · ставка ¼ Келли: ${stake}`,
  kellyNoEdge: 'Келли: не ставить, при этих коэффициентах перевеса нет',
  kellyBelowStep: (f) => `Келли ${f} банка · ¼ Келли меньше шага округления`,
  cannotCompute: {
    'no-odds': 'Ставки не посчитать: нет коэффициентов.',
    'invalid-odds': 'Ставки не посчитать по этим коэффициентам.',
    'invalid-bankroll': 'Укажите положительный банк в /settings, чтобы видеть ставки.',
    'invalid-step': 'Укажите положительный шаг округления в /settings, чтобы видеть ставки.',
    'bankroll-too-small': 'Банк слишком мал для этих ставок при таком шаге округления.',
    'no-probability': 'EV не посчитать: сервис не дал ни вероятности, ни перевеса.',
    'invalid-probability': 'EV не посчитать: вероятность непригодна.',
    'no-guaranteed-profit': '🚫 Ни при каких ставках с вашими шагами и лимитами гарантированной прибыли нет: для вас это не вилка.',
    'leg-limits-conflict': 'Для одного из исходов нет ставки в ваших настройках его букмекера (минимум больше максимума): проверьте /books.',
  },
  afterCommission: 'после комиссии',
  afterPctCommission: (pct) => `после комиссии ${pct}%`,
  stakesTitleCapped: (a, total, capped) => `💰 Ставки на ${a} (всего ${total}: ${capped}):`,
  maxLimits: (book, max) => translator('ru')('stakes_why_max', { book: html(book), max: html(max) }),
  stepsLimit: (nextFits) => translator('ru')(nextFits ? 'stakes_why_step' : 'stakes_why_fit'),
  cappedAt: (book, max) => `${book} — не больше ${max}`,
  fixedAt: (n, book, amount) => `${n}) ${book} — ровно ${amount}`,
  stakeLine: (n, book, stake, payout, capped) => `${n}) ${book} ${stake}${capped ? ' (лимит)' : ''} → ${payout}`,
  layStakeLine: (n, book, stake, liability, payout, capped) =>
    `${n}) ${book} против ${stake} · ответственность ${liability}${capped ? ' (лимит)' : ''} → ${payout}`,
  worstCaseCommission: (p, pct) => `Худший исход после округления и комиссии: ${p} (${pct})`,
  defaultCommission: (list) => `ℹ️ Комиссия по умолчанию: ${list}. Проверьте ставку комиссии своего счёта и укажите её командой /book.`,
  serviceMismatch: (svc, ours) =>
    `⚠️ Сервис пишет ${svc}; по этим коэффициентам выходит ${ours} до комиссии. Проверьте рынок, прежде чем ставить.`,
  noLegs: 'В этом предложении нет исходов.',
  moreLegs: (n) => `… и ещё ${n}`,
  gone: (kind, d) => `⛔ ${RU_GONE[kind]} через ${d}`,
  cardFooter: (id, ev, svc, ago) => `🆔 ${id} · событие ${ev} · ${svc}${ago ? ` · найдено ${ago} назад` : ''}`,
  idLine: (id, ev) => `🆔 ${id} для /item · событие ${ev} для /event`,
  sendDelay: (d) => `⏱ Найдено за ${d} до отправки`,
  reAlert: (k, now, was) => `▲ ${k} теперь ${now} (было ${was})`,
  snoozeAll: (kind, live) => `😴 Все ${live ? 'лайв' : 'прематч'}-${RU_PLURAL[kind]} · 1 ч`,
  buttons: { event: '📋 Всё по событию', stakes: '💰 Другая сумма', mute: '🔕 Скрыть событие', snooze: '😴 Пауза 1 ч', limited: '✏️ Порезали исход', placed: '✅ Поставил', placedDifferently: '✏️ Поставил иначе' },
  stakesTitleFixed: (a, total, fixed) => `💰 Ставки на ${a}, ${fixed} (всего ${total}):`,
  stakesTitleProfitOn: (a, total, leg) => `💰 Ставки на ${a}, вся прибыль на ${leg} (всего ${total}):`,
  ifLegWins: (list) => `Прибыль, если зайдёт: ${list}`,
  notArbForYou: (pct) => alertOnceRu.alert_not_arb_title.replace('{pct}', pct),
  backAfter: (d) => alertOnceRu.alert_back_after.replace('{duration}', d),
  placed: (stakes, worst, refused) => `✅ Поставлено ${stakes}${worst === undefined ? '' : ` · худший исход ${worst}`}${refused > 0 ? ` · ❌ отказ: ${refused}` : ''}`,
};

const TEXTS: Record<Lang, AlertTexts> = { en, ru };

/** The alert strings in `lang`. */
export function alertTexts(lang: Lang): AlertTexts {
  return TEXTS[lang];
}
