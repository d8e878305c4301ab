/**
 * ✅ Placed and ✏️ Placed differently on a message that names its print (`src/ledger/prints.ts`):
 * an alert in any state (new, moved, gone, back, "not an arb for you"), an /item or /event card,
 * an inline card. The position is what THAT message printed — its bookmakers, markets, odds and
 * stakes — for a week after it was sent, whatever the item did since and across restarts, since
 * the print is in the store. A message that printed no stakes (not an arb for the user) records
 * its odds with the stakes the user sends, leg by leg (the ✏️ flow of `placed.ts`).
 *
 * One position per message: a second tap says which position it already is and offers "➕ Record
 * another", which records a second one only when pressed. A position number is taken only once the
 * position can be made, so numbers run on without gaps. The pressed button then carries the
 * position's number (the message's text too, where the alert is re-drawn: `placed.ts`).
 *
 * Only the owner has the print (it is kept under their user id): anyone else's tap finds nothing.
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { encodeAlertAction } from '../../alerts/callbacks.js';
import { serviceFairOdds } from '../../alerts/position-from-alert.js';
import { makeLeg, positionSchema, type Position } from '../../ledger/model.js';
import { printedStakes, type AlertPrint } from '../../ledger/prints.js';
import { effectiveOdds } from '../../alerts/leg-pricing.js';
import type { Service } from '../../service/services.js';
import { translator } from '../../locales/i18n.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { askLeg, markAlert } from './placed.js';
import { giveBack } from './position-ids.js';

/** Where the pressed message is: a chat's message, or an inline message (no chat known). */
type Where = { chatId: number; messageId: number } | { inline: string } | undefined;

function whereOf(ctx: BotContext): Where {
  const message = ctx.callbackQuery?.message;
  if (message) return { chatId: message.chat.id, messageId: message.message_id };
  const inline = ctx.callbackQuery?.inline_message_id;
  return inline === undefined ? undefined : { inline };
}

/** The position already recorded from this message (or, for an inline card, from this print). */
function recordedFrom(positions: readonly Position[], where: Where, print: AlertPrint): Position | undefined {
  if (where && 'chatId' in where) return positions.findLast((p) => p.chatId === where.chatId && p.messageId === where.messageId && p.itemId === print.itemId);
  return positions.findLast((p) => p.chatId === null && p.printId === print.id);
}

/** `x` on a multiple of `step`, to the cent. */
const roundToStep = (x: number, step: number): number => Math.round(Math.round(x / step) * step * 100) / 100;

/**
 * Stakes to start from when the message printed none: the bankroll split so that every leg returns
 * alike (on the effective odds), each on the user's step. Only a suggestion: the user is asked for
 * what they placed, leg by leg.
 */
function suggestedStakes(print: AlertPrint, bankroll: number, step: number): number[] {
  const inverse = print.legs.map((l) => 1 / effectiveOdds(l.odds, l.lay, l.commission));
  const sum = inverse.reduce((a, b) => a + b, 0);
  return print.legs.map((l, i) => {
    const share = (bankroll * inverse[i]!) / sum;
    const stake = l.lay ? share / (l.odds - 1) : share;
    return Math.max(step, roundToStep(stake, step));
  });
}

/** The position of `print` with `stakes` (the printed ones by default), or undefined when a leg fails the schema. */
function positionOf(print: AlertPrint, id: string, now: number, where: Where, stakes: readonly number[], currency: string): Position | undefined {
  const parsed = positionSchema.safeParse({
    id,
    currency,
    kind: print.kind,
    service: print.service,
    itemId: print.itemId,
    eventId: print.eventId,
    sport: print.sport,
    league: print.league,
    event: print.event,
    eventStart: print.eventStart,
    placedAt: now,
    alertProfitPct: print.profitPct,
    chatId: where && 'chatId' in where ? where.chatId : null,
    messageId: where && 'chatId' in where ? where.messageId : null,
    printId: print.id,
    legs: print.legs.map((l, i) => makeLeg({ outcome: l.outcome, bookmaker: l.bookmaker, market: l.market, odds: l.odds, stake: stakes[i] ?? l.stake, commission: l.commission, lay: l.lay })),
  });
  return parsed.success ? parsed.data : undefined;
}

/** The message's keyboard with the pressed ✅ (or ✏️) button saying the position's number. */
function relabelled(markup: InlineKeyboardMarkup | undefined, pressed: string, label: string): InlineKeyboardMarkup | undefined {
  if (!markup) return undefined;
  let found = false;
  const rows = markup.inline_keyboard.map((row) =>
    row.map((b): InlineKeyboardButton => {
      if ('callback_data' in b && b.callback_data === pressed) {
        found = true;
        return { text: label, callback_data: b.callback_data };
      }
      return b;
    }),
  );
  return found ? { inline_keyboard: rows } : undefined;
}

/** Writes "✅ #n" into the pressed message's button (an inline card's two buttons are drawn again). */
async function markPressed(rt: BotRuntime, ctx: BotContext, where: Where, print: AlertPrint, p: Position): Promise<void> {
  const pressed = ctx.callbackQuery?.data;
  if (!where || pressed === undefined) return;
  const label = ctx.tp('ledger_placed_button', { id: p.id });
  try {
    if ('inline' in where) {
      const again = encodeAlertAction({ type: 'placedPrint', service: print.service as Service, printId: print.id, differently: true });
      const rows: InlineKeyboardButton[][] = [[{ text: label, callback_data: pressed }, ...(again && again !== pressed ? [{ text: ctx.tp('ledger_differently_button'), callback_data: again }] : [])]];
      await ctx.api.editMessageReplyMarkupInline(where.inline, { reply_markup: { inline_keyboard: rows } });
      return;
    }
    const markup = relabelled(ctx.callbackQuery?.message?.reply_markup, pressed, label);
    if (markup) await ctx.api.editMessageReplyMarkup(where.chatId, where.messageId, { reply_markup: markup });
  } catch (err) {
    rt.logger.debug({ err }, 'the pressed button could not be marked');
  }
}

/**
 * A press of ✅ / ✏️ on a printed message (`again`: "➕ Record another" was pressed, for the message
 * at `again.at`, so a second position is what the user asked for).
 */
export async function placeFromPrint(
  rt: BotRuntime,
  ctx: BotContext,
  action: { service: Service; printId: string; differently: boolean },
  again?: { at: Where },
): Promise<void> {
  const userId = ctx.from!.id;
  const user = rt.store.getUser(userId);
  const print = user ? await rt.store.prints.get(userId, action.printId) : undefined;
  if (!user || !print) return void (await ctx.answerCallbackQuery({ text: ctx.tp(user ? 'ledger_print_gone' : 'not_your_alert'), show_alert: true }));
  const where = again ? again.at : whereOf(ctx);
  const book = await rt.store.ledger.book(userId);
  const before = again ? undefined : recordedFrom(book.positions, where, print);
  if (before) {
    await ctx.answerCallbackQuery({ text: ctx.tp('ledger_already_placed', { id: before.id }), show_alert: true });
    const at = where && 'chatId' in where ? { chatId: where.chatId, messageId: where.messageId } : undefined;
    const data = encodeAlertAction({ type: 'placedAgain', service: action.service, printId: print.id, ...(at ? { at } : {}) });
    if (data) await ctx.api.sendMessage(user.chatId, ctx.t('ledger_record_another', { id: before.id }), { reply_markup: { inline_keyboard: [[{ text: ctx.t('btn_ledger_record_another'), callback_data: data }]] } });
    return;
  }
  const staked = printedStakes(print);
  const stakes = staked ? print.legs.map((l) => l.stake) : suggestedStakes(print, user.bankroll, user.roundingStep);
  const now = rt.clock.now();
  // Made once with a stand-in id: a message that cannot be recorded takes no number.
  const currency = user.currency ?? book.settings.currency ?? '';
  if (!positionOf(print, '0', now, where, stakes, currency)) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_cannot_place'), show_alert: true }));
  let position: Position;
  let id: string | undefined;
  try {
    id = await rt.store.ledger.takeId(userId);
    position = await rt.store.ledger.put(userId, positionOf(print, id, now, where, stakes, currency)!);
    id = undefined;
    if (book.settings.startBank === null) await rt.store.ledger.updateSettings(userId, { startBank: user.bankroll });
    if (position.kind === 'valuebets') {
      const held = (await rt.scheduler.latestItems(userId, print.service as Service)).find((o) => o.id === print.itemId);
      rt.store.ledger.noteClose(userId, position.id, 0, { odds: position.legs[0]!.odds, at: now, fairOdds: held ? serviceFairOdds(held) : null, market: null, index: 0 });
    }
  } catch (err) {
    if (id !== undefined) await giveBack(rt, userId, id);
    ctx.log.warn({ err }, 'recording a position failed');
    return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_store_failed'), show_alert: true }));
  }
  const differently = action.differently || !staked;
  await ctx.answerCallbackQuery({ text: ctx.tp(staked ? 'ledger_placed' : 'ledger_placed_ask_stakes', { id: position.id }) });
  if (!again) await markPressed(rt, ctx, where, print, position);
  await markAlert(rt, ctx.api, userId, position);
  if (differently) await askLeg(rt, ctx.api, user.chatId, userId, translator(user.lang), position, 0, true, { printId: print.id, ...(staked ? {} : { unprinted: true }) });
}

/** "➕ Record another" under the bot's question after a second tap. */
export async function placeAgain(rt: BotRuntime, ctx: BotContext, action: { service: Service; printId: string; at?: { chatId: number; messageId: number } }): Promise<void> {
  await placeFromPrint(rt, ctx, { service: action.service, printId: action.printId, differently: false }, { at: action.at });
}
