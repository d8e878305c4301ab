/**
 * The bot is used in private chats. In groups and channels it only sends alerts and answers the
 * buttons under them; a command addressed to it there gets a pointer to the private chat.
 */
import type { MiddlewareFn } from 'grammy';
import { KNOWN_COMMANDS, leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';

export function privateOnly(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const chat = ctx.chat;
    if (!chat || chat.type === 'private' || ctx.callbackQuery || ctx.myChatMember) return next();
    const text = ctx.message?.text;
    const command = leadingCommand(text);
    if (command === undefined || !KNOWN_COMMANDS.has(command)) return;
    const addressee = /^\/\w+@(\w+)/.exec(text ?? '')?.[1];
    if (addressee !== undefined && addressee.toLowerCase() !== ctx.me.username.toLowerCase()) return;
    await ctx.reply(ctx.t('private_only', { bot: ctx.me.username }));
  };
}
