/** Leaving open flows: a new command ends a guided flow politely instead of mixing the two. */
import type { BotContext } from './context.js';
import type { BotRuntime } from './deps.js';

/** Ends any conversation and pending question of this user here; tells them when something was open. */
export async function leaveFlows(rt: BotRuntime, ctx: BotContext, opts: { quiet?: boolean } = {}): Promise<boolean> {
  let left = false;
  if (ctx.chat && ctx.from) left = rt.pending.clear(ctx.chat.id, ctx.from.id) || left;
  const active = ctx.conversation.active();
  if (Object.values(active).some((n) => n > 0)) {
    await ctx.conversation.exitAll();
    left = true;
  }
  if (left && !opts.quiet) await ctx.reply(ctx.t('flow_closed'), { parse_mode: 'HTML' });
  return left;
}
