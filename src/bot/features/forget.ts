/**
 * /forget: after a confirmation, the key, the filters, the alert state and everything else stored
 * about the user are deleted, and the client drops the key's tokens.
 */
import { Composer } from 'grammy';
import { decodeForgetAnswer, encodeForgetAnswer, kindPattern } from '../callback-data/index.js';
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
    await ctx.reply(ctx.t('forget_confirm'), {
      reply_markup: {
        inline_keyboard: [
          [
            { text: ctx.t('btn_forget_yes'), callback_data: encodeForgetAnswer({ type: 'yes', issuedAt: rt.clock.now() }) },
            { text: ctx.t('btn_no'), callback_data: encodeForgetAnswer({ type: 'no' }) },
          ],
        ],
      },
    });
  });

  composer.callbackQuery(kindPattern('forget'), async (ctx) => {
    const answer = decodeForgetAnswer(ctx.callbackQuery.data);
    const userId = ctx.from.id;
    if (!answer) {
      await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
      return;
    }
    if (answer.type === 'no') {
      await ctx.answerCallbackQuery();
      await editInPlace(rt.rendered, ctx, ctx.t('forget_kept'));
      return;
    }
    const age = rt.clock.now() - answer.issuedAt;
    // A stamp from the future is forged (or from another clock): as stale as an old one.
    if (!(age >= -1000 && age <= FORGET_CONFIRM_TTL_MS)) {
      await ctx.answerCallbackQuery({ text: ctx.tp('forget_expired'), show_alert: true });
      await quietly(ctx.log, 'taking the buttons off an expired confirmation', () => ctx.editMessageReplyMarkup({ reply_markup: { inline_keyboard: [] } }));
      return;
    }
    const user = rt.store.getUser(userId);
    if (!user) {
      await ctx.answerCallbackQuery();
      await editInPlace(rt.rendered, ctx, ctx.t('forget_nothing'));
      return;
    }
    await leaveFlows(rt, ctx, { quiet: true });
    await rt.pending.clearUser(userId);
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
