/**
 * ALLOWED_USER_IDS: when set, everyone else gets a polite refusal in their language (admins are
 * always allowed). Updates without a person behind them are dropped. Someone taken off the list
 * who still has data here may stop it: /pause, /forget and the /forget buttons pass (and the
 * scheduler stops polling for them, see `userAllowed`).
 */
import type { MiddlewareFn } from 'grammy';
import type { Config } from '../../config.js';
import { callbackKind } from '../callback-data/index.js';
import { leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

/** Whether the bot serves this user: no allow-list, or on it, or an admin. Also used for polling. */
export function userAllowed(config: Pick<Config, 'ALLOWED_USER_IDS' | 'ADMIN_USER_IDS'>): (userId: number) => boolean {
  const allowList = config.ALLOWED_USER_IDS;
  const allowed = new Set([...allowList, ...config.ADMIN_USER_IDS]);
  return (userId) => allowList.length === 0 || allowed.has(userId);
}

/** What a user no longer on the list may still do about their stored data. */
const WINDING_DOWN_COMMANDS = new Set(['pause', 'forget']);

function windsDown(ctx: BotContext): boolean {
  if (ctx.chat?.type !== 'private') return false;
  const data = ctx.callbackQuery?.data;
  if (data !== undefined) return callbackKind(data) === 'forget';
  const command = leadingCommand(ctx.message?.text);
  return command !== undefined && WINDING_DOWN_COMMANDS.has(command);
}

export function accessGuard(rt: BotRuntime): MiddlewareFn<BotContext> {
  const allowed = userAllowed(rt.config);
  return async (ctx, next) => {
    const id = ctx.from?.id;
    if (rt.config.ALLOWED_USER_IDS.length === 0 || (id !== undefined && allowed(id))) return next();
    if (id !== undefined && rt.store.getUser(id) !== undefined && windsDown(ctx)) return next();
    ctx.log.info('refused: not on the allow-list');
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text: ctx.tp('not_allowed'), show_alert: true });
    } else if (ctx.inlineQuery) {
      await ctx.answerInlineQuery([], { cache_time: 60, is_personal: true });
    } else if (ctx.message && ctx.chat?.type === 'private') {
      await ctx.reply(ctx.t('not_allowed'));
    }
  };
}
