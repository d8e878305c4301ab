/**
 * The buttons under alerts: all items of the event, stakes for another amount, mute the event
 * (24 h, with an offer to mute longer or wider), snooze the whole service (1 h), ✅ placed / ✏️
 * placed differently (`placed.ts`). Only the
 * alert's owner may use them; others get a polite no.
 */
import { Composer } from 'grammy';
import { eventMuteKey } from '../../store/mutes.js';
import { subscriptionKey } from '../../store/schema.js';
import { SUMMARY_LINES } from '../../alerts/first-read.js';
import { alertItem, lookup } from '../actions/lookup.js';
import { decodeAlertAction, kindPattern, type AlertAction } from '../callback-data/index.js';
import { askWhereAnswerable } from '../ask-private.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { Store } from '../../store/port.js';
import { refuseWhileSecretExpected } from '../flows.js';
import type { PendingInput } from '../pending.js';
import { MAX_BANKROLL, parseAmount } from '../parse/values.js';
import { BANKROLL_EXAMPLE } from '../actions/settings.js';
import { fmtNum } from '../ui/filter-text.js';
import { serviceLabel } from '../../locales/services.js';
import { kindOf } from '../../service/services.js';
import { formatClockTime } from '../ui/time-words.js';
import { askLegLimit } from './leg-limited.js';
import { sendLookupResult } from './lookup.js';
import { eventName, heldItemOf, muteOffer, storeMute } from './muted.js';
import { namesForLang } from '../ui/cards.js';
import { quietly } from '../ui/quietly.js';
import { placeFromAlert } from './placed.js';
import { placeAgain, placeFromPrint } from './placed-print.js';

export const MUTE_MS = 24 * 3_600_000;
export const SNOOZE_MS = 3_600_000;

/** What the ownership checks read: the user and their alert state (reloaded on a miss). */
export interface AlertOwners {
  store: Pick<Store, 'getUser' | 'alerts' | 'loadAlerts'>;
}

/**
 * Whether `userId` owns the alert this button sits under. In the user's private chat (whose id is
 * the user's own) every alert is theirs; in a group or channel the message must be one the bot
 * sent for their filter, even if an old record names that group as the user's chat (audit 3, L1).
 */
export function ownsAlert(rt: AlertOwners, userId: number, chatId: number, messageId: number | undefined, action: AlertAction): boolean {
  const user = rt.store.getUser(userId);
  if (!user) return false;
  if (chatId === userId && chatId === user.chatId) return true;
  if (chatId !== user.alertChatId || messageId === undefined) return false;
  // The quiet-hours summary is no alert of the state: it went to the user's alert chat, and opening
  // a card reads only the presser's own items.
  if (action.type === 'open') return true;
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

/**
 * Why a button under an alert is refused. With no record of the presser (deleted by /forget), an
 * alert in their own private chat can only be theirs, from before: it says so, not "someone
 * else's". In a group a presser without a record may be anyone, so the group keeps the refusal.
 */
function notOwnedKey(rt: BotRuntime, userId: number, chatType: string | undefined, chatId: number | undefined): 'not_your_alert' | 'alert_data_deleted' {
  const ownPrivateChat = chatType === 'private' && chatId === userId;
  return ownPrivateChat && !rt.store.getUser(userId) ? 'alert_data_deleted' : 'not_your_alert';
}

/** The typed amount after "stakes for another amount": the card again with that bankroll. */
export async function acceptStakeAmount(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'stake-amount' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const amount = parseAmount(text, MAX_BANKROLL, BANKROLL_EXAMPLE);
  if (!amount.ok) {
    await ctx.reply(`${ctx.t(amount.problem.key, amount.problem.vars)}\n${ctx.t('stake_try_again')}`);
    return;
  }
  await rt.pending.clear(ctx.chat.id, ctx.from.id);
  const { req, result } = await alertItem(rt, pending.ownerId, pending.service, pending.itemId);
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
    // A printed message's ✅ / ✏️: the print is kept under its owner's id, so only they find it —
    // and it may be an inline card, with no chat to check.
    if (action.type === 'placedPrint' || action.type === 'placedAgain') {
      if (action.type === 'placedPrint' && action.differently && (await refuseWhileSecretExpected(rt, ctx))) return;
      if (action.type === 'placedPrint') await placeFromPrint(rt, ctx, action);
      else await placeAgain(rt, ctx, action);
      return;
    }
    const chatId = ctx.chat?.id;
    const userId = ctx.from.id;
    const messageId = ctx.callbackQuery.message?.message_id;
    if (chatId === undefined || !(await ownsAlertNow(rt, userId, chatId, messageId, action))) {
      await ctx.answerCallbackQuery({ text: ctx.tp(notOwnedKey(rt, userId, ctx.chat?.type, chatId)), show_alert: true });
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
        // A valuebet is one bet: the amount is its stake, not a sum to split between legs.
        const questionKey = kindOf(action.service) === 'valuebets' ? 'ask_stake_amount_valuebet' : 'ask_stake_amount';
        const question = ctx.t(questionKey, { bankroll: fmtNum(user?.bankroll ?? 100) });
        await askWhereAnswerable(rt, ctx, {
          text: question,
          input: () => ({ kind: 'stake-amount', service: action.service, itemId: action.itemId, ownerId: userId }),
          askedPrivately: 'stake_asked_private',
          what: 'the stake amount',
        });
        return;
      }
      case 'limited': {
        if (await refuseWhileSecretExpected(rt, ctx)) return;
        await askLegLimit(rt, ctx, action.service, action.itemId, user);
        return;
      }
      case 'mute': {
        // Answered first, naming the event, so the tap feels done; the offer to mute longer or
        // wider follows in the private chat (mutes are the user's own, never a group's).
        const held = await heldItemOf(rt, userId, action.service, (o) => o.event.id === action.eventId);
        const name = held ? eventName(held) : action.eventId;
        const privateChat = user?.chatId ?? userId;
        const done = ctx.tp('mute_done_event', { name });
        await ctx.answerCallbackQuery({ text: chatId === privateChat ? done : `${done} ${ctx.tp('mute_offer_private')}` });
        storeMute(rt, userId, eventMuteKey(action.eventId), { until: now + MUTE_MS, label: name }, now);
        const names = await namesForLang(rt, ctx.lang);
        const offer = muteOffer(ctx, held, action.service, action.eventId, names);
        await quietly(ctx.log, 'offering longer or wider mutes', () =>
          ctx.api.sendMessage(privateChat, ctx.t('mute_offer', { name }), { reply_markup: offer }),
        );
        return;
      }
      case 'open': {
        // From the quiet-hours summary: the held alert's card, as it is now.
        await ctx.answerCallbackQuery();
        const { req, result } = await alertItem(rt, userId, action.service, action.itemId);
        await sendLookupResult(rt, ctx, req, result);
        return;
      }
      case 'openAll': {
        // The pressed summary names its items through the presser's own alert entries: nothing in the button to forge.
        const pressed = ctx.callbackQuery?.message;
        const listed = rt.store.alerts
          .entries(subscriptionKey(userId, action.service))
          .filter(([, e]) => e.summary === true && e.messageId === pressed?.message_id && e.chatId === pressed?.chat.id && e.goneAt === null)
          .slice(0, SUMMARY_LINES);
        if (listed.length === 0) return void (await ctx.answerCallbackQuery({ text: ctx.tp('first_summary_all_gone'), show_alert: true }));
        await ctx.answerCallbackQuery();
        for (const [itemId] of listed) {
          const { req, result } = await alertItem(rt, userId, action.service, itemId);
          await sendLookupResult(rt, ctx, req, result);
        }
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
