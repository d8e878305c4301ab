/**
 * "✏️ Leg limited" under an arb alert: the bookmaker took less on one leg than the alert said. The
 * bot asks which leg and how much was accepted ("1 150"), then answers at once with the card of
 * the item re-solved around that amount (the other legs on their steps and caps, within the
 * bankroll: alerts/alert-stakes.ts with the leg fixed). Asked in the private chat, like the
 * stake amount, when the alert is in a group.
 */
import type { Service } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';
import { lookup } from '../actions/lookup.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { MAX_BANKROLL, parsePositive } from '../parse/values.js';
import { sendLookupResult } from './lookup.js';

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
  await sendLookupResult(rt, ctx, req, result, undefined, { [typed.leg]: amount.value });
}
