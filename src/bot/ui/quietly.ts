/**
 * Telegram calls whose failure does not change what the bot does next: editing an old prompt,
 * a chat action, taking buttons off, a toast. grammY's context shortcuts throw synchronously when
 * the update lacks what the call needs (a button on an inaccessible message has no message id),
 * which `.catch()` on the returned promise never sees; `quietly` takes the call as a function, so
 * both kinds end here.
 *
 * Only the failures known to be harmless pass without a word (the text is already what it would
 * be, the message or the press is too old, the update does not say which message); anything else
 * (Telegram refusing for another reason, the network) is logged at debug with its message, so an
 * operator wondering why a prompt did not change can find out. Inside a conversation a logged
 * failure is logged again on each replay of that conversation: rare, and only at debug.
 */
import { GrammyError, type Api } from 'grammy';
import { redactSecrets, type Logger } from '../../logger.js';

/** Telegram's 400 descriptions for an edit or answer that has nothing left to do. */
const HARMLESS_400 = [/message is not modified/i, /message to edit not found/i, /message can't be edited/i, /query is too old/i, /query id is invalid/i];

/** Whether `err` is a failure known to be harmless for a call `quietly` runs. */
export function isHarmlessTelegramFailure(err: unknown): boolean {
  if (err instanceof GrammyError) return err.error_code === 400 && HARMLESS_400.some((re) => re.test(err.description));
  // grammY's shortcut found no chat or message id in the update (a press on an inaccessible message).
  return err instanceof Error && err.message.startsWith('Missing information for API call');
}

/** Runs `call` (`what` names it in the log); true when it succeeded. A failure is swallowed, and logged unless known harmless. */
export async function quietly(log: Pick<Logger, 'debug'>, what: string, call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (err) {
    if (!isHarmlessTelegramFailure(err)) log.debug({ error: redactSecrets(err instanceof Error ? err.message : String(err)) }, `${what} failed; going on without it`);
    return false;
  }
}

/** Takes the buttons off an answered question (an empty keyboard), quietly: a question typed to or pressed loses them at once. */
export function takeButtonsOff(api: Pick<Api, 'editMessageReplyMarkup'>, log: Pick<Logger, 'debug'>, chatId: number, messageId: number): Promise<boolean> {
  return quietly(log, 'taking the buttons off a question', () => api.editMessageReplyMarkup(chatId, messageId, { reply_markup: { inline_keyboard: [] } }));
}
