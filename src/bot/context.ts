/**
 * The bot's context type: grammY's context plus the user's language and `t`, a child logger per
 * update, the user's stored record (read fresh on every access) and the conversations controls.
 */
import type { ConversationFlavor } from '@grammyjs/conversations';
import type { Context, MiddlewareFn } from 'grammy';
import type { Logger } from '../logger.js';
import { pickLang, translator, type Lang, type Translate } from '../locales/i18n.js';
import type { UserRecord } from '../store/schema.js';
import type { BotRuntime } from './deps.js';
import { htmlToPlain } from './ui/plain.js';

export interface BotContextExtras {
  /** The language of this update's answers: the stored choice, else a guess from Telegram. */
  lang: Lang;
  /** Messages in `lang`; interpolated values are HTML-escaped. */
  t: Translate;
  /** Messages as plain text (callback answers and other places without HTML). */
  tp: Translate;
  /** A child logger carrying the update id, the user id and the chat id (never message text). */
  log: Logger;
  /** The sender's stored record, read fresh from the store; undefined before they start. */
  readonly user: Readonly<UserRecord> | undefined;
  /** Switches `lang` and `t` for the rest of this update (after /settings changes the language). */
  setLang(lang: Lang): void;
  /** Whether this update's button press was answered already (a second answer is Telegram's 400). */
  readonly callbackAnswered: boolean;
}

/** The context outside conversations. */
export type BotContext = ConversationFlavor<Context & BotContextExtras>;

/**
 * The context inside conversations (they build their own `t` from the language they were entered
 * with); `log` is installed by the conversations' plugin in `bot.ts`, like `log` above.
 */
export type ConvContext = Context & { log: Logger };

/** Installs `lang`, `t`, `log` and `user` on every context. */
export function contextMiddleware(rt: BotRuntime): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const fromId = ctx.from?.id;
    const stored = fromId === undefined ? undefined : rt.store.getUser(fromId);
    const lang = stored?.lang ?? pickLang(ctx.from?.language_code);
    ctx.lang = lang;
    ctx.t = translator(lang);
    ctx.tp = (key, vars) => htmlToPlain(ctx.t(key, vars));
    ctx.setLang = (next) => {
      ctx.lang = next;
      ctx.t = translator(next);
    };
    ctx.log = rt.logger.child({ update_id: ctx.update.update_id, user_id: fromId, chat_id: ctx.chat?.id });
    let answered = false;
    const answer = ctx.answerCallbackQuery.bind(ctx);
    ctx.answerCallbackQuery = (...args) => {
      answered = true;
      return answer(...args);
    };
    Object.defineProperty(ctx, 'callbackAnswered', { get: () => answered, configurable: true });
    Object.defineProperty(ctx, 'user', {
      get: () => (fromId === undefined ? undefined : rt.store.getUser(fromId)),
      configurable: true,
    });
    await next();
  };
}
