/**
 * Checks the fake applies to what the bot sends, with the Bot API's own error descriptions:
 * parameters (zod), text length and HTML, inline keyboards; and keyboard comparison for
 * "message is not modified".
 */
import type { z } from 'zod';
import { ApiFailure } from './errors.js';
import { checkTelegramHtml } from './html.js';
import { inlineKeyboardSchema, type InlineKeyboard } from './schemas.js';

/** Telegram's limit on a message's text, counted after entity parsing. */
export const MAX_MESSAGE_LENGTH = 4096;

/** Validates a method's parameters; a failure reads like Telegram's ("chat_id is empty"). */
export function parse<S extends z.ZodType>(schema: S, payload: Record<string, unknown>): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? 'parameters');
  if (issue?.message === 'BOT_COMMAND_INVALID') throw new ApiFailure(400, 'Bad Request: BOT_COMMAND_INVALID');
  if (payload[field] === undefined) throw new ApiFailure(400, `Bad Request: ${field} is empty`);
  throw new ApiFailure(400, `Bad Request: invalid ${field}`);
}

/** Refuses a badly formed or too long text. */
export function checkText(text: string, parseMode: string | undefined): void {
  let length = text.length;
  if (parseMode !== undefined && parseMode !== '') {
    const mode = parseMode.toLowerCase();
    if (mode === 'html') {
      const check = checkTelegramHtml(text);
      if (!check.ok) throw new ApiFailure(400, check.error);
      length = check.visibleLength;
    } else if (mode !== 'markdown' && mode !== 'markdownv2') {
      throw new ApiFailure(400, 'Bad Request: unsupported parse_mode');
    }
  }
  if (length > MAX_MESSAGE_LENGTH) throw new ApiFailure(400, 'Bad Request: message is too long');
}

/**
 * Refuses the inline keyboards Telegram refuses. `private`: whether the chat is a private chat with
 * the bot (web_app buttons are available only there; WebAppInfo.url must be https).
 */
export function checkKeyboard(markup: InlineKeyboard, inPrivate = true): void {
  const actions = [
    'callback_data',
    'url',
    'switch_inline_query',
    'switch_inline_query_current_chat',
    'copy_text',
    'web_app',
    'login_url',
    'pay',
  ] as const;
  for (const button of markup.inline_keyboard.flat()) {
    if (button.text.trim() === '') throw new ApiFailure(400, 'Bad Request: BUTTON_TEXT_INVALID');
    const set = actions.filter((a) => button[a] !== undefined);
    if (set.length !== 1) {
      throw new ApiFailure(400, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
    }
    if (button.web_app !== undefined) {
      if (!inPrivate) throw new ApiFailure(400, 'Bad Request: BUTTON_TYPE_INVALID');
      if (!/^https:\/\/\S+$/.test(button.web_app.url)) throw new ApiFailure(400, 'Bad Request: BUTTON_URL_INVALID');
    }
    const data = button.callback_data;
    if (data !== undefined && (data.length === 0 || Buffer.byteLength(data, 'utf8') > 64)) {
      throw new ApiFailure(400, 'Bad Request: BUTTON_DATA_INVALID');
    }
    if (button.url !== undefined && !/^(https?|tg):\/\/\S+$/.test(button.url)) {
      throw new ApiFailure(400, `Bad Request: inline keyboard button URL '${button.url}' is invalid`);
    }
  }
}

/** The inline keyboard in a reply markup, if it is one. */
export function inlineOf(markup: unknown): InlineKeyboard | undefined {
  const parsed = inlineKeyboardSchema.safeParse(markup);
  return parsed.success ? parsed.data : undefined;
}

/** Compares keyboards by content; an empty keyboard is no keyboard. */
export function markupKey(markup: unknown): string {
  const inline = inlineOf(markup);
  if (!inline || inline.inline_keyboard.every((row) => row.length === 0)) return '';
  return JSON.stringify(inline.inline_keyboard.map((row) => row.map((b) => sortKeys(b))));
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)));
}
