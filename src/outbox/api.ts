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
  disable_notification?: boolean;
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
}

/** The part of grammY's `Api` the outbox uses; `bot.api` satisfies it. */
export interface OutboxApi {
  sendMessage(chatId: number, text: string, other?: OutboxMessageOptions): Promise<{ message_id: number }>;
  editMessageText(chatId: number, messageId: number, text: string, other?: OutboxMessageOptions): Promise<unknown>;
}

/** How a new message goes besides its buttons: without a sound, as a reply to another. */
export interface SendManner {
  silent?: boolean | undefined;
  replyTo?: number | undefined;
}

export function messageOptions(buttons: OutboxButtons | undefined, manner?: SendManner): OutboxMessageOptions {
  const options: OutboxMessageOptions = { parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
  if (manner?.silent === true) options.disable_notification = true;
  // The alert replied to may have been deleted: the re-alert still goes, alone.
  if (manner?.replyTo !== undefined) options.reply_parameters = { message_id: manner.replyTo, allow_sending_without_reply: true };
  if (buttons && buttons.length > 0) {
    options.reply_markup = {
      inline_keyboard: buttons.map((row) =>
        row.map((b) => ('url' in b ? { text: b.text, url: b.url } : { text: b.text, callback_data: b.callbackData })),
      ),
    };
  }
  return options;
}
