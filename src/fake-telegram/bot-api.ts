// Over 400 lines: every Bot API method the fake answers is registered in one table here (setChatMenuButton made it 415); splitting the table would scatter what one method does.
/**
 * The fake Bot API's behaviour, without HTTP: `call` runs the methods grammY calls, and the rest is
 * what tests do and read (a user types, presses, queries inline; the bot's messages, the calls,
 * the answers). It wires four rooms, each with one concern: `update-queue.ts` (getUpdates, the
 * webhook), `chats.ts` (chats, the bot's rights, upgrades), `messages.ts` (sends, edits,
 * deletes) and `call-log.ts` (recorded calls, injected faults); the answers to callback and inline
 * queries, the command lists and descriptions stay here, being a few lines each. Errors carry
 * Telegram's own codes and descriptions so grammY raises the `GrammyError`s it raises in production.
 */
import type { Update } from 'grammy/types';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { CallLog } from './call-log.js';
import { FakeChats, type BotUser, type MemberStatus } from './chats.js';
import { ApiFailure, faultAnswer, type ApiAnswer, type CallOutcome } from './errors.js';
import type { FloodControl } from './flood.js';
import { FakeMessages } from './messages.js';
import {
  answerCallbackSchema,
  answerInlineSchema,
  chatActionSchema,
  chatMemberSchema,
  chatOnlySchema,
  commandScopeSchema,
  deleteMessageSchema,
  deleteWebhookSchema,
  editMessageTextSchema,
  editReplyMarkupSchema,
  getUpdatesSchema,
  sendMessageSchema,
  sendPhotoSchema,
  sendDocumentSchema,
  setDescriptionSchema,
  setMyCommandsSchema,
  setChatMenuButtonSchema,
  getChatMenuButtonSchema,
  type menuButtonSchema,
  setWebhookSchema,
} from './schemas.js';
import type {
  ActivityEvent,
  CallbackAnswer,
  FakeChatInfo,
  FakeChatRef,
  FakeUser,
  FaultSpec,
  InlineAnswer,
  RecordedCall,
  SentMessage,
  UserMessage,
} from './types.js';
import { UpdateQueue, type WebhookState } from './update-queue.js';
import { botAsUser, chatTypeOf, callbackQueryUpdate, inlineQueryUpdate, myChatMemberUpdate, textMessageUpdate, toChat, toUser } from './updates.js';
import { inlineOf, parse } from './validate.js';

interface Handler {
  name: string;
  run(payload: Record<string, unknown>, signal: AbortSignal): unknown;
}

export class FakeBotApi {
  readonly callbackAnswers: CallbackAnswer[] = [];
  readonly inlineAnswers: InlineAnswer[] = [];

  private readonly handlers = new Map<string, Handler>();
  private readonly updates = new UpdateQueue();
  private readonly chats: FakeChats;
  private readonly store: FakeMessages;
  private readonly log: CallLog;
  private readonly openCallbackQueries = new Map<string, { chatId: number }>();
  private readonly openInlineQueries = new Set<string>();
  private nextQueryId = 1;
  private readonly listeners = new Set<(e: ActivityEvent) => void>();
  private readonly commandSets = new Map<string, { command: string; description: string }[]>();
  /** setChatMenuButton's buttons by chat id ('' for the bot's default). */
  private readonly menuButtons = new Map<string, z.infer<typeof menuButtonSchema>>();
  private readonly descriptionSets = new Map<string, { description?: string; short_description?: string }>();

  constructor(
    private readonly bot: BotUser,
    private readonly clock: Clock,
    /** Telegram's rate limits, when the fake enforces them. */
    readonly flood?: FloodControl,
  ) {
    this.chats = new FakeChats(bot);
    this.store = new FakeMessages(bot, clock, this.chats, (event) => this.emit(event));
    this.log = new CallLog(clock);
    this.registerHandlers();
  }

  // ---- the HTTP layer's entry point -------------------------------------------------------

  /** Runs one method call; `signal` aborts when the client goes away (a cancelled long poll). */
  async call(method: string, payload: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    const handler = this.handlers.get(method.toLowerCase());
    if (!handler) return { kind: 'answer', answer: { ok: false, error_code: 404, description: 'Not Found' } };

    const fault = this.log.takeFault(handler.name, payload);
    if (fault) {
      if (fault.code === 'network') {
        this.log.record(handler.name, payload, false);
        return { kind: 'drop' };
      }
      this.log.record(handler.name, payload, false, fault.code);
      return { kind: 'answer', answer: faultAnswer({ ...fault, code: fault.code }) };
    }
    const chatId = typeof payload.chat_id === 'number' || typeof payload.chat_id === 'string' ? Number(payload.chat_id) : Number.NaN;
    const retryAfter = this.flood && Number.isInteger(chatId) ? this.flood.check(handler.name, chatId, this.clock.now()) : undefined;
    if (retryAfter !== undefined) {
      this.log.record(handler.name, payload, false, 429);
      return { kind: 'answer', answer: faultAnswer({ count: 1, code: 429, retryAfter }) };
    }
    try {
      const result = await handler.run(payload, signal);
      this.log.record(handler.name, payload, true);
      return { kind: 'answer', answer: { ok: true, result } };
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      this.log.record(handler.name, payload, false, err.code);
      const answer: ApiAnswer = { ok: false, error_code: err.code, description: err.description };
      if (err.parameters) answer.parameters = err.parameters;
      return { kind: 'answer', answer };
    }
  }

  /** Answers every held long poll with what is queued (usually nothing) and refuses to hold new ones. */
  releasePolls(): void {
    this.updates.release();
  }

  // ---- updates --------------------------------------------------------------------------

  pushUpdate(u: Update): void {
    this.updates.push(u);
  }

  pendingUpdates(): Update[] {
    return this.updates.pending();
  }

  /** The webhook setWebhook stored, if any (its secret included: tests post with it). */
  webhookState(): WebhookState | undefined {
    return this.updates.webhookState();
  }

  /** Queued updates the webhook's allowed_updates lets through, in order. */
  deliverable(): Update[] {
    return this.updates.deliverable();
  }

  /** Drops a delivered update from the queue (the webhook answered 2xx). */
  delivered(updateId: number): void {
    this.updates.delivered(updateId);
  }

  sendText(from: FakeUser, text: string, chatRef?: FakeChatRef): Update {
    const chat = toChat(from, chatRef);
    this.chats.remember(chat);
    const messageId = this.store.addTyped(from.id, chat, text);
    const update = textMessageUpdate({ updateId: this.updates.nextUpdateId, messageId, date: this.date(), from, chat, text });
    this.updates.push(update);
    return update;
  }

  pressButton(from: FakeUser, message: SentMessage, callbackData: string): Update {
    const stored = this.store.find(message.chat_id, message.message_id);
    if (!stored || stored.deleted) {
      throw new Error(`message ${message.message_id} in chat ${message.chat_id} does not exist (deleted?)`);
    }
    const markup = inlineOf(stored.reply_markup);
    const present = markup?.inline_keyboard.some((row) => row.some((b) => b.callback_data === callbackData));
    if (!present) {
      throw new Error(`message ${message.message_id} has no button with callback data "${callbackData}"`);
    }
    const queryId = this.newQueryId();
    this.openCallbackQueries.set(queryId, { chatId: stored.chat_id });
    const update = callbackQueryUpdate({
      updateId: this.updates.nextUpdateId,
      queryId,
      from,
      message: this.store.object(stored),
      data: callbackData,
    });
    this.updates.push(update);
    return update;
  }

  pressInlineButton(from: FakeUser, inlineMessageId: string, callbackData: string): Update {
    const id = this.newQueryId();
    this.openCallbackQueries.set(id, { chatId: from.id });
    this.updates.push({ update_id: this.updates.nextUpdateId, callback_query: { id, from: toUser(from), inline_message_id: inlineMessageId, chat_instance: `inline-${from.id}`, data: callbackData } });
    return this.updates.pending().at(-1)!;
  }

  inlineQuery(from: FakeUser, query: string, offset = ''): Update {
    const queryId = this.newQueryId();
    this.openInlineQueries.add(queryId);
    const update = inlineQueryUpdate({ updateId: this.updates.nextUpdateId, queryId, from, query, offset });
    this.updates.push(update);
    return update;
  }

  chatMember(from: FakeUser, status: MemberStatus, chatRef?: FakeChatRef): Update {
    const chat = toChat(from, chatRef);
    const oldStatus = this.chats.setBotStatus(chat, status);
    const update = myChatMemberUpdate({
      updateId: this.updates.nextUpdateId,
      date: this.date(),
      from,
      chat,
      bot: this.bot,
      oldStatus: oldStatus === status ? (status === 'kicked' ? 'member' : 'kicked') : oldStatus,
      newStatus: status,
    });
    this.updates.push(update);
    return update;
  }

  // ---- what tests read ----------------------------------------------------------------------

  messages(chatId?: number): SentMessage[] {
    return this.store.sent(chatId);
  }

  userMessages(chatId?: number): UserMessage[] {
    return this.store.typed(chatId);
  }

  calls(method?: string): RecordedCall[] {
    return this.log.calls(method);
  }

  sendTimes(chatId?: number): number[] {
    return this.log.sendTimes(chatId);
  }

  commands(languageCode = ''): { command: string; description: string }[] {
    return structuredClone(this.commandSets.get(commandKey(undefined, languageCode)) ?? []);
  }

  descriptions(languageCode = ''): { description?: string; short_description?: string } {
    return { ...this.descriptionSets.get(languageCode) };
  }

  failNext(spec: FaultSpec): void {
    this.log.failNext(spec);
  }

  clearFaults(): void {
    this.log.clearFaults();
  }

  setChat(info: FakeChatInfo): void {
    this.chats.set(info);
  }

  /**
   * Upgrades a group to a supergroup, as Telegram does: the new chat keeps the title, the admins
   * and the bot's status; the old id answers every call with 400 and `migrate_to_chat_id`; the
   * service messages of both chats are queued as updates (`migrate_to_chat_id` in the old one,
   * `migrate_from_chat_id` in the new one).
   */
  migrateChat(oldId: number, newId: number, from: FakeUser): void {
    const { from: oldChat, to: chat } = this.chats.migrate(oldId, newId);
    const date = this.date();
    const user = toUser(from);
    this.updates.push({
      update_id: 0,
      message: { message_id: this.store.newMessageId(oldId), date, chat: oldChat, from: user, migrate_to_chat_id: newId },
    } as Update);
    this.updates.push({
      update_id: 0,
      message: { message_id: this.store.newMessageId(newId), date, chat, from: user, migrate_from_chat_id: oldId },
    } as Update);
  }

  onActivity(cb: (e: ActivityEvent) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  // ---- methods --------------------------------------------------------------------------------

  private registerHandlers(): void {
    const add = <S extends z.ZodType>(name: string, schema: S, run: (p: z.infer<S>, signal: AbortSignal) => unknown) => {
      this.handlers.set(name.toLowerCase(), {
        name,
        run: (payload, signal) => run(parse(schema, payload), signal),
      });
    };
    const anyPayload = chatActionSchema.partial();

    add('getMe', anyPayload, () => ({
      ...botAsUser(this.bot),
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: true,
      can_connect_to_business: false,
      has_main_web_app: false,
    }));
    add('getUpdates', getUpdatesSchema, (p, signal) => this.updates.getUpdates(p, signal));
    add('deleteWebhook', deleteWebhookSchema, (p) => this.updates.deleteWebhook(p));
    add('setWebhook', setWebhookSchema, (p) => this.updates.setWebhook(p));
    add('getWebhookInfo', anyPayload, () => this.updates.webhookInfo());
    add('sendMessage', sendMessageSchema, (p) => this.store.send(p));
    add('sendPhoto', sendPhotoSchema, (p) => this.store.sendMedia('photo', p));
    add('sendDocument', sendDocumentSchema, (p) => this.store.sendMedia('document', p));
    add('editMessageText', editMessageTextSchema, (p) => this.store.editText(p));
    add('editMessageReplyMarkup', editReplyMarkupSchema, (p) => this.store.editReplyMarkup(p));
    add('deleteMessage', deleteMessageSchema, (p) => this.store.delete(p.chat_id, p.message_id));
    add('answerCallbackQuery', answerCallbackSchema, (p) => this.answerCallback(p));
    add('answerInlineQuery', answerInlineSchema, (p) => this.answerInline(p));
    add('setMyCommands', setMyCommandsSchema, (p) => {
      this.commandSets.set(commandKey(p.scope, p.language_code), p.commands);
      return true;
    });
    add('setChatMenuButton', setChatMenuButtonSchema, (p) => {
      // Menu buttons are per private chat (or the default); a group has none.
      if (p.chat_id !== undefined && chatTypeOf(p.chat_id) !== 'private') throw new ApiFailure(400, 'Bad Request: chat not found');
      this.menuButtons.set(p.chat_id === undefined ? '' : String(p.chat_id), p.menu_button ?? { type: 'default' });
      return true;
    });
    add('getChatMenuButton', getChatMenuButtonSchema, (p) => {
      const own = p.chat_id === undefined ? undefined : this.menuButtons.get(String(p.chat_id));
      return own ?? this.menuButtons.get('') ?? { type: 'commands' };
    });
    add('getMyCommands', commandScopeSchema, (p) => this.commandSets.get(commandKey(p.scope, p.language_code)) ?? []);
    add('deleteMyCommands', commandScopeSchema, (p) => {
      this.commandSets.delete(commandKey(p.scope, p.language_code));
      return true;
    });
    add('setMyDescription', setDescriptionSchema, (p) => this.setDescription(p.language_code, { description: p.description }));
    add('setMyShortDescription', setDescriptionSchema, (p) =>
      this.setDescription(p.language_code, { short_description: p.short_description }),
    );
    add('getMyDescription', setDescriptionSchema, (p) => ({
      description: this.descriptionSets.get(p.language_code ?? '')?.description ?? '',
    }));
    add('getMyShortDescription', setDescriptionSchema, (p) => ({
      short_description: this.descriptionSets.get(p.language_code ?? '')?.short_description ?? '',
    }));
    add('getChat', chatOnlySchema, (p) => this.chats.getChat(p.chat_id));
    add('getChatMember', chatMemberSchema, (p) => this.chats.getChatMember(p.chat_id, p.user_id));
    add('getChatAdministrators', chatOnlySchema, (p) => this.chats.getChatAdministrators(p.chat_id));
    add('sendChatAction', chatActionSchema, (p) => {
      this.chats.assertCanPost(p.chat_id);
      return true;
    });
    add('close', anyPayload, () => true);
    add('logOut', anyPayload, () => true);
  }

  private answerCallback(p: z.infer<typeof answerCallbackSchema>): true {
    const query = this.openCallbackQueries.get(p.callback_query_id);
    if (!query) {
      throw new ApiFailure(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
    }
    this.openCallbackQueries.delete(p.callback_query_id);
    const answer: CallbackAnswer = { callback_query_id: p.callback_query_id, chat_id: query.chatId, at: this.clock.now() };
    if (p.text !== undefined) answer.text = p.text;
    if (p.show_alert !== undefined) answer.show_alert = p.show_alert;
    if (p.url !== undefined) answer.url = p.url;
    this.callbackAnswers.push(answer);
    this.emit({ kind: 'callback_answer', chatId: query.chatId, text: p.text, showAlert: p.show_alert });
    return true;
  }

  private answerInline(p: z.infer<typeof answerInlineSchema>): true {
    if (!this.openInlineQueries.delete(p.inline_query_id)) {
      throw new ApiFailure(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
    }
    const ids = p.results.map((r) => r.id);
    if (new Set(ids).size !== ids.length) throw new ApiFailure(400, 'Bad Request: RESULT_ID_DUPLICATE');
    if (ids.some((id) => id.length === 0 || Buffer.byteLength(id) > 64)) {
      throw new ApiFailure(400, 'Bad Request: RESULT_ID_INVALID');
    }
    const answer: InlineAnswer = { inline_query_id: p.inline_query_id, results: p.results, at: this.clock.now() };
    if (p.cache_time !== undefined) answer.cache_time = p.cache_time;
    if (p.is_personal !== undefined) answer.is_personal = p.is_personal;
    if (p.next_offset !== undefined) answer.next_offset = p.next_offset;
    if (p.button !== undefined) answer.button = p.button;
    this.inlineAnswers.push(answer);
    this.emit({ kind: 'inline_answer', inline: structuredClone(answer) });
    return true;
  }

  private setDescription(languageCode: string | undefined, value: { description?: string; short_description?: string }): true {
    const key = languageCode ?? '';
    this.descriptionSets.set(key, { ...this.descriptionSets.get(key), ...value });
    return true;
  }

  private newQueryId(): string {
    return `q${this.nextQueryId++}`;
  }

  private date(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private emit(event: ActivityEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        console.error('fake Telegram: an activity listener threw', err);
      }
    }
  }
}

function commandKey(scope: { type: string; chat_id?: unknown; user_id?: unknown } | undefined, languageCode: string | undefined): string {
  const type = scope?.type ?? 'default';
  return [type, scope?.chat_id ?? '', scope?.user_id ?? '', languageCode ?? ''].join('|');
}
