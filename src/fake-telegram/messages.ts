/**
 * The messages in the fake Bot API's chats: what the bot sent (checked as Telegram checks text,
 * entities and keyboards), edited and deleted, and what users typed, with message ids counted per
 * chat. Edits and deletes answer with Telegram's own 400s (not modified, not found, can't be
 * edited), so the bot meets the `GrammyError`s it meets in production.
 */
import type { Chat, Message } from 'grammy/types';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import type { BotUser, FakeChats } from './chats.js';
import { ApiFailure } from './errors.js';
import type { editMessageTextSchema, editReplyMarkupSchema, InlineKeyboard, sendDocumentSchema, sendMessageSchema, sendPhotoSchema } from './schemas.js';
import type { ActivityEvent, SentMessage, UserMessage } from './types.js';
import { botAsUser } from './updates.js';
import { chatTypeOf } from './updates.js';
import { checkKeyboard, checkText, inlineOf, markupKey } from './validate.js';

/** Telegram's limit on a photo's or document's caption. */
const CAPTION_MAX = 1024;
const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

export interface StoredMessage extends SentMessage {
  /** Send order over all chats (many messages share one `at` on a manual clock). */
  seq: number;
}

export class FakeMessages {
  private readonly botMessages = new Map<number, StoredMessage[]>();
  private readonly usersMessages = new Map<number, UserMessage[]>();
  private readonly nextMessageIds = new Map<number, number>();
  private nextSeq = 1;

  constructor(
    private readonly bot: BotUser,
    private readonly clock: Clock,
    private readonly chats: FakeChats,
    private readonly emit: (event: ActivityEvent) => void,
  ) {}

  /** The bot's messages (in one chat, or all), in send order, as copies. */
  sent(chatId?: number): SentMessage[] {
    const lists = chatId === undefined ? [...this.botMessages.values()] : [this.botMessages.get(chatId) ?? []];
    return lists
      .flat()
      .sort((a, b) => a.seq - b.seq)
      .map(snapshot);
  }

  /** What users typed (in one chat, or all), as copies. */
  typed(chatId?: number): UserMessage[] {
    const lists = chatId === undefined ? [...this.usersMessages.values()] : [this.usersMessages.get(chatId) ?? []];
    return lists.flat().map((m) => ({ ...m }));
  }

  /** Records what a user typed in `chat`; returns its message id. */
  addTyped(fromId: number, chat: Chat, text: string): number {
    const messageId = this.newMessageId(chat.id);
    const list = this.usersMessages.get(chat.id) ?? [];
    list.push({ message_id: messageId, chat_id: chat.id, from_id: fromId, text, deleted: false, at: this.clock.now() });
    this.usersMessages.set(chat.id, list);
    return messageId;
  }

  /** The bot's message `messageId` in `chatId`, deleted or not. */
  find(chatId: number, messageId: number): StoredMessage | undefined {
    return this.botMessages.get(chatId)?.find((m) => m.message_id === messageId);
  }

  newMessageId(chatId: number): number {
    const id = this.nextMessageIds.get(chatId) ?? 1;
    this.nextMessageIds.set(chatId, id + 1);
    return id;
  }

  /** The message as the Bot API returns it. */
  object(stored: StoredMessage): Message {
    const markup = inlineOf(stored.reply_markup);
    const message: Message = {
      message_id: stored.message_id,
      date: Math.floor(stored.at / 1000),
      chat: this.chats.object(stored.chat_id),
      from: botAsUser(this.bot),
      text: stored.text,
    };
    // The schema's keyboard is looser than grammY's type (unknown extra button fields pass through).
    if (markup !== undefined) Object.assign(message, { reply_markup: markup });
    return message;
  }

  send(p: z.infer<typeof sendMessageSchema>): Message {
    const chatId = p.chat_id;
    this.chats.assertCanPost(chatId);
    const text = p.text ?? '';
    if (text.trim() === '') throw new ApiFailure(400, 'Bad Request: message text is empty');
    checkText(text, p.parse_mode);
    const markup = p.reply_markup;
    if (markup && 'inline_keyboard' in markup) checkKeyboard(markup as InlineKeyboard, chatTypeOf(chatId) === 'private');

    const replyTo = p.reply_parameters?.message_id ?? p.reply_to_message_id;
    const allowMissing = p.reply_parameters?.allow_sending_without_reply ?? p.allow_sending_without_reply ?? false;
    if (replyTo !== undefined && !this.exists(chatId, replyTo) && !allowMissing) {
      throw new ApiFailure(400, 'Bad Request: message to be replied not found');
    }

    const stored: StoredMessage = {
      message_id: this.newMessageId(chatId),
      chat_id: chatId,
      text,
      edited: false,
      deleted: false,
      history: [],
      at: this.clock.now(),
      seq: this.nextSeq++,
      ...(p.parse_mode !== undefined && { parse_mode: p.parse_mode }),
      ...(markup !== undefined && { reply_markup: markup }),
      ...(replyTo !== undefined && this.exists(chatId, replyTo) && { reply_to_message_id: replyTo }),
      ...(p.link_preview_options !== undefined && { link_preview_options: p.link_preview_options }),
    };
    const list = this.botMessages.get(chatId) ?? [];
    list.push(stored);
    this.botMessages.set(chatId, list);
    this.emit({ kind: 'sent', chatId, message: snapshot(stored) });
    return this.object(stored);
  }

  /** sendPhoto / sendDocument: an upload (its bytes kept) or a file_id, with an optional caption of ≤ 1024 characters. */
  sendMedia(kind: 'photo' | 'document', p: z.infer<typeof sendPhotoSchema> | z.infer<typeof sendDocumentSchema>): Message {
    const chatId = p.chat_id;
    this.chats.assertCanPost(chatId);
    const file = 'photo' in p ? p.photo : p.document;
    const caption = p.caption ?? '';
    if (caption !== '') {
      checkText(caption, p.parse_mode);
      if (caption.length > CAPTION_MAX) throw new ApiFailure(400, 'Bad Request: message caption is too long');
    }
    const bytes = typeof file === 'string' ? Buffer.alloc(0) : file.bytes;
    if (typeof file !== 'string' && file.size === 0) throw new ApiFailure(400, 'Bad Request: file must be non-empty');
    const markup = p.reply_markup;
    if (markup && 'inline_keyboard' in markup) checkKeyboard(markup as InlineKeyboard, chatTypeOf(chatId) === 'private');
    const stored: StoredMessage = {
      message_id: this.newMessageId(chatId),
      chat_id: chatId,
      text: caption,
      edited: false,
      deleted: false,
      history: [],
      at: this.clock.now(),
      seq: this.nextSeq++,
      media: { kind, fileName: typeof file === 'string' ? file : file.file, bytes },
      ...(p.parse_mode !== undefined && { parse_mode: p.parse_mode }),
      ...(markup !== undefined && { reply_markup: markup }),
    };
    const list = this.botMessages.get(chatId) ?? [];
    list.push(stored);
    this.botMessages.set(chatId, list);
    this.emit({ kind: 'sent', chatId, message: snapshot(stored) });
    const fileId = `file-${chatId}-${stored.message_id}`;
    const message = { ...this.object(stored), text: undefined, caption } as Message & Record<string, unknown>;
    delete message.text;
    if (kind === 'photo') message.photo = [{ file_id: fileId, file_unique_id: fileId, width: 1280, height: 800, file_size: bytes.length }];
    else message.document = { file_id: fileId, file_unique_id: fileId, file_name: stored.media?.fileName, file_size: bytes.length };
    return message;
  }

  editText(p: z.infer<typeof editMessageTextSchema>): Message | true {
    if (p.inline_message_id !== undefined) return true;
    const stored = this.editTarget(p.chat_id, p.message_id);
    const text = p.text ?? '';
    if (text.trim() === '') throw new ApiFailure(400, 'Bad Request: message text is empty');
    checkText(text, p.parse_mode);
    if (p.reply_markup) checkKeyboard(p.reply_markup, chatTypeOf(stored.chat_id) === 'private');
    // An edit that does not repeat the keyboard removes it, as on Telegram.
    const sameMarkup = markupKey(stored.reply_markup) === markupKey(p.reply_markup);
    if (stored.text === text && stored.parse_mode === p.parse_mode && sameMarkup) {
      throw new ApiFailure(400, NOT_MODIFIED);
    }
    stored.history.push(stored.text);
    stored.text = text;
    stored.parse_mode = p.parse_mode;
    stored.reply_markup = p.reply_markup;
    if (p.link_preview_options !== undefined) stored.link_preview_options = p.link_preview_options;
    return this.markEdited(stored);
  }

  editReplyMarkup(p: z.infer<typeof editReplyMarkupSchema>): Message | true {
    if (p.inline_message_id !== undefined) return true;
    const stored = this.editTarget(p.chat_id, p.message_id);
    if (p.reply_markup) checkKeyboard(p.reply_markup, chatTypeOf(stored.chat_id) === 'private');
    if (markupKey(stored.reply_markup) === markupKey(p.reply_markup)) throw new ApiFailure(400, NOT_MODIFIED);
    stored.reply_markup = p.reply_markup;
    return this.markEdited(stored);
  }

  delete(chatId: number, messageId: number): true {
    const stored = this.find(chatId, messageId);
    if (stored && !stored.deleted) {
      stored.deleted = true;
      this.emit({ kind: 'deleted', chatId, message: snapshot(stored) });
      return true;
    }
    const own = this.findTyped(chatId, messageId);
    if (own && !own.deleted) {
      own.deleted = true;
      this.emit({ kind: 'deleted', chatId, messageId });
      return true;
    }
    throw new ApiFailure(400, 'Bad Request: message to delete not found');
  }

  private editTarget(chatId: number | undefined, messageId: number | undefined): StoredMessage {
    if (chatId === undefined) throw new ApiFailure(400, 'Bad Request: chat_id is empty');
    if (messageId === undefined) throw new ApiFailure(400, 'Bad Request: message identifier is not specified');
    this.chats.assertCanPost(chatId);
    const stored = this.find(chatId, messageId);
    if (stored && !stored.deleted) return stored;
    if (this.findTyped(chatId, messageId)?.deleted === false) {
      throw new ApiFailure(400, "Bad Request: message can't be edited");
    }
    throw new ApiFailure(400, 'Bad Request: message to edit not found');
  }

  private markEdited(stored: StoredMessage): Message {
    stored.edited = true;
    stored.edited_at = this.clock.now();
    this.emit({ kind: 'edited', chatId: stored.chat_id, message: snapshot(stored) });
    return { ...this.object(stored), edit_date: Math.floor(this.clock.now() / 1000) } as Message;
  }

  private findTyped(chatId: number, messageId: number): UserMessage | undefined {
    return this.usersMessages.get(chatId)?.find((m) => m.message_id === messageId);
  }

  private exists(chatId: number, messageId: number): boolean {
    const bot = this.find(chatId, messageId);
    const user = this.findTyped(chatId, messageId);
    return (bot !== undefined && !bot.deleted) || (user !== undefined && !user.deleted);
  }
}

function snapshot(m: StoredMessage): SentMessage {
  const { seq: _seq, ...rest } = m;
  return structuredClone(rest);
}
