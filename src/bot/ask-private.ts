/**
 * A question asked from a button, where its answer can come: in the chat of the press when that is
 * the user's private chat, else in their private chat (in a group or channel the bot reads no plain
 * messages). The pending question is set in the chat that asked it, with the asking message's id.
 */
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { MessageKey } from '../locales/i18n.js';
import type { BotContext } from './context.js';
import type { BotRuntime } from './deps.js';
import type { PendingInput } from './pending.js';

export interface PrivateQuestion {
  text: string;
  markup?: InlineKeyboardMarkup;
  /** The pending question, given the id of the message that asks it. */
  input: (questionId: number) => PendingInput;
  /** The toast when the question went to the private chat. */
  askedPrivately: MessageKey;
  /** What was asked, for the log line when the private chat cannot be reached. */
  what: string;
}

export async function askWhereAnswerable(rt: BotRuntime, ctx: BotContext, q: PrivateQuestion): Promise<void> {
  const userId = ctx.from?.id;
  const chatId = ctx.chat?.id;
  if (userId === undefined || chatId === undefined) return;
  const privateChat = ctx.user?.chatId ?? userId;
  const extra = q.markup ? { reply_markup: q.markup } : {};
  if (chatId === privateChat) {
    await ctx.answerCallbackQuery();
    const sent = await ctx.reply(q.text, extra);
    await rt.pending.set(chatId, userId, q.input(sent.message_id));
    return;
  }
  try {
    const sent = await ctx.api.sendMessage(privateChat, q.text, extra);
    await rt.pending.set(privateChat, userId, q.input(sent.message_id));
  } catch (err) {
    ctx.log.info({ err }, `could not ask for ${q.what} in the private chat`);
    await ctx.answerCallbackQuery({ text: ctx.tp('stake_private_unreachable'), show_alert: true });
    return;
  }
  await ctx.answerCallbackQuery({ text: ctx.tp(q.askedPrivately) });
}
