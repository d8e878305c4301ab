/**
 * A line that looks like `/connect <key> <secret>` is deleted wherever it appears: in a group, a
 * channel, an edited message, a caption. It runs before the allow-list and the private-only rule
 * (which would otherwise drop it unread), so even someone the bot does not serve gets the secret
 * taken down. A new text message in a private chat is left to /connect, which deletes it itself.
 */
import type { MiddlewareFn } from 'grammy';
import { leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';
import { deleteSecretMessage } from '../features/connect.js';
import { quietly } from '../ui/quietly.js';

/** `/connect` followed by at least two words: the second one is a secret. */
export function carriesConnectSecret(text: string | undefined): boolean {
  if (text === undefined || leadingCommand(text) !== 'connect') return false;
  const args = text.replace(/^\/\S+/, '').trim().split(/\s+/).filter(Boolean);
  return args.length >= 2;
}

/** A new text message in a private chat that /connect itself takes (addressed to no other bot). */
function forConnectHandler(ctx: BotContext): boolean {
  const text = ctx.message?.text;
  if (text === undefined) return false;
  const addressee = /^\/\w+@(\w+)/.exec(text)?.[1];
  return addressee === undefined || addressee.toLowerCase() === ctx.me.username.toLowerCase();
}

export function secretShield(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const msg = ctx.msg;
    const chat = ctx.chat;
    if (!msg || !chat || ctx.callbackQuery || !carriesConnectSecret(msg.text ?? msg.caption)) return next();
    if (chat.type === 'private' && forConnectHandler(ctx)) return next();
    const deleted = await deleteSecretMessage(ctx);
    ctx.log.info({ deleted, chat_type: chat.type }, 'deleted a message that carried a secret outside a private /connect');
    const text =
      chat.type === 'private'
        ? `${ctx.t(deleted ? 'connect_deleted' : 'connect_not_deleted')} ${ctx.t('connect_usage')}`
        : ctx.t(deleted ? 'connect_group_deleted' : 'connect_group_not_deleted', { bot: ctx.me.username });
    // A channel or a group may not let the bot write: the deletion is what matters.
    await quietly(ctx.log, 'saying why a message was deleted', () => ctx.reply(text));
  };
}
