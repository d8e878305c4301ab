/**
 * "✏️ Leg limited" under an arb alert: the bookmaker took less on one leg than the alert said. The
 * bot asks which leg and how much was accepted ("1 150"), then answers at once with the card of
 * the item re-solved around that amount (the other legs on their steps and caps, within the
 * bankroll: alerts/alert-stakes.ts with the leg fixed). Asked in the private chat, like the
 * stake amount, when the alert is in a group. "<leg> 0" says the leg was rejected after the others
 * were placed (as the alert showed them): the answer is the break-even odds to hedge it, and the
 * hedge stake at the odds the user then sends.
 *
 * The question carries buttons that answer it as typing would: a leg at the `max` the user stored
 * for its bookmaker in /books ("1 300"), all the profit on one leg ("2 profit") or equal profit.
 * They count only on the question message the presser has open (its id is in the pending
 * question), so a forged, old or someone else's press answers nothing.
 */
import { Composer } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import { alertStakes } from '../../alerts/alert-stakes.js';
import { pricedLegs } from '../../alerts/headline-figures.js';
import { fmtMoney, withUnit } from '../../alerts/printed.js';
import { namesFor } from '../../service/dictionaries-model.js';
import type { Opportunity } from '../../service/opportunity.js';
import type { Service } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';
import { alertItem, type LookupResult } from '../actions/lookup.js';
import { decodeLegLimitAction, encodeLegLimitAction, kindPattern, MAX_BUTTON_LEGS, type LegLimitAction } from '../callback-data/index.js';
import { askWhereAnswerable } from '../ask-private.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { clipEcho, MAX_BANKROLL, parsePositive } from '../parse/values.js';
import { dictionariesFor, namesForLang, viewFor } from '../ui/cards.js';
import { alertHedge, hedgeResultText, rejectedLegText } from '../ui/hedge-text.js';
import { takeButtonsOff } from '../ui/quietly.js';
import { sendLookupResult } from './lookup.js';

/** "0", "x", "rejected", "-", "отказ": the bookmaker refused the leg. */
const REJECTED = /^(?:0|0[.,]0+|x|-|—|rejected|reject|отказ|нет)$/i;
/** "profit", "all", "прибыль": all the profit on that leg, the others breaking even. */
const PROFIT = /^(?:profit|all|прибыль|вся)$/i;

/** "1 150", "2: 75.5", "leg 1 150" → leg index (0-based) and amount; undefined for anything else. */
export function parseLegAmount(text: string, legs: number): { leg: number; amount: string } | undefined {
  const m = /^\s*(?:leg\s*|исход\s*)?(\d{1,2})\s*[:)\s]\s*([^\s]+)\s*$/i.exec(text);
  if (!m) return undefined;
  const leg = Number(m[1]) - 1;
  if (!(leg >= 0 && leg < legs)) return undefined;
  return { leg, amount: m[2] ?? '' };
}

type LegLimitInput = Extract<PendingInput, { kind: 'leg-limit' }>;
type Found = Extract<LookupResult, { kind: 'found' }>;
/** What the user chose, typed or by a button. */
type LegChoice = { kind: 'fixed'; leg: number; amount: number } | { kind: 'profit'; leg: number } | { kind: 'equal' } | { kind: 'rejected'; leg: number };

/** The bookmaker's stored max for each leg of the item, where the user set one in /books. */
function legMax(user: Readonly<UserRecord> | undefined, item: Opportunity, leg: number): number | undefined {
  const id = item.legs[leg]?.bookmakerId;
  return id === undefined ? undefined : user?.books[String(id)]?.max;
}

/** The question's buttons: each leg at its stored max, all profit on each leg, equal profit. */
async function legButtons(rt: BotRuntime, ctx: BotContext, item: Opportunity | undefined, user: Readonly<UserRecord> | undefined): Promise<InlineKeyboardButton[][]> {
  if (!item || item.legs.length < 2 || item.legs.length > MAX_BUTTON_LEGS) return [];
  const names = await namesForLang(rt, ctx.lang);
  const book = (i: number) => names.bookmaker(item.legs[i]?.bookmakerId).slice(0, 24);
  const button = (text: string, action: LegLimitAction): InlineKeyboardButton => ({ text, callback_data: encodeLegLimitAction(action) });
  const rows: InlineKeyboardButton[][] = [];
  item.legs.forEach((_, i) => {
    const max = legMax(user, item, i);
    if (max !== undefined) rows.push([button(ctx.tp('btn_leg_max', { leg: i + 1, book: book(i), max: fmtMoney(max, { whole: true }) }), { type: 'max', leg: i })]);
  });
  item.legs.forEach((_, i) => rows.push([button(ctx.tp('btn_leg_profit', { leg: i + 1, book: book(i) }), { type: 'profit', leg: i })]));
  rows.push([button(ctx.tp('btn_leg_equal'), { type: 'equal' })]);
  return rows;
}

/** The held item, else the service's answer for it. */
const itemFor = (rt: BotRuntime, pending: { service: Service; itemId: string; ownerId: number }) => alertItem(rt, pending.ownerId, pending.service, pending.itemId);

/** The button was pressed: ask which leg and how much (in the private chat when the alert is in a group). */
export async function askLegLimit(rt: BotRuntime, ctx: BotContext, service: Service, itemId: string, user: Readonly<UserRecord> | undefined): Promise<void> {
  const userId = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (userId === undefined || chatId === undefined) return;
  const held = (await rt.scheduler.latestItems(userId, service)).find((o) => o.id === itemId);
  const keyboard = await legButtons(rt, ctx, held, user);
  const question = keyboard.length > 0 ? `${ctx.t('ask_leg_limit')}\n${ctx.t('ask_leg_limit_tap')}` : ctx.t('ask_leg_limit');
  await askWhereAnswerable(rt, ctx, {
    text: question,
    ...(keyboard.length > 0 ? { markup: { inline_keyboard: keyboard } } : {}),
    input: (questionId) => ({ kind: 'leg-limit', service, itemId, ownerId: userId, questionId }),
    askedPrivately: 'stake_asked_private',
    what: 'the accepted amount',
  });
}

/** The typed "leg amount": the card re-solved around it, or why not (the question stays open). */
export async function acceptLegLimit(rt: BotRuntime, ctx: BotContext, text: string, pending: LegLimitInput): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const { req, result } = await itemFor(rt, pending);
  if (result.kind !== 'found') {
    // Gone, or no key: the lookup's own answer says so, and the question is over.
    await closeQuestion(rt, ctx, pending);
    await sendLookupResult(rt, ctx, req, result);
    return;
  }
  const legs = result.items[0]?.legs.length ?? 0;
  const typed = parseLegAmount(text, legs);
  if (!typed) {
    await ctx.reply(`${ctx.t('leg_limit_bad', { n: Math.max(legs, 2), value: clipEcho(text) })}\n${ctx.t('stake_try_again')}`);
    return;
  }
  if (PROFIT.test(typed.amount)) return answerChoice(rt, ctx, pending, req, result, { kind: 'profit', leg: typed.leg });
  if (REJECTED.test(typed.amount)) return answerChoice(rt, ctx, pending, req, result, { kind: 'rejected', leg: typed.leg });
  const amount = parsePositive(typed.amount, Number.MAX_SAFE_INTEGER);
  if (!amount.ok) {
    await ctx.reply(`${ctx.t(amount.problem.key, amount.problem.vars)}\n${ctx.t('stake_try_again')}`);
    return;
  }
  const item = result.items[0];
  const problem = item ? await fixedProblem(rt, ctx, item, typed.leg, amount.value, typed.amount) : undefined;
  // An amount no bookmaker took is answered as such, quoting it; the question stays open.
  if (problem) {
    await ctx.reply(problem);
    return;
  }
  await answerChoice(rt, ctx, pending, req, result, { kind: 'fixed', leg: typed.leg, amount: amount.value });
}

/**
 * Why stakes cannot be solved around leg `leg` at `amount`, in the user's words, or undefined when
 * they can (or when the odds alone leave no profit, which the card itself says): larger than any
 * stake, more money at risk than the bankroll, or more than the bankroll leaves for the other legs
 * to cover it (what they would need is solved with the bankroll lifted).
 */
async function fixedProblem(rt: BotRuntime, ctx: BotContext, item: Opportunity, leg: number, amount: number, typed: string): Promise<string | undefined> {
  const names = namesFor(await dictionariesFor(rt, ctx.lang), ctx.lang);
  const view = viewFor(ctx.user, ctx.lang, rt.clock.now());
  const priced = pricedLegs(item, { names, books: view.books })?.[leg];
  if (!priced) return undefined;
  const money = (x: number) => withUnit(fmtMoney(x, { whole: true }), view.currency);
  const vars = { value: clipEcho(typed), leg: leg + 1, book: priced.bookmaker, bankroll: money(view.bankroll) };
  if (amount > MAX_BANKROLL) return ctx.t('leg_limit_too_large', { ...vars, max: money(MAX_BANKROLL) });
  const risk = priced.lay ? Math.round(amount * (priced.odds - 1) * 100) / 100 : amount;
  if (risk > view.bankroll) {
    return priced.lay ? ctx.t('leg_limit_over_bankroll_lay', { ...vars, liability: money(risk) }) : ctx.t('leg_limit_over_bankroll', vars);
  }
  const plan = alertStakes(item, names, view, { [leg]: amount });
  if (!plan || plan.ok || (plan.reason !== 'no-guaranteed-profit' && plan.reason !== 'bankroll-too-small')) return undefined;
  const unbounded = alertStakes(item, names, { ...view, bankroll: MAX_BANKROLL }, { [leg]: amount });
  if (!unbounded?.ok || unbounded.total <= view.bankroll) return undefined;
  return ctx.t('leg_limit_others_over', { ...vars, value: money(amount), need: money(unbounded.total - risk), left: money(view.bankroll - risk) });
}

/**
 * The question is over (answered, or its item gone): no longer pending, and its buttons come off
 * at once, typed answer or not, as the guided flows' prompts do — a later tap would only meet
 * "no longer active".
 */
async function closeQuestion(rt: BotRuntime, ctx: BotContext, pending: LegLimitInput): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  await rt.pending.clear(ctx.chat.id, ctx.from.id);
  if (pending.questionId !== undefined) await takeButtonsOff(ctx.api, ctx.log, ctx.chat.id, pending.questionId);
}

/** A checked choice: the question is over and the answer is the re-solved card (or the hedge). */
async function answerChoice(rt: BotRuntime, ctx: BotContext, pending: LegLimitInput, req: Parameters<typeof sendLookupResult>[2], result: Found, choice: LegChoice): Promise<void> {
  const item = result.items[0];
  if (!ctx.chat || !ctx.from || !item) return;
  await closeQuestion(rt, ctx, pending);
  switch (choice.kind) {
    case 'fixed':
      return sendLookupResult(rt, ctx, req, result, undefined, { fixedLegs: { [choice.leg]: choice.amount } });
    case 'profit':
      return sendLookupResult(rt, ctx, req, result, undefined, { profitOn: choice.leg });
    case 'equal':
      return sendLookupResult(rt, ctx, req, result, undefined, { stakingMode: 'equal' });
    case 'rejected':
      return answerRejected(rt, ctx, item, choice.leg, pending);
  }
}

/** A button under the question: answered as its typed form would be, if it is the open question's. */
async function pressLegChoice(rt: BotRuntime, ctx: BotContext, action: LegLimitAction | undefined): Promise<void> {
  const chatId = ctx.chat?.id;
  const userId = ctx.from?.id;
  const pending = chatId === undefined || userId === undefined ? undefined : await rt.pending.get(chatId, userId);
  const messageId = ctx.callbackQuery?.message?.message_id;
  // Only the presser's own open question, on the very message that asked it.
  if (!action || pending?.kind !== 'leg-limit' || pending.questionId === undefined || pending.questionId !== messageId || pending.ownerId !== userId) {
    await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
    return;
  }
  const { req, result } = await itemFor(rt, pending);
  if (result.kind !== 'found') {
    await closeQuestion(rt, ctx, pending);
    await ctx.answerCallbackQuery();
    await sendLookupResult(rt, ctx, req, result);
    return;
  }
  const item = result.items[0];
  const legs = item?.legs.length ?? 0;
  if (!item || (action.type !== 'equal' && action.leg >= legs)) {
    await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
    return;
  }
  let choice: LegChoice;
  if (action.type === 'max') {
    // The max as /books holds it now (it may have changed since the question was asked).
    const max = legMax(rt.store.getUser(pending.ownerId), item, action.leg);
    if (max === undefined) {
      await ctx.answerCallbackQuery({ text: ctx.tp('leg_max_gone', { leg: action.leg + 1 }), show_alert: true });
      return;
    }
    const problem = await fixedProblem(rt, ctx, item, action.leg, max, String(max));
    if (problem) {
      await ctx.answerCallbackQuery();
      await ctx.reply(problem);
      return;
    }
    choice = { kind: 'fixed', leg: action.leg, amount: max };
  } else choice = action.type === 'profit' ? { kind: 'profit', leg: action.leg } : { kind: 'equal' };
  await ctx.answerCallbackQuery();
  await answerChoice(rt, ctx, pending, req, result, choice);
}

export function legLimitedFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.callbackQuery(kindPattern('legLimit'), (ctx) => pressLegChoice(rt, ctx, decodeLegLimitAction(ctx.callbackQuery.data)));
  return composer;
}

/** The alert's stakes for this user, as its text showed them. */
async function shownStakes(rt: BotRuntime, ctx: BotContext, item: Opportunity) {
  const names = namesFor(await dictionariesFor(rt, ctx.lang), ctx.lang);
  const view = viewFor(ctx.user, ctx.lang, rt.clock.now());
  return { names, plan: alertStakes(item, names, view) };
}

async function answerRejected(rt: BotRuntime, ctx: BotContext, item: Opportunity, leg: number, pending: LegLimitInput): Promise<void> {
  const { names, plan } = await shownStakes(rt, ctx, item);
  const bookmakers = item.legs.map((l) => names.bookmaker(l.bookmakerId));
  const text = plan?.ok ? rejectedLegText(ctx.t, plan, leg, bookmakers, ctx.user?.currency ?? '') : undefined;
  if (!text) {
    await ctx.reply(ctx.t('leg_rejected_nothing'));
    return;
  }
  await ctx.reply(text);
  if (ctx.chat && ctx.from) await rt.pending.set(ctx.chat.id, ctx.from.id, { kind: 'hedge-odds', service: pending.service, itemId: pending.itemId, ownerId: pending.ownerId, leg });
}

/** The odds the user can get for the rejected leg now: the hedge stake and the worst case after it. */
export async function acceptHedgeOdds(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'hedge-odds' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const odds = parsePositive(text, 1000);
  if (!odds.ok || odds.value <= 1) {
    await ctx.reply(`${ctx.t('hedge_bad_odds', { value: clipEcho(text) })}\n${ctx.t('stake_try_again')}`);
    return;
  }
  const { req, result } = await itemFor(rt, pending);
  await rt.pending.clear(ctx.chat.id, ctx.from.id);
  const item = result.kind === 'found' ? result.items[0] : undefined;
  if (!item) {
    await sendLookupResult(rt, ctx, req, result);
    return;
  }
  const { names, plan } = await shownStakes(rt, ctx, item);
  if (!plan?.ok || !alertHedge(plan, pending.leg)) {
    await ctx.reply(ctx.t('leg_rejected_nothing'));
    return;
  }
  const answer = hedgeResultText(ctx.t, plan, pending.leg, names.bookmaker(item.legs[pending.leg]?.bookmakerId), odds.value, ctx.user?.currency ?? '');
  await ctx.reply(answer ?? ctx.t('hedge_bad_odds', { value: clipEcho(text) }));
}
