/**
 * The buttons under alerts: all items of the event, stakes for another amount, mute the event
 * (24 h), snooze the filter (1 h), ✅ placed / ✏️ placed differently (`placed.ts`). Only the alert's owner may use them; others get a polite no.
 */
import { Composer } from 'grammy';
import { withMutedEvent } from '../../store/muted-events.js';
import { subscriptionKey } from '../../store/schema.js';
import { lookup } from '../actions/lookup.js';
import { decodeAlertAction, kindPattern, type AlertAction } from '../callback-data/index.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { Store } from '../../store/port.js';
import { refuseWhileSecretExpected } from '../flows.js';
import type { PendingInput } from '../pending.js';
import { MAX_BANKROLL, parsePositive } from '../parse/values.js';
import { fmtNum } from '../ui/filter-text.js';
import { serviceLabel } from '../../locales/services.js';
import { formatClockTime } from '../ui/time-words.js';
import { sendLookupResult } from './lookup.js';
import { placeFromAlert } from './placed.js';

export const MUTE_MS = 24 * 3_600_000;
export const SNOOZE_MS = 3_600_000;

/** What the ownership checks read: the user and their alert state (reloaded on a miss). */
export interface AlertOwners {
  store: Pick<Store, 'getUser' | 'alerts' | 'loadAlerts'>;
}

/**
 * Whether `userId` owns the alert this button sits under. In the user's private chat every alert
 * is theirs; in a group or channel the message must be one the bot sent for their filter.
 */
export function ownsAlert(rt: AlertOwners, userId: number, chatId: number, messageId: number | undefined, action: AlertAction): boolean {
  const user = rt.store.getUser(userId);
  if (!user) return false;
  if (chatId === user.chatId) return true;
  if (chatId !== user.alertChatId || messageId === undefined) return false;
  return rt.store.alerts
    .entries(subscriptionKey(userId, action.service))
    .some(([, entry]) => entry.chatId === chatId && entry.messageId === messageId);
}

/**
 * `ownsAlert`, read again from the store's shared copy when it says no in the user's alert group:
 * in a cluster the front holds alert state loaded at its start, while workers keep adding the
 * messages they alert, so an alert sent since is found only after a reload of that user's state.
 */
export async function ownsAlertNow(rt: AlertOwners, userId: number, chatId: number, messageId: number | undefined, action: AlertAction): Promise<boolean> {
  if (ownsAlert(rt, userId, chatId, messageId, action)) return true;
  const user = rt.store.getUser(userId);
  if (!user || chatId !== user.alertChatId || messageId === undefined) return false;
  await rt.store.loadAlerts([userId]);
  return ownsAlert(rt, userId, chatId, messageId, action);
}

/** The typed amount after "stakes for another amount": the card again with that bankroll. */
export async function acceptStakeAmount(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'stake-amount' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const amount = parsePositive(text, MAX_BANKROLL);
  if (!amount.ok) {
    await ctx.reply(`${ctx.t(amount.problem.key, amount.problem.vars)}\n${ctx.t('stake_try_again')}`);
    return;
  }
  rt.pending.clear(ctx.chat.id, ctx.from.id);
  const owner = rt.store.getUser(pending.ownerId);
  const req = { what: 'item' as const, id: pending.itemId, service: pending.service };
  const held = (await rt.scheduler.latestItems(pending.ownerId, pending.service)).find((o) => o.id === pending.itemId);
  const result = held ? { kind: 'found' as const, items: [held], source: 'service' as const } : await lookup(rt, owner, req);
  await sendLookupResult(rt, ctx, req, result, amount.value);
}

export function alertActionsFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.callbackQuery(kindPattern('alert'), async (ctx) => {
    const action = decodeAlertAction(ctx.callbackQuery.data);
    if (!action) {
      await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
      return;
    }
    const chatId = ctx.chat?.id;
    const userId = ctx.from.id;
    const messageId = ctx.callbackQuery.message?.message_id;
    if (chatId === undefined || !(await ownsAlertNow(rt, userId, chatId, messageId, action))) {
      await ctx.answerCallbackQuery({ text: ctx.tp('not_your_alert'), show_alert: true });
      return;
    }
    const user = rt.store.getUser(userId);
    const now = rt.clock.now();
    switch (action.type) {
      case 'event': {
        await ctx.answerCallbackQuery();
        const req = { what: 'event' as const, id: action.eventId, service: action.service };
        await sendLookupResult(rt, ctx, req, await lookup(rt, user, req));
        return;
      }
      case 'stakes': {
        // The secret question stays open until it is answered or cancelled.
        if (await refuseWhileSecretExpected(rt, ctx)) return;
        const question = ctx.t('ask_stake_amount', { bankroll: fmtNum(user?.bankroll ?? 100) });
        const privateChat = user?.chatId ?? userId;
        const input = { kind: 'stake-amount', service: action.service, itemId: action.itemId, ownerId: userId } as const;
        if (chatId === privateChat) {
          rt.pending.set(chatId, userId, input);
          await ctx.answerCallbackQuery();
          await ctx.reply(question);
          return;
        }
        // In a group or channel the bot does not read plain messages: the question goes to the private chat.
        try {
          await ctx.api.sendMessage(privateChat, question);
        } catch (err) {
          ctx.log.info({ err }, 'could not ask for the stake amount in the private chat');
          await ctx.answerCallbackQuery({ text: ctx.tp('stake_private_unreachable'), show_alert: true });
          return;
        }
        rt.pending.set(privateChat, userId, input);
        await ctx.answerCallbackQuery({ text: ctx.tp('stake_asked_private') });
        return;
      }
      case 'mute': {
        rt.store.updateUser(userId, (draft) => {
          draft.mutedEvents = withMutedEvent(draft.mutedEvents, action.eventId, now + MUTE_MS, now);
        });
        await ctx.answerCallbackQuery({ text: ctx.tp('event_muted') });
        return;
      }
      case 'placed':
      case 'placedDifferently':
        if (action.type === 'placedDifferently' && (await refuseWhileSecretExpected(rt, ctx))) return;
        await placeFromAlert(rt, ctx, action, action.type === 'placedDifferently');
        return;
      case 'snooze': {
        const until = now + SNOOZE_MS;
        rt.store.updateUser(userId, (draft) => {
          draft.snoozedUntil[action.service] = until;
        });
        rt.scheduler.refreshUser(userId);
        await ctx.answerCallbackQuery({
          text: ctx.tp('filter_snoozed', {
            service: serviceLabel(action.service, ctx.t),
            until: formatClockTime(until, user?.timeZone ?? 'UTC', ctx.lang),
          }),
        });
        return;
      }
    }
  });

  return composer;
}
