/**
 * The bot's one default parse mode: every text and caption it sends is Telegram HTML (each
 * interpolated value escaped by src/lib/html.ts), so an API transformer adds `parse_mode: 'HTML'`
 * wherever a method takes one and the call did not say otherwise, instead of each call repeating it.
 *
 * Ours rather than @grammyjs/parse-mode's: that plugin's transformer does the same for these
 * methods, and a dependency for twenty lines is not worth its updates. It must be installed on
 * every Api that sends: `bot.api`, the conversations' own Api objects (through their `plugins`,
 * which do not inherit `bot.api`'s transformers) and the outbox's Api.
 *
 * Not covered, so still explicit: an inline result's `input_message_content` (nested in
 * `answerInlineQuery`'s results), and `answerCallbackQuery`'s text, which is never parsed.
 */
import type { Transformer } from 'grammy';

/** Methods whose `text` or `caption` Telegram parses according to `parse_mode`. */
const PARSED_METHODS = new Set([
  'sendMessage',
  'editMessageText',
  'sendPhoto',
  'sendVideo',
  'sendAnimation',
  'sendAudio',
  'sendDocument',
  'sendVoice',
  'editMessageCaption',
  'copyMessage',
]);

/** The parse mode every message of the bot is written in. */
export const PARSE_MODE = 'HTML';

/** A transformer that makes HTML the default parse mode of `sendMessage`, `editMessageText` and the captioned sends. */
export function htmlByDefault(): Transformer {
  return (prev, method, payload, signal) => {
    if (!PARSED_METHODS.has(method) || typeof payload !== 'object' || payload === null || 'parse_mode' in payload) {
      return prev(method, payload, signal);
    }
    return prev(method, { ...payload, parse_mode: PARSE_MODE }, signal);
  };
}
