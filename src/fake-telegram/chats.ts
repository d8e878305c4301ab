/**
 * The chats the fake Bot API knows: each with the bot's status in it and its admins, groups
 * upgraded to supergroups (every call about the old id answers 400 with `migrate_to_chat_id`),
 * and where Telegram refuses a post (a user who blocked the bot, a chat it left, a channel it does
 * not administer). `getChat`, `getChatMember` and `getChatAdministrators` answer from here.
 */
import type { Chat } from 'grammy/types';
import { ApiFailure } from './errors.js';
import type { FakeChatInfo, FakeChatType } from './types.js';
import { adminMember, botAsUser, chatTypeOf, toChat, toUser } from './updates.js';

export type BotUser = { id: number; username: string; first_name: string };
export type MemberStatus = 'member' | 'administrator' | 'kicked' | 'left';

interface ChatRecord {
  chat: Chat;
  botStatus: MemberStatus;
  adminIds: number[];
  /** The group became this supergroup. */
  migratedTo?: number;
}

export class FakeChats {
  private readonly chats = new Map<number, ChatRecord>();

  constructor(private readonly bot: BotUser) {}

  set(info: FakeChatInfo): void {
    const chat = toChat({ id: info.id, first_name: info.title }, { id: info.id, type: info.type, title: info.title });
    if (info.username !== undefined && chat.type !== 'group') chat.username = info.username;
    this.chats.set(info.id, { chat, botStatus: info.botIsAdmin ? 'administrator' : 'member', adminIds: info.adminIds ?? [] });
  }

  /** Knows `chat` from now on (as a chat the bot is a member of, unless known already). */
  remember(chat: Chat): void {
    if (!this.chats.has(chat.id)) this.chats.set(chat.id, { chat, botStatus: 'member', adminIds: [] });
  }

  /** Sets the bot's status in `chat` (remembered first); returns the status it had. */
  setBotStatus(chat: Chat, status: MemberStatus): MemberStatus {
    this.remember(chat);
    const record = this.chats.get(chat.id)!;
    const old = record.botStatus;
    record.botStatus = status;
    return old;
  }

  /** Upgrades group `oldId` to supergroup `newId` (title, admins and the bot's status kept); returns both chats. */
  migrate(oldId: number, newId: number): { from: Chat; to: Chat } {
    const old = this.chats.get(oldId);
    if (!old) throw new Error(`chat ${oldId} is not known: setChat it first`);
    const chat = { id: newId, type: 'supergroup', title: 'title' in old.chat ? old.chat.title : `Chat ${newId}` } as Chat;
    this.chats.set(newId, { chat, botStatus: old.botStatus, adminIds: [...old.adminIds] });
    old.migratedTo = newId;
    return { from: old.chat, to: chat };
  }

  /** The chat as Telegram would show it: a known one, or one made up from the id's range. */
  object(chatId: number): Chat {
    const known = this.chats.get(chatId)?.chat;
    if (known) return known;
    const type = chatTypeOf(chatId);
    if (type === 'private') return { id: chatId, type: 'private', first_name: `User ${chatId}` };
    return toChat({ id: chatId }, { id: chatId, type, title: `Chat ${chatId}` });
  }

  /** Refuses a post where Telegram would: a user who blocked the bot, a chat the bot left, a channel it does not administer. */
  assertCanPost(chatId: number): void {
    const record = this.chats.get(chatId);
    const type: FakeChatType = record?.chat.type ?? chatTypeOf(chatId);
    if (!record) {
      if (type !== 'private') throw new ApiFailure(400, 'Bad Request: chat not found');
      return;
    }
    assertNotMigrated(record);
    if (record.botStatus === 'kicked' || record.botStatus === 'left') {
      if (type === 'private') throw new ApiFailure(403, 'Forbidden: bot was blocked by the user');
      if (type === 'channel') throw new ApiFailure(403, 'Forbidden: bot is not a member of the channel chat');
      throw new ApiFailure(403, `Forbidden: bot was kicked from the ${type} chat`);
    }
    if (type === 'channel' && record.botStatus !== 'administrator') {
      throw new ApiFailure(400, 'Bad Request: need administrator rights in the channel chat');
    }
  }

  getChat(chatId: number): Record<string, unknown> {
    const record = this.known(chatId);
    assertNotMigrated(record);
    return { ...record.chat, accent_color_id: 0, max_reaction_count: 11 };
  }

  getChatMember(chatId: number, userId: number): object {
    const record = this.known(chatId);
    assertNotMigrated(record);
    if (userId === this.bot.id) return memberRecord(botAsUser(this.bot), record.botStatus);
    const user = toUser({ id: userId });
    if (record.chat.type === 'private') {
      if (userId !== chatId) throw new ApiFailure(400, 'Bad Request: user not found');
      return { status: 'member', user };
    }
    const adminAt = record.adminIds.indexOf(userId);
    if (adminAt === 0) return { status: 'creator', user, is_anonymous: false };
    if (adminAt > 0) return adminMember(user);
    return { status: 'member', user };
  }

  getChatAdministrators(chatId: number): object[] {
    const record = this.known(chatId);
    if (record.chat.type === 'private') {
      throw new ApiFailure(400, 'Bad Request: there are no administrators in the private chat');
    }
    const admins = record.adminIds.map((id) => this.getChatMember(chatId, id));
    if (record.botStatus === 'administrator') admins.push(adminMember(botAsUser(this.bot)));
    return admins;
  }

  private known(chatId: number): ChatRecord {
    const record = this.chats.get(chatId);
    if (!record) throw new ApiFailure(400, 'Bad Request: chat not found');
    return record;
  }
}

function assertNotMigrated(record: ChatRecord): void {
  if (record.migratedTo === undefined) return;
  throw new ApiFailure(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: record.migratedTo });
}

function memberRecord(user: ReturnType<typeof botAsUser>, status: MemberStatus): object {
  if (status === 'administrator') return adminMember(user);
  if (status === 'kicked') return { status, user, until_date: 0 };
  return { status, user };
}
