/**
 * "✏️ Leg limited" under an arb alert: the bookmaker took less on one leg than the alert said. The
 * bot asks which leg and how much was accepted ("1 150"), then answers at once with the card of
 * the item re-solved around that amount (the other legs on their steps and caps, within the
 * bankroll: alerts/alert-stakes.ts with the leg fixed). Asked in the private chat, like the
 * stake amount, when the alert is in a group. "<leg> 0" says the leg was rejected after the others
 * were placed (as the alert showed them): the answer is the break-even odds to hedge it, and the
 * hedge stake at the odds the user then sends.
 */
import { alertStakes } from '../../alerts/alert-stakes.js';
import { fmtMoney, fmtOdds } from '../../alerts/printed.js';
import { hedgeAt, hedgePlan } from '../../alerts/stake-modes.js';
import { namesFor } from '../../service/dictionaries-model.js';
import type { Opportunity } from '../../service/opportunity.js';
import type { Service } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';
import { lookup } from '../actions/lookup.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { MAX_BANKROLL, parsePositive } from '../parse/values.js';
import { dictionariesFor, viewFor } from '../ui/cards.js';
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

/** The button was pressed: ask which leg and how much (in the private chat when the alert is in a group). */
export async function askLegLimit(rt: BotRuntime, ctx: BotContext, service: Service, itemId: string, user: Readonly<UserRecord> | undefined): Promise<void> {
  const userId = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (userId === undefined || chatId === undefined) return;
  const question = ctx.t('ask_leg_limit');
  const privateChat = user?.chatId ?? userId;
  const input: PendingInput = { kind: 'leg-limit', service, itemId, ownerId: userId };
  if (chatId === privateChat) {
    rt.pending.set(chatId, userId, input);
    await ctx.answerCallbackQuery();
    await ctx.reply(question);
    return;
  }
  try {
    await ctx.api.sendMessage(privateChat, question);
  } catch (err) {
    ctx.log.info({ err }, 'could not ask for the accepted amount in the private chat');
    await ctx.answerCallbackQuery({ text: ctx.tp('stake_private_unreachable'), show_alert: true });
    return;
  }
  rt.pending.set(privateChat, userId, input);
  await ctx.answerCallbackQuery({ text: ctx.tp('stake_asked_private') });
}

/** The typed "leg amount": the card re-solved around it, or why not (the question stays open). */
export async function acceptLegLimit(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'leg-limit' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const owner = rt.store.getUser(pending.ownerId);
  const req = { what: 'item' as const, id: pending.itemId, service: pending.service };
  const held = (await rt.scheduler.latestItems(pending.ownerId, pending.service)).find((o) => o.id === pending.itemId);
  const result = held ? { kind: 'found' as const, items: [held], source: 'service' as const } : await lookup(rt, owner, req);
  if (result.kind !== 'found') {
    // Gone, or no key: the lookup's own answer says so, and the question is over.
    rt.pending.clear(ctx.chat.id, ctx.from.id);
    await sendLookupResult(rt, ctx, req, result);
    return;
  }
  const legs = result.items[0]?.legs.length ?? 0;
  const typed = parseLegAmount(text, legs);
  const item = result.items[0];
  if (typed && item && PROFIT.test(typed.amount)) {
    rt.pending.clear(ctx.chat.id, ctx.from.id);
    await sendLookupResult(rt, ctx, req, result, undefined, { profitOn: typed.leg });
    return;
  }
  if (typed && item && REJECTED.test(typed.amount)) {
    rt.pending.clear(ctx.chat.id, ctx.from.id);
    await answerRejected(rt, ctx, item, typed.leg, pending);
    return;
  }
  if (!typed) {
    await ctx.reply(`${ctx.t('leg_limit_bad', { n: Math.max(legs, 2) })}\n${ctx.t('stake_try_again')}`);
    return;
  }
  const amount = parsePositive(typed.amount, MAX_BANKROLL);
  if (!amount.ok) {
    await ctx.reply(`${ctx.t(amount.problem.key, amount.problem.vars)}\n${ctx.t('stake_try_again')}`);
    return;
  }
  rt.pending.clear(ctx.chat.id, ctx.from.id);
  await sendLookupResult(rt, ctx, req, result, undefined, { fixedLegs: { [typed.leg]: amount.value } });
}

/** The alert's stakes for this user, as its text showed them. */
async function shownStakes(rt: BotRuntime, ctx: BotContext, item: Opportunity) {
  const names = namesFor(await dictionariesFor(rt, ctx.lang), ctx.lang);
  const view = viewFor(ctx.user, ctx.lang, rt.clock.now());
  return { names, plan: alertStakes(item, names, view) };
}

async function answerRejected(rt: BotRuntime, ctx: BotContext, item: Opportunity, leg: number, pending: Extract<PendingInput, { kind: 'leg-limit' }>): Promise<void> {
  const { names, plan } = await shownStakes(rt, ctx, item);
  const rejected = plan?.ok ? plan.legs[leg] : undefined;
  if (!plan?.ok || !rejected) {
    await ctx.reply(ctx.t('leg_rejected_nothing'));
    return;
  }
  const placed = plan.legs.filter((_, i) => i !== leg);
  const hedge = hedgePlan(placed, rejected);
  if (!Number.isFinite(hedge.breakEvenOdds)) {
    await ctx.reply(ctx.t('leg_rejected_nothing'));
    return;
  }
  const placedText = plan.legs
    .flatMap((l, i) => (i === leg ? [] : [`${i + 1}) ${names.bookmaker(item.legs[i]?.bookmakerId)} ${fmtMoney(l.stake, { whole: true })} @ ${fmtOdds(l.odds)}`]))
    .join(', ');
  await ctx.reply(
    ctx.t('leg_rejected', { leg: leg + 1, book: names.bookmaker(item.legs[leg]?.bookmakerId), placed: placedText, odds: fmtOdds(hedge.breakEvenOdds) }),
  );
  if (ctx.chat && ctx.from) rt.pending.set(ctx.chat.id, ctx.from.id, { kind: 'hedge-odds', service: pending.service, itemId: pending.itemId, ownerId: pending.ownerId, leg });
}

/** The odds the user can get for the rejected leg now: the hedge stake and the worst case after it. */
export async function acceptHedgeOdds(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'hedge-odds' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const odds = parsePositive(text, 1000);
  if (!odds.ok || odds.value <= 1) {
    await ctx.reply(`${ctx.t('hedge_bad_odds')}\n${ctx.t('stake_try_again')}`);
    return;
  }
  const held = (await rt.scheduler.latestItems(pending.ownerId, pending.service)).find((o) => o.id === pending.itemId);
  const req = { what: 'item' as const, id: pending.itemId, service: pending.service };
  const result = held ? { kind: 'found' as const, items: [held], source: 'service' as const } : await lookup(rt, rt.store.getUser(pending.ownerId), req);
  rt.pending.clear(ctx.chat.id, ctx.from.id);
  const item = result.kind === 'found' ? result.items[0] : undefined;
  if (!item) {
    await sendLookupResult(rt, ctx, req, result);
    return;
  }
  const { names, plan } = await shownStakes(rt, ctx, item);
  const rejected = plan?.ok ? plan.legs[pending.leg] : undefined;
  if (!plan?.ok || !rejected) {
    await ctx.reply(ctx.t('leg_rejected_nothing'));
    return;
  }
  const hedge = hedgePlan(
    plan.legs.filter((_, i) => i !== pending.leg),
    rejected,
  );
  const at = hedgeAt(hedge, odds.value, rejected);
  if (!at) {
    await ctx.reply(ctx.t('hedge_bad_odds'));
    return;
  }
  const stake = rejected.lay
    ? ctx.t('hedge_lay_stake', { stake: fmtMoney(at.stake), liability: fmtMoney(at.liability) })
    : fmtMoney(at.stake);
  await ctx.reply(
    ctx.t('hedge_result', {
      leg: pending.leg + 1,
      book: names.bookmaker(item.legs[pending.leg]?.bookmakerId),
      odds: fmtOdds(odds.value),
      stake,
      worst: fmtMoney(at.worstProfit, { signed: true }),
      below: at.worstProfit < 0 ? ctx.t('hedge_below', { odds: fmtOdds(hedge.breakEvenOdds) }) : '',
    }),
  );
}
