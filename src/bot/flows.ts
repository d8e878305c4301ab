/** Leaving open flows: a new command ends a guided flow politely instead of mixing the two. */
import type { BotContext } from './context.js';
import type { BotRuntime } from './deps.js';
import { SETTINGS_CONVERSATION } from './conversations/settings.js';

/**
 * Ends any conversation and pending question of this user here; tells them when something was
 * open. Dropping the secret question is said even when `quiet`: a user who pastes the secret
 * afterwards must know it is no longer taken as one.
 */
export async function leaveFlows(rt: BotRuntime, ctx: BotContext, opts: { quiet?: boolean } = {}): Promise<boolean> {
  let left = false;
  let secretDropped = false;
  if (ctx.chat && ctx.from) {
    secretDropped = (await rt.pending.get(ctx.chat.id, ctx.from.id))?.kind === 'connect-secret';
    left = (await rt.pending.clear(ctx.chat.id, ctx.from.id)) || left;
  }
  const active = ctx.conversation.active();
  // The settings menu stores each change at once: only its open question is dropped.
  const settingsOpen = (active[SETTINGS_CONVERSATION] ?? 0) > 0;
  if (Object.values(active).some((n) => n > 0)) {
    await ctx.conversation.exitAll();
    left = true;
  }
  if (secretDropped) await ctx.reply(ctx.t('secret_question_closed'));
  else if (left && !opts.quiet) await ctx.reply(ctx.t(settingsOpen ? 'settings_closed' : 'flow_closed'));
  return left;
}

/**
 * A button that would open another question while the user's secret is expected is refused
 * (with a toast), so the secret question is never replaced silently. True when refused.
 */
export async function refuseWhileSecretExpected(rt: BotRuntime, ctx: BotContext): Promise<boolean> {
  if (!ctx.from || !(await rt.pending.secretExpected(ctx.from.id))) return false;
  await ctx.answerCallbackQuery({ text: ctx.tp('secret_expected_first'), show_alert: true });
  return true;
}
