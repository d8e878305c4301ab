/** /start and /help: what the bot does and the next step for this user. */
import { Composer } from 'grammy';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { nextStepKey } from '../ui/next-step.js';
import { beginConnect } from './connect.js';

export function startFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('start', async (ctx) => {
    const from = ctx.from;
    if (!from) return;
    // /start from the inline mode's "connect" button goes straight to the key question.
    if (ctx.match.trim() === 'connect') {
      await beginConnect(rt, ctx);
      return;
    }
    if (!ctx.user) rt.store.updateUser(from.id, () => undefined, { chatId: ctx.chat.id, lang: ctx.lang });
    await ctx.reply(`${ctx.t('start_intro')}\n\n${ctx.t(nextStepKey(ctx.user))}`);
  });

  composer.command('help', async (ctx) => {
    await ctx.reply(`${ctx.t('help_text', { bot: ctx.me.username })}\n${ctx.t('help_glossary')}\n\n${ctx.t(nextStepKey(ctx.user))}`);
  });

  return composer;
}
