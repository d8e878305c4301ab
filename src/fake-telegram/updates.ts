/**
 * Builders of realistic updates, shaped as Telegram sends them (grammY's filters rely on details
 * such as the `bot_command` entity of a command or the message inside a callback query).
 */
import type { Chat, ChatMember, ChatMemberAdministrator, Message, MessageEntity, Update, User } from 'grammy/types';
import type { FakeChatRef, FakeUser } from './types.js';

type BotUser = { id: number; username: string; first_name: string };

/** The Telegram `User` for a fake user. */
export function toUser(from: FakeUser): User {
  return {
    id: from.id,
    is_bot: false,
    first_name: from.first_name ?? `User ${from.id}`,
    ...(from.last_name !== undefined && { last_name: from.last_name }),
    ...(from.username !== undefined && { username: from.username }),
    ...(from.language_code !== undefined && { language_code: from.language_code }),
  };
}

export function botAsUser(bot: BotUser): User {
  return { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username };
}

/** The Telegram `Chat` for a chat reference, or the private chat with `from`. */
export function toChat(from: FakeUser, chat?: FakeChatRef): Chat {
  if (!chat || chat.type === 'private') {
    const id = chat?.id ?? from.id;
    return {
      id,
      type: 'private',
      first_name: from.first_name ?? `User ${from.id}`,
      ...(from.username !== undefined && { username: from.username }),
    };
  }
  const title = chat.title ?? `Chat ${chat.id}`;
  if (chat.type === 'group') return { id: chat.id, type: 'group', title };
  if (chat.type === 'supergroup') return { id: chat.id, type: 'supergroup', title };
  return { id: chat.id, type: 'channel', title };
}

/** Telegram's chat kind for a bare id: positive ids are users, -100… ids supergroups or channels. */
export function chatTypeOf(chatId: number): 'private' | 'group' | 'supergroup' {
  if (chatId > 0) return 'private';
  return chatId <= -1_000_000_000_000 ? 'supergroup' : 'group';
}

/** Entities Telegram attaches to a typed text: a leading `/command` (with an optional `@bot`). */
export function commandEntities(text: string): MessageEntity[] {
  const match = /^\/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,})?/.exec(text);
  return match ? [{ type: 'bot_command', offset: 0, length: match[0].length }] : [];
}

export function textMessageUpdate(args: {
  updateId: number;
  messageId: number;
  date: number;
  from: FakeUser;
  chat: Chat;
  text: string;
}): Update {
  const entities = commandEntities(args.text);
  const message = {
    message_id: args.messageId,
    date: args.date,
    chat: args.chat,
    from: toUser(args.from),
    text: args.text,
    ...(entities.length > 0 && { entities }),
  };
  if (args.chat.type === 'channel') {
    const { from: _from, ...post } = message;
    return { update_id: args.updateId, channel_post: { ...post, chat: args.chat } };
  }
  return { update_id: args.updateId, message: { ...message, chat: args.chat } };
}

export function callbackQueryUpdate(args: {
  updateId: number;
  queryId: string;
  from: FakeUser;
  message: Message;
  data: string;
}): Update {
  return {
    update_id: args.updateId,
    callback_query: {
      id: args.queryId,
      from: toUser(args.from),
      message: args.message,
      chat_instance: String(args.message.chat.id),
      data: args.data,
    },
  };
}

export function inlineQueryUpdate(args: {
  updateId: number;
  queryId: string;
  from: FakeUser;
  query: string;
  offset: string;
}): Update {
  return {
    update_id: args.updateId,
    inline_query: {
      id: args.queryId,
      from: toUser(args.from),
      query: args.query,
      offset: args.offset,
      chat_type: 'sender',
    },
  };
}

type MemberStatus = 'kicked' | 'member' | 'administrator' | 'left';

export function myChatMemberUpdate(args: {
  updateId: number;
  date: number;
  from: FakeUser;
  chat: Chat;
  bot: BotUser;
  oldStatus: MemberStatus;
  newStatus: MemberStatus;
}): Update {
  const user = botAsUser(args.bot);
  return {
    update_id: args.updateId,
    my_chat_member: {
      chat: args.chat,
      from: toUser(args.from),
      date: args.date,
      old_chat_member: memberOf(user, args.oldStatus),
      new_chat_member: memberOf(user, args.newStatus),
    },
  };
}

function memberOf(user: User, status: MemberStatus): ChatMember {
  switch (status) {
    case 'kicked':
      return { status: 'kicked' as const, user, until_date: 0 };
    case 'left':
      return { status: 'left' as const, user };
    case 'member':
      return { status: 'member' as const, user };
    case 'administrator':
      return adminMember(user);
  }
}

/** An administrator record with the rights a bot needs to post. */
export function adminMember(user: User): ChatMemberAdministrator {
  return {
    status: 'administrator' as const,
    user,
    can_be_edited: false,
    is_anonymous: false,
    can_manage_chat: true,
    can_delete_messages: true,
    can_manage_video_chats: false,
    can_restrict_members: false,
    can_promote_members: false,
    can_change_info: false,
    can_invite_users: true,
    can_post_stories: false,
    can_edit_stories: false,
    can_delete_stories: false,
    can_post_messages: true,
    can_edit_messages: true,
    can_send_welcome_messages: false,
  };
}
