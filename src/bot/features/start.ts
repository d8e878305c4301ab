/** /start and /help: what the bot does and the next step for this user. */
import { Composer } from 'grammy';
import { helpList } from '../commands.js';
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
    // Built from the command table, not from the menu Telegram holds: the full list even when setMyCommands was refused.
    const parts = [ctx.t('help_text'), helpList(ctx.t), ctx.t('help_inline', { bot: ctx.me.username }), ctx.t(nextStepKey(ctx.user))];
    await ctx.reply(parts.join('\n\n'), { link_preview_options: { is_disabled: true } });
  });

  return composer;
}
