/** What nothing else handled: unknown commands, stray text, buttons of finished flows. */
import { Composer } from 'grammy';
import { leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';

export function fallbackFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on('callback_query', async (ctx) => {
    await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
  });

  composer.chatType('private').on('message', async (ctx) => {
    const command = leadingCommand(ctx.message.text);
    await ctx.reply(ctx.t(command === undefined ? 'not_understood' : 'unknown_command'));
  });

  return composer;
}
