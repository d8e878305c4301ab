/**
 * ALLOWED_USER_IDS: when set, everyone else gets a polite refusal in their language (admins are
 * always allowed). Updates without a person behind them are dropped.
 */
import type { MiddlewareFn } from 'grammy';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

export function accessGuard(rt: BotRuntime): MiddlewareFn<BotContext> {
  const allowList = rt.config.ALLOWED_USER_IDS;
  const allowed = new Set([...allowList, ...rt.config.ADMIN_USER_IDS]);
  return async (ctx, next) => {
    const id = ctx.from?.id;
    if (allowList.length === 0 || (id !== undefined && allowed.has(id))) return next();
    ctx.log.info('refused: not on the allow-list');
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text: ctx.tp('not_allowed'), show_alert: true });
    } else if (ctx.inlineQuery) {
      await ctx.answerInlineQuery([], { cache_time: 60, is_personal: true });
    } else if (ctx.message && ctx.chat?.type === 'private') {
      await ctx.reply(ctx.t('not_allowed'), { parse_mode: 'HTML' });
    }
  };
}
