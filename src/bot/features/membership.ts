/**
 * my_chat_member: the user blocked the bot (stop polling for them) or came back; the bot was
 * removed from a group or channel that received someone's alerts (send them to the private chat).
 */
import { Composer } from 'grammy';
import { translator } from '../../locales/i18n.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

const GONE = new Set(['kicked', 'left']);

export function membershipFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  // A user who writes to the bot has unblocked it, whether or not Telegram told us so.
  composer.chatType('private').use(async (ctx, next) => {
    const user = ctx.from ? rt.store.getUser(ctx.from.id) : undefined;
    if (user?.blocked && !ctx.myChatMember) {
      rt.store.updateUser(user.id, (draft) => {
        draft.blocked = false;
      });
      rt.scheduler.refreshUser(user.id);
      ctx.log.info('the user is back: polling resumed');
    }
    await next();
  });

  composer.on('my_chat_member', async (ctx) => {
    const update = ctx.myChatMember;
    const status = update.new_chat_member.status;
    if (update.chat.type === 'private') {
      const user = rt.store.getUser(update.from.id);
      if (!user) return;
      const blocked = status === 'kicked';
      if (user.blocked === blocked) return;
      rt.store.updateUser(user.id, (draft) => {
        draft.blocked = blocked;
      });
      rt.scheduler.refreshUser(user.id);
      ctx.log.info({ blocked }, 'private chat membership changed');
      return;
    }
    if (!GONE.has(status)) return;
    const chatId = update.chat.id;
    for (const user of rt.store.listUsers()) {
      if (user.alertChatId !== chatId) continue;
      rt.store.updateUser(user.id, (draft) => {
        draft.alertChatId = null;
      });
      rt.scheduler.refreshUser(user.id);
      ctx.log.info({ target: chatId }, 'alert chat lost, alerts go to the private chat');
      const t = translator(user.lang);
      await ctx.api.sendMessage(user.chatId, t('alerts_chat_lost', { chat: update.chat.title ?? String(chatId) }), { parse_mode: 'HTML' }).catch(() => undefined);
    }
  });

  return composer;
}
