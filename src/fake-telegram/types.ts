/**
 * The public shapes of the fake Bot API: what tests and the playground see of it.
 */
import type { Update } from 'grammy/types';
import type { Clock } from '../clock.js';
import type { FloodLimits, FloodStats } from './flood.js';

export type { FloodLimits, FloodStats, EarlyRequest } from './flood.js';

export type { Update };

/** A Telegram user as the fake builds updates for it. */
export interface FakeUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export type FakeChatType = 'private' | 'group' | 'supergroup' | 'channel';

/** A chat that an update comes from (defaults to the private chat with the sender). */
export interface FakeChatRef {
  id: number;
  type: FakeChatType;
  title?: string;
}

/** What the fake knows of a group or channel the bot is in (for getChat / getChatMember / getChatAdministrators). */
export interface FakeChatInfo {
  id: number;
  type: FakeChatType;
  title: string;
  botIsAdmin: boolean;
  /** Users who administer the chat (the first one is reported as its creator). */
  adminIds?: number[];
  username?: string;
}

export interface FakeTelegramOptions {
  /** Default `123456:TEST-TOKEN-abcdefghijklmnopqrstu`. */
  token?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default id 999, username `bb_test_bot`, first name `BB Test Bot`. */
  botUser?: { id: number; username: string; first_name: string };
  /** Time for message dates and the recorded `at` of calls and messages; long polls always use real time. */
  clock?: Clock;
  /**
   * Enforce Telegram's rate limits (per chat, global, per group), answering 429 with retry_after
   * and counting requests that come before it is over; `true` for Telegram's limits. Default off.
   */
  floodControl?: boolean | Partial<FloodLimits>;
}

/** A message the bot sent, as it stands now. */
export interface SentMessage {
  message_id: number;
  chat_id: number;
  text: string;
  parse_mode?: string;
  reply_markup?: unknown;
  reply_to_message_id?: number;
  link_preview_options?: unknown;
  edited: boolean;
  deleted: boolean;
  /** Earlier texts, oldest first. */
  history: string[];
  /** When it was sent (the fake's clock, ms). */
  at: number;
  /** When it was last edited (ms), if it was. */
  edited_at?: number;
  /** A photo or document (sendPhoto, sendDocument): `text` is then its caption. */
  media?: { kind: 'photo' | 'document'; fileName: string; bytes: Buffer };
}

/** A message a user sent through `sendText`, so tests can check the bot deleted it (e.g. a secret key). */
export interface UserMessage {
  message_id: number;
  chat_id: number;
  from_id: number;
  text: string;
  deleted: boolean;
  at: number;
}

/** One recorded Bot API call (every call, including failed ones). */
export interface RecordedCall {
  method: string;
  payload: Record<string, unknown>;
  at: number;
  ok: boolean;
  error_code?: number;
}

export interface CallbackAnswer {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
  url?: string;
  /** The chat of the message whose button was pressed. */
  chat_id?: number;
  at: number;
}

export interface InlineAnswer {
  inline_query_id: string;
  results: Record<string, unknown>[];
  cache_time?: number;
  is_personal?: boolean;
  next_offset?: string;
  button?: unknown;
  at: number;
}

export interface ActivityEvent {
  kind: 'sent' | 'edited' | 'deleted' | 'callback_answer' | 'inline_answer';
  chatId?: number;
  /** The bot's message (sent, edited, or deleted). */
  message?: SentMessage;
  /** The id of a deleted user message (when `message` is absent). */
  messageId?: number;
  /** The toast text of a callback answer. */
  text?: string;
  showAlert?: boolean;
  /** The bot's answer to an inline query (what the user's inline menu would list). */
  inline?: InlineAnswer;
}

/** Which kind of failure `failNext` injects; `network` drops the connection without an answer. */
export type FaultCode = 400 | 403 | 429 | 500 | 502 | 503 | 'network';

export interface FaultSpec {
  /** Only calls of this method (case-insensitive); without it any method except `getUpdates`. */
  method?: string;
  /** Only calls whose `chat_id` is this chat. */
  chatId?: number;
  count: number;
  code: FaultCode;
  /** Seconds, for 429 (default 1). */
  retryAfter?: number;
  description?: string;
}

export interface FakeTelegram {
  readonly apiRoot: string;
  readonly token: string;
  readonly port: number;
  readonly botUser: { id: number; username: string; first_name: string };
  /** Queues a text message from a user (a command gets its `bot_command` entity). */
  sendText(from: FakeUser, text: string, chat?: FakeChatRef): Update;
  /** Queues a button press (callback_query) on the current state of `message`; throws if that button is not on it. */
  pressButton(from: FakeUser, message: SentMessage, callbackData: string): Update;
  /** A user presses a button of a message sent through inline mode (`inline_message_id`, no chat: the fake does not store inline messages). */
  pressInlineButton(from: FakeUser, inlineMessageId: string, callbackData: string): Update;
  /** Queues an inline query. */
  inlineQuery(from: FakeUser, query: string, offset?: string): Update;
  /**
   * Queues a `my_chat_member` update: in a private chat `kicked` means the user blocked the bot and
   * `member` that they unblocked it (later sends to a blocked chat answer 403 by themselves).
   */
  chatMember(from: FakeUser, status: 'kicked' | 'member' | 'administrator' | 'left', chat?: FakeChatRef): Update;
  /** Queues an update as given; assigns `update_id` when it is 0 or missing. */
  pushUpdate(u: Update): void;
  /** Updates queued and not yet confirmed by a later `getUpdates` offset. */
  pendingUpdates(): Update[];
  /** Everything the bot sent, per chat, in order (snapshots). */
  messages(chatId?: number): SentMessage[];
  /** Messages users sent through `sendText` (snapshots). */
  userMessages(chatId?: number): UserMessage[];
  /** Recorded calls, optionally of one method (case-insensitive). */
  calls(method?: string): RecordedCall[];
  /** The fake clock's time of each successful sendMessage, per chat or all, in order. */
  sendTimes(chatId?: number): number[];
  readonly answers: { readonly callback: CallbackAnswer[]; readonly inline: InlineAnswer[] };
  /** Commands stored by setMyCommands, per language code ('' for the default). */
  commands(languageCode?: string): { command: string; description: string }[];
  /** Texts stored by setMyDescription / setMyShortDescription, per language code ('' for the default). */
  descriptions(languageCode?: string): { description?: string; short_description?: string };
  /** Resolves when a message matching `pred` exists; rejects after `timeoutMs` (default 5000, real time). */
  waitForMessage(pred: (m: SentMessage) => boolean, timeoutMs?: number): Promise<SentMessage>;
  /** What flood control saw; undefined when it is off. */
  flood(): FloodStats | undefined;
  /** Answers the next `count` matching calls with the given failure. */
  failNext(opts: FaultSpec): void;
  /** Removes every pending fault. */
  clearFaults(): void;
  /** Declares a group or channel the bot is in (again, to change its admins or the bot's rights). */
  setChat(chat: FakeChatInfo): void;
  /** Upgrades a group to a supergroup (`migrate_to_chat_id`), queuing the two service messages as updates. */
  migrateChat(oldId: number, newId: number, from: FakeUser): void;
  /** Called on every sendMessage / edit / deleteMessage / answerCallbackQuery; returns an unsubscribe function. */
  onActivity(cb: (event: ActivityEvent) => void): () => void;
  /** The webhook set by setWebhook (undefined after deleteWebhook). */
  webhookInfo(): { url: string; secretToken?: string; allowedUpdates?: string[] } | undefined;
  /**
   * Posts one update to the webhook as Telegram does: JSON to `to` (a local address standing in for
   * the public URL) with `X-Telegram-Bot-Api-Secret-Token` set to the stored secret unless
   * `secretToken` says otherwise (null: no header). Resolves with the HTTP status.
   */
  postWebhook(update: Update, opts: { to: string; secretToken?: string | null }): Promise<number>;
  /** Posts every queued update the webhook accepts, in order, dropping each answered 2xx; resolves with the statuses. */
  deliverWebhook(opts: { to: string; secretToken?: string | null }): Promise<number[]>;
  /** Releases held long polls (with no updates), closes every connection and stops listening. */
  close(): Promise<void>;
}
