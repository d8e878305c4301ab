/**
 * /forget: after a confirmation, the key, the filters, the alert state and everything else stored
 * about the user are deleted, and the client drops the key's tokens.
 */
import { Composer } from 'grammy';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { leaveFlows } from '../flows.js';
import { quietly } from '../ui/quietly.js';
import { editInPlace } from '../ui/rendered.js';

/** A confirmation button older than this is stale: the user must ask again. */
export const FORGET_CONFIRM_TTL_MS = 10 * 60_000;

export function forgetFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('forget', async (ctx) => {
    if (!ctx.user) {
      await ctx.reply(ctx.t('forget_nothing'));
      return;
    }
    const issued = Math.floor(rt.clock.now() / 1000).toString(36);
    await ctx.reply(ctx.t('forget_confirm'), {
      reply_markup: {
        inline_keyboard: [
          [
            { text: ctx.t('btn_forget_yes'), callback_data: `fg:y:${issued}` },
            { text: ctx.t('btn_no'), callback_data: 'fg:n' },
          ],
        ],
      },
    });
  });

  composer.callbackQuery(/^fg:(y|n)(?::([0-9a-z]{1,10}))?$/, async (ctx) => {
    const [, answer, issued] = ctx.match;
    const userId = ctx.from.id;
    if (answer === 'n') {
      await ctx.answerCallbackQuery();
      await editInPlace(rt.rendered, ctx, ctx.t('forget_kept'));
      return;
    }
    const issuedAt = issued === undefined ? Number.NaN : parseInt(issued, 36) * 1000;
    const age = rt.clock.now() - issuedAt;
    // A stamp from the future is forged (or from another clock): as stale as an old one.
    if (!(age >= -1000 && age <= FORGET_CONFIRM_TTL_MS)) {
      await ctx.answerCallbackQuery({ text: ctx.tp('forget_expired'), show_alert: true });
      await quietly(() => ctx.editMessageReplyMarkup({ reply_markup: { inline_keyboard: [] } }));
      return;
    }
    const user = rt.store.getUser(userId);
    if (!user) {
      await ctx.answerCallbackQuery();
      await editInPlace(rt.rendered, ctx, ctx.t('forget_nothing'));
      return;
    }
    await leaveFlows(rt, ctx, { quiet: true });
    rt.pending.clearUser(userId);
    const accessKey = user.key?.accessKey;
    rt.store.deleteUser(userId);
    if (accessKey !== undefined) rt.client.forgetKey(accessKey);
    rt.scheduler.refreshUser(userId);
    await rt.store.flush();
    ctx.log.info('user forgotten');
    await ctx.answerCallbackQuery();
    await editInPlace(rt.rendered, ctx, ctx.t('forget_done'));
  });

  return composer;
}
