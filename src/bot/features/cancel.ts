/** /cancel: registered before the conversations so that it always reaches the user's open flow. */
import { Composer } from 'grammy';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { leaveFlows } from '../flows.js';

export function cancelFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('cancel', async (ctx) => {
    const left = await leaveFlows(rt, ctx, { quiet: true });
    await ctx.reply(ctx.t(left ? 'cancelled' : 'nothing_to_cancel'));
  });
  return composer;
}
