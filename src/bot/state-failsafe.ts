/**
 * What the bot does when an update failed because the fronts' shared state (open questions,
 * flows, caps) could not be reached: it fails safe and says so. A message (or an edit) with text
 * may be the answer to a secret question asked on another front, which nobody can check now: it is
 * deleted unless it is a known command carrying no secret, and the user is told it was not used.
 * A button press or an inline query gets a short "try again"; nothing was done for any of them
 * (a cap that cannot be checked refuses its use).
 */
import { KNOWN_COMMANDS, leadingCommand } from './commands.js';
import type { BotContext } from './context.js';
import { deleteSecretMessage } from './features/connect.js';
import { carriesConnectSecret } from './middleware/secret-shield.js';
import { quietly } from './ui/quietly.js';

/** A text that cannot be a secret's message: a known command without a secret after it. */
function plainlyNoSecret(text: string): boolean {
  const command = leadingCommand(text);
  return command !== undefined && KNOWN_COMMANDS.has(command) && !carriesConnectSecret(text);
}

/** `reason`: the error's message (what was asked of Redis and why it failed; no value of the state). */
export async function answerStateUnavailable(ctx: BotContext, reason: string): Promise<void> {
  ctx.log.warn({ reason }, 'the shared state is unavailable: the update was refused');
  if (ctx.inlineQuery) {
    await quietly(ctx.log, 'answering an inline query', () =>
      ctx.answerInlineQuery([], { cache_time: 0, is_personal: true, button: { text: ctx.tp('state_unavailable_short'), start_parameter: 'help' } }),
    );
    return;
  }
  if (ctx.callbackQuery) {
    if (!ctx.callbackAnswered) await quietly(ctx.log, 'answering a button', () => ctx.answerCallbackQuery({ text: ctx.tp('state_unavailable_short'), show_alert: true }));
    return;
  }
  const text = ctx.msg?.text ?? ctx.msg?.caption;
  if (ctx.chat?.type !== 'private') return;
  if (text === undefined || plainlyNoSecret(text)) {
    await quietly(ctx.log, 'saying the shared state is unavailable', () => ctx.reply(ctx.t('state_unavailable')));
    return;
  }
  const deleted = await deleteSecretMessage(ctx);
  await quietly(ctx.log, 'saying the shared state is unavailable', () => ctx.reply(ctx.t(deleted ? 'state_unavailable_deleted' : 'state_unavailable_not_deleted')));
}
