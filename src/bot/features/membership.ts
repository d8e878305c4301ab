/**
 * What Telegram says about the bot's place in chats: the user blocked the bot (stop polling for
 * them) or came back; the bot was removed from a group or channel that received someone's alerts,
 * or lost its admin rights there (send them to the private chat, and say so); a group became a
 * supergroup (alerts follow it to the new id).
 *
 * Registered before the allow-list: these updates come from whoever changed the chat (an admin of
 * the group, possibly not on ALLOWED_USER_IDS), and they must be handled all the same.
 */
import { Composer } from 'grammy';
import { ADMIN_STATUSES, fallBackToPrivate, followMigration, GONE_STATUSES, type DestinationDeps } from '../../outbox/destinations.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

export function membershipFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  /** The destination helpers for this update; `told` settles once every note is sent (or failed). */
  const destinations = (ctx: BotContext): DestinationDeps & { told: () => Promise<unknown> } => {
    const notes: Promise<unknown>[] = [];
    return {
      store: rt.store,
      scheduler: rt.scheduler,
      logger: ctx.log,
      tell: (chatId, text) => {
        notes.push(
          ctx.api
            .sendMessage(chatId, text)
            .catch((err: unknown) => ctx.log.warn({ err }, 'could not tell the user their alert chat was lost')),
        );
      },
      told: () => Promise.all(notes),
    };
  };

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
    const title = update.chat.title;
    const deps = destinations(ctx);
    if (GONE_STATUSES.has(status)) fallBackToPrivate(deps, update.chat.id, 'removed', title);
    // Still there, but no longer an admin (demoted, restricted): alerts were chosen on that condition.
    else if (!ADMIN_STATUSES.has(status)) fallBackToPrivate(deps, update.chat.id, 'bot-rights', title);
    await deps.told();
  });

  // The service messages of a group's upgrade: in the old group, and in the new supergroup.
  composer.on('message:migrate_to_chat_id', (ctx) => {
    followMigration(destinations(ctx), ctx.chat.id, ctx.message.migrate_to_chat_id);
  });
  composer.on('message:migrate_from_chat_id', (ctx) => {
    followMigration(destinations(ctx), ctx.message.migrate_from_chat_id, ctx.chat.id);
  });

  return composer;
}

/** A user who writes to the bot has unblocked it, whether or not Telegram told us so (after the allow-list). */
export function returningUserFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
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
  return composer;
}
