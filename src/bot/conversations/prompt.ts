/**
 * Waiting for the user's answer inside a conversation: a button of the current prompt or a
 * short text. Buttons of older prompts are answered as stale; other features' buttons (alerts,
 * /filters) pass on to them; a command typed in the middle closes the flow politely and runs.
 */
import type { Conversation } from '@grammyjs/conversations';
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { callbackKind, decodeFlowButton, encodeFlowButton, type FlowButton } from '../callback-data/index.js';
import { leadingCommand } from '../commands.js';
import type { BotContext, ConvContext } from '../context.js';
import type { Translate } from '../../locales/i18n.js';
import { clipEcho, MAX_SHORT_TEXT } from '../parse/values.js';
import { quietly, takeButtonsOff } from '../ui/quietly.js';

// A module of its own: the conversations' storage needs it without importing the flows (and their context).
export { FLOW_TIMEOUT_MS } from './timeout.js';

/**
 * A conversation keeps every update it took until it ends and replays them all on the next one
 * (1,200 kept answers: 35 ms and 87 MB per update), so its length is capped: after this many
 * answers that do not count (wrong value, stale button, not text) to one question, or this many
 * updates in all, it ends with a message saying so.
 */
export const MAX_INVALID_ANSWERS = 10;
export const MAX_FLOW_UPDATES = 150;

/** Answers to one question that did not count; pass the same one to every wait for that question. */
export interface Strikes {
  count: number;
}

/** What a command typed mid-flow says of the flow's answers, where not `flow_closed`. */
export type ClosedNote = 'flow_closed' | 'settings_closed';
const closedNotes = new WeakMap<Convo, ClosedNote>();

/** Sets what closing this flow early says (the settings menu stores each change at once, so "nothing was saved" would be wrong). */
export function sayOnClose(conversation: Convo, note: ClosedNote): void {
  closedNotes.set(conversation, note);
}

/** Updates taken by each run (replay) of a conversation: the handle is new per replay, so this counts deterministically. */
const flowUpdates = new WeakMap<Convo, number>();

/** Counts one answer that did not count; ends the conversation, saying so, past MAX_INVALID_ANSWERS. */
export async function strike(conversation: Convo, ctx: ConvContext, t: Translate, strikes: Strikes): Promise<void> {
  strikes.count += 1;
  if (strikes.count < MAX_INVALID_ANSWERS) return;
  await ctx.reply(t('flow_too_many_invalid', { max: MAX_INVALID_ANSWERS }));
  await conversation.halt();
}

export type Convo = Conversation<BotContext, ConvContext>;

export type Answer = { kind: 'button'; button: FlowButton; ctx: ConvContext } | { kind: 'text'; text: string; ctx: ConvContext };

/** A button of a conversation prompt. */
export function btn(text: string, button: FlowButton): InlineKeyboardButton.CallbackButton {
  return { text, callback_data: encodeFlowButton(button) };
}

export function keyboard(rows: InlineKeyboardButton[][]): InlineKeyboardMarkup {
  return { inline_keyboard: rows };
}

/** Sends a prompt and returns its message id (the only message whose buttons count from now on). */
export async function sendPrompt(ctx: ConvContext, text: string, markup?: InlineKeyboardMarkup): Promise<number> {
  const message = await ctx.reply(text, { ...(markup ? { reply_markup: markup } : {}) });
  return message.message_id;
}

/** Edits a prompt in place (a toggle or a page turn); "not modified" is fine. */
export async function editPrompt(ctx: ConvContext, messageId: number, text: string, markup?: InlineKeyboardMarkup): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  await quietly(ctx.log, 'editing a prompt', () => ctx.api.editMessageText(chatId, messageId, text, { ...(markup ? { reply_markup: markup } : {}) }));
}

/** Takes the buttons off an old prompt so that it reads as done. */
export async function closePrompt(ctx: ConvContext, messageId: number): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  await takeButtonsOff(ctx.api, ctx.log, chatId, messageId);
}

export async function waitAnswer(conversation: Convo, t: Translate, promptId: number, strikes: Strikes = { count: 0 }): Promise<Answer> {
  for (;;) {
    const ctx = await conversation.wait();
    const taken = (flowUpdates.get(conversation) ?? 0) + 1;
    flowUpdates.set(conversation, taken);
    if (taken > MAX_FLOW_UPDATES) {
      await ctx.reply(t('flow_too_long'));
      await conversation.halt();
    }
    const query = ctx.callbackQuery;
    if (query) {
      if (callbackKind(query.data) !== 'flow') await conversation.skip({ next: true });
      const button = decodeFlowButton(query.data);
      // A button of an older prompt, or data no prompt sends (forged): neither counts as an answer.
      if (query.message?.message_id !== promptId || button === undefined) {
        await quietly(ctx.log, 'answering a stale press', () => ctx.answerCallbackQuery({ text: t('stale_button') }));
        await strike(conversation, ctx, t, strikes);
        continue;
      }
      await quietly(ctx.log, 'answering a press', () => ctx.answerCallbackQuery());
      return { kind: 'button', button, ctx };
    }
    const message = ctx.message;
    if (!message) await conversation.skip({ next: true });
    const text = message?.text;
    if (text !== undefined && leadingCommand(text) !== undefined) {
      await ctx.reply(t(closedNotes.get(conversation) ?? 'flow_closed'));
      await conversation.halt({ next: true });
    }
    if (text === undefined) {
      await ctx.reply(t('expect_text_or_button'));
      await strike(conversation, ctx, t, strikes);
      continue;
    }
    if (text.length > MAX_SHORT_TEXT) {
      await ctx.reply(t('too_long', { max: MAX_SHORT_TEXT, value: clipEcho(text) }));
      await strike(conversation, ctx, t, strikes);
      continue;
    }
    return { kind: 'text', text, ctx };
  }
}
