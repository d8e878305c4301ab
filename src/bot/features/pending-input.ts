/**
 * Answers to the bot's open questions (the access key, the secret, a stake amount), handled by
 * plain middleware before the conversations, so a secret never enters conversation state.
 */
import { Composer } from 'grammy';
import { KNOWN_COMMANDS, leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { acceptStakeAmount } from './alert-actions.js';
import { acceptAccessKey, acceptSecret } from './connect.js';

export function pendingInputFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on('message', async (ctx, next) => {
    const pending = rt.pending.get(ctx.chat.id, ctx.from.id);
    if (!pending) return next();
    const text = ctx.message.text;
    const command = leadingCommand(text);
    // A known command ends the question and runs; anything else answers it (even "/…" for a
    // secret, which is then deleted like any other secret).
    if (command !== undefined && KNOWN_COMMANDS.has(command)) {
      rt.pending.clear(ctx.chat.id, ctx.from.id);
      if (command !== 'connect') await ctx.reply(ctx.t('flow_closed'), { parse_mode: 'HTML' });
      return next();
    }
    switch (pending.kind) {
      case 'connect-secret':
        return acceptSecret(rt, ctx, text, pending.accessKey, pending.service);
      case 'connect-key':
        if (text === undefined) return void (await ctx.reply(ctx.t('expect_text'), { parse_mode: 'HTML' }));
        return acceptAccessKey(rt, ctx, text, pending.service);
      case 'stake-amount':
        if (text === undefined) return void (await ctx.reply(ctx.t('expect_text'), { parse_mode: 'HTML' }));
        return acceptStakeAmount(rt, ctx, text, pending);
    }
  });

  return composer;
}
