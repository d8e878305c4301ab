/**
 * The outbox's side of the Bot API: the two calls it makes, and the options every message and
 * edit goes with — HTML, no link preview, and the buttons as Telegram's inline keyboard.
 */
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { OutboxButtons } from './port.js';

export interface OutboxMessageOptions {
  parse_mode?: 'HTML';
  reply_markup?: InlineKeyboardMarkup;
  link_preview_options?: { is_disabled: boolean };
}

/** The part of grammY's `Api` the outbox uses; `bot.api` satisfies it. */
export interface OutboxApi {
  sendMessage(chatId: number, text: string, other?: OutboxMessageOptions): Promise<{ message_id: number }>;
  editMessageText(chatId: number, messageId: number, text: string, other?: OutboxMessageOptions): Promise<unknown>;
}

export function messageOptions(buttons: OutboxButtons | undefined): OutboxMessageOptions {
  const options: OutboxMessageOptions = { parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
  if (buttons && buttons.length > 0) {
    options.reply_markup = {
      inline_keyboard: buttons.map((row) =>
        row.map((b) => ('url' in b ? { text: b.text, url: b.url } : { text: b.text, callback_data: b.callbackData })),
      ),
    };
  }
  return options;
}
