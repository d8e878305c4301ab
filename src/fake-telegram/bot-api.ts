/**
 * The fake Bot API's behaviour, without HTTP: the methods grammY calls, the update queue that
 * `getUpdates` serves, the chats, the messages the bot sent and the faults a test injected.
 * Errors carry Telegram's own codes and descriptions so grammY raises the `GrammyError`s it
 * raises in production.
 */
import type { Chat, Message, Update } from 'grammy/types';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { ApiFailure, faultAnswer, type ApiAnswer, type CallOutcome } from './errors.js';
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
  setDescriptionSchema,
  setMyCommandsSchema,
  setWebhookSchema,
  type InlineKeyboard,
} from './schemas.js';
import { checkKeyboard, checkText, inlineOf, markupKey, parse } from './validate.js';
import type { FloodControl } from './flood.js';
import type {
  ActivityEvent,
  CallbackAnswer,
  FakeChatInfo,
  FakeChatRef,
  FakeChatType,
  FakeUser,
  FaultSpec,
  InlineAnswer,
  RecordedCall,
  SentMessage,
  UserMessage,
} from './types.js';
import {
  adminMember,
  botAsUser,
  callbackQueryUpdate,
  chatTypeOf,
  inlineQueryUpdate,
  myChatMemberUpdate,
  textMessageUpdate,
  toChat,
  toUser,
} from './updates.js';

const MAX_RECORDED_CALLS = 50_000;
/** Update kinds Telegram leaves out unless `allowed_updates` asks for them. */
const OPT_IN_UPDATES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);
const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

type BotUser = { id: number; username: string; first_name: string };
type MemberStatus = 'member' | 'administrator' | 'kicked' | 'left';

interface ChatRecord {
  chat: Chat;
  botStatus: MemberStatus;
  adminIds: number[];
  /** The group became this supergroup: every call about the old id answers 400 with `migrate_to_chat_id`. */
  migratedTo?: number;
}

interface StoredMessage extends SentMessage {
  /** Send order over all chats (many messages share one `at` on a manual clock). */
  seq: number;
}

interface Handler {
  name: string;
  run(payload: Record<string, unknown>, signal: AbortSignal): unknown;
}

type UpdateWaiter = () => void;

export class FakeBotApi {
  readonly callbackAnswers: CallbackAnswer[] = [];
  readonly inlineAnswers: InlineAnswer[] = [];

  private readonly handlers = new Map<string, Handler>();
  private queue: Update[] = [];
  private nextUpdateId = 1;
  private allowedUpdates: string[] | undefined;
  private readonly updateWaiters = new Set<UpdateWaiter>();
  private readonly heldPolls = new Set<{ conflict: () => void }>();
  private closing = false;
  /** Set by setWebhook, cleared by deleteWebhook; while set, getUpdates answers 409 as Telegram does. */
  private webhook: { url: string; secretToken?: string; allowedUpdates?: string[] } | undefined;

  private readonly botMessages = new Map<number, StoredMessage[]>();
  private readonly usersMessages = new Map<number, UserMessage[]>();
  private readonly nextMessageIds = new Map<number, number>();
  private readonly chats = new Map<number, ChatRecord>();
  private readonly openCallbackQueries = new Map<string, { chatId: number }>();
  private readonly openInlineQueries = new Set<string>();
  private nextQueryId = 1;
  private nextSeq = 1;
  private readonly recorded: RecordedCall[] = [];
  private readonly faults: (FaultSpec & { left: number })[] = [];
  private readonly listeners = new Set<(e: ActivityEvent) => void>();
  private readonly commandSets = new Map<string, { command: string; description: string }[]>();
  private readonly descriptionSets = new Map<string, { description?: string; short_description?: string }>();

  constructor(
    private readonly bot: BotUser,
    private readonly clock: Clock,
    /** Telegram's rate limits, when the fake enforces them. */
    readonly flood?: FloodControl,
  ) {
    this.registerHandlers();
  }

  // ---- the HTTP layer's entry point -------------------------------------------------------

  /** Runs one method call; `signal` aborts when the client goes away (a cancelled long poll). */
  async call(method: string, payload: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    const handler = this.handlers.get(method.toLowerCase());
    if (!handler) return { kind: 'answer', answer: { ok: false, error_code: 404, description: 'Not Found' } };

    const fault = this.takeFault(handler.name, payload);
    if (fault) {
      if (fault.code === 'network') {
        this.record(handler.name, payload, false);
        return { kind: 'drop' };
      }
      this.record(handler.name, payload, false, fault.code);
      return { kind: 'answer', answer: faultAnswer({ ...fault, code: fault.code }) };
    }
    const chatId = typeof payload.chat_id === 'number' || typeof payload.chat_id === 'string' ? Number(payload.chat_id) : Number.NaN;
    const retryAfter = this.flood && Number.isInteger(chatId) ? this.flood.check(handler.name, chatId, this.clock.now()) : undefined;
    if (retryAfter !== undefined) {
      this.record(handler.name, payload, false, 429);
      return { kind: 'answer', answer: faultAnswer({ count: 1, code: 429, retryAfter }) };
    }
    try {
      const result = await handler.run(payload, signal);
      this.record(handler.name, payload, true);
      return { kind: 'answer', answer: { ok: true, result } };
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      this.record(handler.name, payload, false, err.code);
      const answer: ApiAnswer = { ok: false, error_code: err.code, description: err.description };
      if (err.parameters) answer.parameters = err.parameters;
      return { kind: 'answer', answer };
    }
  }

  /** Answers every held long poll with what is queued (usually nothing) and refuses to hold new ones. */
  releasePolls(): void {
    this.closing = true;
    for (const wake of [...this.updateWaiters]) wake();
  }

  // ---- updates --------------------------------------------------------------------------

  pushUpdate(u: Update): void {
    const update = u.update_id > 0 ? u : { ...u, update_id: this.nextUpdateId };
    this.nextUpdateId = Math.max(this.nextUpdateId, update.update_id + 1);
    this.queue.push(update);
    for (const wake of [...this.updateWaiters]) wake();
  }

  pendingUpdates(): Update[] {
    return structuredClone(this.queue);
  }

  /** The webhook setWebhook stored, if any (its secret included: tests post with it). */
  webhookState(): { url: string; secretToken?: string; allowedUpdates?: string[] } | undefined {
    return this.webhook ? structuredClone(this.webhook) : undefined;
  }

  /** Queued updates the webhook's allowed_updates lets through, in order. */
  deliverable(): Update[] {
    return this.queue.filter((u) => this.isAllowed(u));
  }

  /** Drops a delivered update from the queue (the webhook answered 2xx). */
  delivered(updateId: number): void {
    this.queue = this.queue.filter((u) => u.update_id !== updateId);
  }

  sendText(from: FakeUser, text: string, chatRef?: FakeChatRef): Update {
    const chat = toChat(from, chatRef);
    this.rememberChat(chat);
    const messageId = this.newMessageId(chat.id);
    const list = this.usersMessages.get(chat.id) ?? [];
    list.push({ message_id: messageId, chat_id: chat.id, from_id: from.id, text, deleted: false, at: this.clock.now() });
    this.usersMessages.set(chat.id, list);
    const update = textMessageUpdate({ updateId: this.nextUpdateId, messageId, date: this.date(), from, chat, text });
    this.pushUpdate(update);
    return update;
  }

  pressButton(from: FakeUser, message: SentMessage, callbackData: string): Update {
    const stored = this.findBotMessage(message.chat_id, message.message_id);
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
      updateId: this.nextUpdateId,
      queryId,
      from,
      message: this.messageObject(stored),
      data: callbackData,
    });
    this.pushUpdate(update);
    return update;
  }

  inlineQuery(from: FakeUser, query: string, offset = ''): Update {
    const queryId = this.newQueryId();
    this.openInlineQueries.add(queryId);
    const update = inlineQueryUpdate({ updateId: this.nextUpdateId, queryId, from, query, offset });
    this.pushUpdate(update);
    return update;
  }

  chatMember(from: FakeUser, status: MemberStatus, chatRef?: FakeChatRef): Update {
    const chat = toChat(from, chatRef);
    const record = this.rememberChat(chat);
    const oldStatus = record.botStatus;
    record.botStatus = status;
    const update = myChatMemberUpdate({
      updateId: this.nextUpdateId,
      date: this.date(),
      from,
      chat,
      bot: this.bot,
      oldStatus: oldStatus === status ? (status === 'kicked' ? 'member' : 'kicked') : oldStatus,
      newStatus: status,
    });
    this.pushUpdate(update);
    return update;
  }

  // ---- what tests read ----------------------------------------------------------------------

  messages(chatId?: number): SentMessage[] {
    const lists = chatId === undefined ? [...this.botMessages.values()] : [this.botMessages.get(chatId) ?? []];
    return lists
      .flat()
      .sort((a, b) => a.seq - b.seq)
      .map(snapshot);
  }

  userMessages(chatId?: number): UserMessage[] {
    const lists = chatId === undefined ? [...this.usersMessages.values()] : [this.usersMessages.get(chatId) ?? []];
    return lists.flat().map((m) => ({ ...m }));
  }

  calls(method?: string): RecordedCall[] {
    const wanted = method?.toLowerCase();
    return this.recorded.filter((c) => wanted === undefined || c.method.toLowerCase() === wanted);
  }

  sendTimes(chatId?: number): number[] {
    return this.recorded
      .filter((c) => c.ok && c.method === 'sendMessage' && (chatId === undefined || Number(c.payload.chat_id) === chatId))
      .map((c) => c.at);
  }

  commands(languageCode = ''): { command: string; description: string }[] {
    return structuredClone(this.commandSets.get(commandKey(undefined, languageCode)) ?? []);
  }

  descriptions(languageCode = ''): { description?: string; short_description?: string } {
    return { ...this.descriptionSets.get(languageCode) };
  }

  failNext(spec: FaultSpec): void {
    if (spec.count > 0) this.faults.push({ ...spec, left: spec.count });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  setChat(info: FakeChatInfo): void {
    const chat = toChat(
      { id: info.id, first_name: info.title },
      { id: info.id, type: info.type, title: info.title },
    );
    if (info.username !== undefined && chat.type !== 'group') chat.username = info.username;
    this.chats.set(info.id, {
      chat,
      botStatus: info.botIsAdmin ? 'administrator' : 'member',
      adminIds: info.adminIds ?? [],
    });
  }

  /**
   * Upgrades a group to a supergroup, as Telegram does: the new chat keeps the title, the admins
   * and the bot's status; the old id answers every call with 400 and `migrate_to_chat_id`; the
   * service messages of both chats are queued as updates (`migrate_to_chat_id` in the old one,
   * `migrate_from_chat_id` in the new one).
   */
  migrateChat(oldId: number, newId: number, from: FakeUser): void {
    const old = this.chats.get(oldId);
    if (!old) throw new Error(`chat ${oldId} is not known: setChat it first`);
    const chat = { id: newId, type: 'supergroup', title: 'title' in old.chat ? old.chat.title : `Chat ${newId}` } as Chat;
    this.chats.set(newId, { chat, botStatus: old.botStatus, adminIds: [...old.adminIds] });
    old.migratedTo = newId;
    const date = this.date();
    const user = toUser(from);
    this.pushUpdate({
      update_id: 0,
      message: { message_id: this.newMessageId(oldId), date, chat: old.chat, from: user, migrate_to_chat_id: newId },
    } as Update);
    this.pushUpdate({
      update_id: 0,
      message: { message_id: this.newMessageId(newId), date, chat, from: user, migrate_from_chat_id: oldId },
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
    add('getUpdates', getUpdatesSchema, (p, signal) => this.getUpdates(p, signal));
    add('deleteWebhook', deleteWebhookSchema, (p) => {
      if (p.drop_pending_updates) this.queue = [];
      this.webhook = undefined;
      return true;
    });
    add('setWebhook', setWebhookSchema, (p) => {
      if (p.url === '') {
        this.webhook = undefined;
        return true;
      }
      if (!/^https:\/\//.test(p.url)) throw new ApiFailure(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
      if (p.drop_pending_updates) this.queue = [];
      this.webhook = {
        url: p.url,
        ...(p.secret_token !== undefined && { secretToken: p.secret_token }),
        ...(p.allowed_updates !== undefined && { allowedUpdates: p.allowed_updates }),
      };
      if (p.allowed_updates !== undefined) this.allowedUpdates = p.allowed_updates.length > 0 ? p.allowed_updates : undefined;
      return true;
    });
    add('getWebhookInfo', anyPayload, () => ({
      url: this.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.queue.length,
      ...(this.webhook?.allowedUpdates !== undefined && { allowed_updates: this.webhook.allowedUpdates }),
    }));
    add('sendMessage', sendMessageSchema, (p) => this.sendMessage(p));
    add('editMessageText', editMessageTextSchema, (p) => this.editMessageText(p));
    add('editMessageReplyMarkup', editReplyMarkupSchema, (p) => this.editReplyMarkup(p));
    add('deleteMessage', deleteMessageSchema, (p) => this.deleteMessage(p.chat_id, p.message_id));
    add('answerCallbackQuery', answerCallbackSchema, (p) => this.answerCallback(p));
    add('answerInlineQuery', answerInlineSchema, (p) => this.answerInline(p));
    add('setMyCommands', setMyCommandsSchema, (p) => {
      this.commandSets.set(commandKey(p.scope, p.language_code), p.commands);
      return true;
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
    add('getChat', chatOnlySchema, (p) => this.getChat(p.chat_id));
    add('getChatMember', chatMemberSchema, (p) => this.getChatMember(p.chat_id, p.user_id));
    add('getChatAdministrators', chatOnlySchema, (p) => this.getChatAdministrators(p.chat_id));
    add('sendChatAction', chatActionSchema, (p) => {
      this.assertCanPost(p.chat_id);
      return true;
    });
    add('close', anyPayload, () => true);
    add('logOut', anyPayload, () => true);
  }

  private async getUpdates(p: z.infer<typeof getUpdatesSchema>, signal: AbortSignal): Promise<Update[]> {
    if (this.webhook) {
      throw new ApiFailure(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    // Telegram serves one long poll per bot: a second one ends the first with 409, as grammY expects.
    for (const held of [...this.heldPolls]) held.conflict();
    if (p.offset !== undefined) this.confirm(p.offset);
    if (p.allowed_updates !== undefined) this.allowedUpdates = p.allowed_updates.length > 0 ? p.allowed_updates : undefined;
    const limit = p.limit ?? 100;
    const deadline = Date.now() + (p.timeout ?? 0) * 1000;

    for (;;) {
      const ready = this.queue.filter((u) => this.isAllowed(u)).slice(0, limit);
      const left = deadline - Date.now();
      if (ready.length > 0 || left <= 0 || this.closing || signal.aborted) return ready;
      const outcome = await this.holdPoll(left, signal);
      if (outcome === 'conflict') {
        throw new ApiFailure(
          409,
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        );
      }
    }
  }

  /** Waits (real time) for a new update, the timeout, a competing poll or the client going away. */
  private holdPoll(ms: number, signal: AbortSignal): Promise<'update' | 'timeout' | 'conflict' | 'aborted'> {
    return new Promise((resolve) => {
      const finish = (outcome: 'update' | 'timeout' | 'conflict' | 'aborted') => {
        clearTimeout(timer);
        this.updateWaiters.delete(wake);
        this.heldPolls.delete(held);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const wake = () => finish('update');
      const held = { conflict: () => finish('conflict') };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), ms);
      this.updateWaiters.add(wake);
      this.heldPolls.add(held);
      signal.addEventListener('abort', onAbort);
    });
  }

  private confirm(offset: number): void {
    if (offset > 0) this.queue = this.queue.filter((u) => u.update_id >= offset);
    else if (offset < 0) this.queue = this.queue.slice(offset);
  }

  private isAllowed(u: Update): boolean {
    const kind = Object.keys(u).find((k) => k !== 'update_id') ?? '';
    return this.allowedUpdates ? this.allowedUpdates.includes(kind) : !OPT_IN_UPDATES.has(kind);
  }

  private sendMessage(p: z.infer<typeof sendMessageSchema>): Message {
    const chatId = p.chat_id;
    this.assertCanPost(chatId);
    const text = p.text ?? '';
    if (text.trim() === '') throw new ApiFailure(400, 'Bad Request: message text is empty');
    checkText(text, p.parse_mode);
    const markup = p.reply_markup;
    if (markup && 'inline_keyboard' in markup) checkKeyboard(markup as InlineKeyboard);

    const replyTo = p.reply_parameters?.message_id ?? p.reply_to_message_id;
    const allowMissing = p.reply_parameters?.allow_sending_without_reply ?? p.allow_sending_without_reply ?? false;
    if (replyTo !== undefined && !this.messageExists(chatId, replyTo) && !allowMissing) {
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
      ...(replyTo !== undefined && this.messageExists(chatId, replyTo) && { reply_to_message_id: replyTo }),
      ...(p.link_preview_options !== undefined && { link_preview_options: p.link_preview_options }),
    };
    const list = this.botMessages.get(chatId) ?? [];
    list.push(stored);
    this.botMessages.set(chatId, list);
    this.emit({ kind: 'sent', chatId, message: snapshot(stored) });
    return this.messageObject(stored);
  }

  private editMessageText(p: z.infer<typeof editMessageTextSchema>): Message | true {
    if (p.inline_message_id !== undefined) return true;
    const stored = this.editTarget(p.chat_id, p.message_id);
    const text = p.text ?? '';
    if (text.trim() === '') throw new ApiFailure(400, 'Bad Request: message text is empty');
    checkText(text, p.parse_mode);
    if (p.reply_markup) checkKeyboard(p.reply_markup);
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

  private editReplyMarkup(p: z.infer<typeof editReplyMarkupSchema>): Message | true {
    if (p.inline_message_id !== undefined) return true;
    const stored = this.editTarget(p.chat_id, p.message_id);
    if (p.reply_markup) checkKeyboard(p.reply_markup);
    if (markupKey(stored.reply_markup) === markupKey(p.reply_markup)) throw new ApiFailure(400, NOT_MODIFIED);
    stored.reply_markup = p.reply_markup;
    return this.markEdited(stored);
  }

  private editTarget(chatId: number | undefined, messageId: number | undefined): StoredMessage {
    if (chatId === undefined) throw new ApiFailure(400, 'Bad Request: chat_id is empty');
    if (messageId === undefined) throw new ApiFailure(400, 'Bad Request: message identifier is not specified');
    this.assertCanPost(chatId);
    const stored = this.findBotMessage(chatId, messageId);
    if (stored && !stored.deleted) return stored;
    if (this.findUserMessage(chatId, messageId)?.deleted === false) {
      throw new ApiFailure(400, "Bad Request: message can't be edited");
    }
    throw new ApiFailure(400, 'Bad Request: message to edit not found');
  }

  private markEdited(stored: StoredMessage): Message {
    stored.edited = true;
    stored.edited_at = this.clock.now();
    this.emit({ kind: 'edited', chatId: stored.chat_id, message: snapshot(stored) });
    return { ...this.messageObject(stored), edit_date: this.date() } as Message;
  }

  private deleteMessage(chatId: number, messageId: number): true {
    const stored = this.findBotMessage(chatId, messageId);
    if (stored && !stored.deleted) {
      stored.deleted = true;
      this.emit({ kind: 'deleted', chatId, message: snapshot(stored) });
      return true;
    }
    const own = this.findUserMessage(chatId, messageId);
    if (own && !own.deleted) {
      own.deleted = true;
      this.emit({ kind: 'deleted', chatId, messageId });
      return true;
    }
    throw new ApiFailure(400, 'Bad Request: message to delete not found');
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
    return true;
  }

  private setDescription(languageCode: string | undefined, value: { description?: string; short_description?: string }): true {
    const key = languageCode ?? '';
    this.descriptionSets.set(key, { ...this.descriptionSets.get(key), ...value });
    return true;
  }

  private getChat(chatId: number): Record<string, unknown> {
    const record = this.chats.get(chatId);
    if (!record) throw new ApiFailure(400, 'Bad Request: chat not found');
    assertNotMigrated(record);
    return { ...record.chat, accent_color_id: 0, max_reaction_count: 11 };
  }

  private getChatMember(chatId: number, userId: number): object {
    const record = this.chats.get(chatId);
    if (!record) throw new ApiFailure(400, 'Bad Request: chat not found');
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

  private getChatAdministrators(chatId: number): object[] {
    const record = this.chats.get(chatId);
    if (!record) throw new ApiFailure(400, 'Bad Request: chat not found');
    if (record.chat.type === 'private') {
      throw new ApiFailure(400, 'Bad Request: there are no administrators in the private chat');
    }
    const admins = record.adminIds.map((id) => this.getChatMember(chatId, id));
    if (record.botStatus === 'administrator') admins.push(adminMember(botAsUser(this.bot)));
    return admins;
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Refuses a post where Telegram would: a user who blocked the bot, a chat the bot left, a channel it does not administer. */
  private assertCanPost(chatId: number): void {
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

  private rememberChat(chat: Chat): ChatRecord {
    const known = this.chats.get(chat.id);
    if (known) return known;
    const record: ChatRecord = { chat, botStatus: 'member', adminIds: [] };
    this.chats.set(chat.id, record);
    return record;
  }

  private chatObject(chatId: number): Chat {
    const known = this.chats.get(chatId)?.chat;
    if (known) return known;
    const type = chatTypeOf(chatId);
    if (type === 'private') return { id: chatId, type: 'private', first_name: `User ${chatId}` };
    return toChat({ id: chatId }, { id: chatId, type, title: `Chat ${chatId}` });
  }

  private messageObject(stored: StoredMessage): Message {
    const markup = inlineOf(stored.reply_markup);
    const message: Message = {
      message_id: stored.message_id,
      date: Math.floor(stored.at / 1000),
      chat: this.chatObject(stored.chat_id),
      from: botAsUser(this.bot),
      text: stored.text,
    };
    // The schema's keyboard is looser than grammY's type (unknown extra button fields pass through).
    if (markup !== undefined) Object.assign(message, { reply_markup: markup });
    return message;
  }

  private findBotMessage(chatId: number, messageId: number): StoredMessage | undefined {
    return this.botMessages.get(chatId)?.find((m) => m.message_id === messageId);
  }

  private findUserMessage(chatId: number, messageId: number): UserMessage | undefined {
    return this.usersMessages.get(chatId)?.find((m) => m.message_id === messageId);
  }

  private messageExists(chatId: number, messageId: number): boolean {
    const bot = this.findBotMessage(chatId, messageId);
    const user = this.findUserMessage(chatId, messageId);
    return (bot !== undefined && !bot.deleted) || (user !== undefined && !user.deleted);
  }

  private newMessageId(chatId: number): number {
    const id = this.nextMessageIds.get(chatId) ?? 1;
    this.nextMessageIds.set(chatId, id + 1);
    return id;
  }

  private newQueryId(): string {
    return `q${this.nextQueryId++}`;
  }

  private date(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private takeFault(method: string, payload: Record<string, unknown>): (FaultSpec & { left: number }) | undefined {
    const index = this.faults.findIndex((f) => {
      if (f.method !== undefined ? f.method.toLowerCase() !== method.toLowerCase() : method === 'getUpdates') return false;
      return f.chatId === undefined || Number(payload.chat_id) === f.chatId;
    });
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private record(method: string, payload: Record<string, unknown>, ok: boolean, errorCode?: number): void {
    const call: RecordedCall = { method, payload, at: this.clock.now(), ok };
    if (errorCode !== undefined) call.error_code = errorCode;
    this.recorded.push(call);
    if (this.recorded.length > MAX_RECORDED_CALLS) this.recorded.splice(0, this.recorded.length - MAX_RECORDED_CALLS);
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

function assertNotMigrated(record: ChatRecord): void {
  if (record.migratedTo === undefined) return;
  throw new ApiFailure(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: record.migratedTo });
}

function commandKey(scope: { type: string; chat_id?: unknown; user_id?: unknown } | undefined, languageCode: string | undefined): string {
  const type = scope?.type ?? 'default';
  return [type, scope?.chat_id ?? '', scope?.user_id ?? '', languageCode ?? ''].join('|');
}

function memberRecord(user: ReturnType<typeof botAsUser>, status: MemberStatus): object {
  if (status === 'administrator') return adminMember(user);
  if (status === 'kicked') return { status, user, until_date: 0 };
  return { status, user };
}

function snapshot(m: StoredMessage): SentMessage {
  const { seq: _seq, ...rest } = m;
  return structuredClone(rest);
}
