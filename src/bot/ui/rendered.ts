/**
 * What the bot last put into the messages it edits in place (/filters, /forget), so an edit
 * that would change nothing is not sent: several presses of one button (a double tap, presses
 * queued while the bot was busy) would otherwise each earn Telegram's 400 "message is not
 * modified". Bounded: the oldest entries go first.
 */
import type { Context } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { Logger } from '../../logger.js';
import { quietly } from './quietly.js';

/**
 * What `editInPlace` needs of an update's context. Named here rather than taken from
 * `../context.ts`: the runtime (`../deps.ts`) holds a `RenderedMessages`, and the context type
 * imports the runtime, so importing the context back would close a circle.
 */
export type EditContext = Pick<Context, 'chat' | 'callbackQuery' | 'editMessageText'> & { log: Pick<Logger, 'debug'> };

export const RENDERED_MAX = 2_000;

export class RenderedMessages {
  private readonly last = new Map<string, string>();

  constructor(private readonly max = RENDERED_MAX) {}

  /** True when (chat, message) shows exactly this already (as far as the bot put it there). */
  unchanged(chatId: number, messageId: number, text: string, markup: InlineKeyboardMarkup | undefined): boolean {
    return this.last.get(`${chatId}:${messageId}`) === JSON.stringify([text, markup ?? null]);
  }

  /** Remembers what an edit put into (chat, message). */
  remember(chatId: number, messageId: number, text: string, markup: InlineKeyboardMarkup | undefined): void {
    const key = `${chatId}:${messageId}`;
    const value = JSON.stringify([text, markup ?? null]);
    this.last.delete(key);
    this.last.set(key, value);
    if (this.last.size > this.max) {
      const oldest = this.last.keys().next().value;
      if (oldest !== undefined) this.last.delete(oldest);
    }
  }

  get size(): number {
    return this.last.size;
  }
}

/**
 * Edits the message under the pressed button to `text` (and `markup`, or none), unless it shows
 * that already; failures do not matter (the message may be old or gone).
 */
export async function editInPlace(rendered: RenderedMessages, ctx: EditContext, text: string, markup?: InlineKeyboardMarkup): Promise<void> {
  const chatId = ctx.chat?.id;
  const messageId = ctx.callbackQuery?.message?.message_id;
  if (chatId !== undefined && messageId !== undefined && rendered.unchanged(chatId, messageId, text, markup)) return;
  const edited = await quietly(ctx.log, 'editing the message under a button', () => ctx.editMessageText(text, { ...(markup ? { reply_markup: markup } : {}) }));
  if (edited && chatId !== undefined && messageId !== undefined) rendered.remember(chatId, messageId, text, markup);
}
