/**
 * The bot under test: `createBot` with the real store and vault in a temp dir, the fake Bot API
 * server on 127.0.0.1 as the recorded API (it also sees the calls made inside conversations),
 * fake service client and scheduler, a ManualClock and captured logs. Updates go in through
 * `bot.handleUpdate`, one at a time, as the runner's per-chat sequentializing would give them.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Api, type Bot } from 'grammy';
import type { InlineKeyboardMarkup, Update, UserFromGetMe } from 'grammy/types';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createBot } from '../../src/bot/bot.js';
import { createConversationStore, type ConversationStorage, type ConversationStore } from '../../src/bot/conversation-store.js';
import type { CapsPort } from '../../src/bot/caps.js';
import type { PendingStore } from '../../src/bot/pending.js';
import type { BotContext } from '../../src/bot/context.js';
import type { BotStats } from '../../src/bot/deps.js';
import { startFakeTelegram, type FakeTelegram, type FakeUser, type FakeChatRef, type SentMessage } from '../../src/fake-telegram/server.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { subscriptionKey } from '../../src/store/schema.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { Vault } from '../../src/store/vault.js';
import { entry } from '../store/fixtures.js';
import { FakeScheduler, FakeServiceClient } from './fakes.js';

export const ALICE: FakeUser = { id: 101, first_name: 'Alice', language_code: 'en' };
export const BORIS: FakeUser = { id: 202, first_name: 'Борис', language_code: 'ru' };
export const CAROL: FakeUser = { id: 303, first_name: 'Carol', language_code: 'de' };

export const DEMO_KEY = 'demo-key';
export const DEMO_SECRET = 'demo-secret-0123456789';
const ENCRYPTION_KEY = 'a1'.repeat(32);

export interface HarnessOptions {
  allowed?: number[];
  admins?: number[];
  stats?: BotStats;
  /** Run an outbox on the fake Bot API (the harness clock) and pass it to the bot as its chat gate, as the app does. */
  outbox?: boolean;
  /** The fake Bot API enforces Telegram's flood control, on the harness clock. */
  floodControl?: boolean;
  /** More settings for the bot's config (e.g. LEDGER_MAX_POSITIONS). */
  env?: Record<string, string>;
  /** Opens the store (at start and at `restart`) instead of db.json in the temp DATA_DIR: a Redis store, say. */
  openStore?: (clock: ManualClock) => Promise<Store>;
  /** Other keepers of the open questions, caps or flows than the bot's own in memory (a cluster front's, in Redis). */
  state?: { pending?: PendingStore; caps?: CapsPort; conversations?: ConversationStorage };
}

export interface Harness {
  fake: FakeTelegram;
  bot: Bot<BotContext>;
  store: Store;
  vault: Vault;
  client: FakeServiceClient;
  scheduler: FakeScheduler;
  clock: ManualClock;
  /** With `outbox: true`: the running outbox the bot's replies share their budget with. */
  outbox: Outbox | undefined;
  /** Where open flows are kept, swept of abandoned ones on the harness clock. */
  conversations: ConversationStore;
  dataDir: string;
  logs: string[];
  /** A user types `text` (in their private chat unless `chat` is given). */
  say(from: FakeUser, text: string, chat?: FakeChatRef): Promise<void>;
  /** A user presses a button that is on `message` now. */
  press(from: FakeUser, message: SentMessage, data: string): Promise<void>;
  /**
   * A message the bot sent outside any flow (an alert from the outbox, an old prompt whose
   * buttons were never removed), so tests can press its buttons.
   */
  plant(chatId: number, text: string, buttons: [label: string, data: string][]): Promise<SentMessage>;
  /** The text of the last callback answer (toast). */
  callbackText(): string | undefined;
  handle(update: Update): Promise<void>;
  /** The bot's messages in a chat (not deleted), oldest first. */
  sent(chatId: number): SentMessage[];
  /** The bot's last message in a chat. */
  last(chatId: number): SentMessage;
  /** The callback data of the button whose label contains `label` on `message`. */
  button(message: SentMessage, label: string): string;
  /** Every button label on a message. */
  labels(message: SentMessage): string[];
  /** Connects ALICE's demo key through the one-line form. */
  connect(user?: FakeUser): Promise<void>;
  /** Every file in DATA_DIR, concatenated (after a flush). */
  dataFiles(): Promise<string>;
  /** The bot restarts: the store is closed and opened again from DATA_DIR, and a new bot takes over `store` and `bot`. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Records that `message` in a group is the bot's alert of `itemId` for the user's filter (so its buttons are theirs). */
export function recordGroupAlert(store: Store, userId: number, itemId: string, eventId: string, message: SentMessage): void {
  store.alerts.set(subscriptionKey(userId, 'arbs_prematch'), itemId, entry({ eventId, chatId: message.chat_id, messageId: message.message_id, odds: [2, 2] }));
}

export function botInfoOf(fake: FakeTelegram): UserFromGetMe {
  return {
    id: fake.botUser.id,
    is_bot: true,
    first_name: fake.botUser.first_name,
    username: fake.botUser.username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: true,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
}

export async function createHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const clock = new ManualClock();
  const fake = await startFakeTelegram(opts.floodControl ? { clock, floodControl: true } : {});
  const dataDir = await mkdtemp(join(tmpdir(), 'bot-test-'));
  const { lines, logger } = captureLogs();
  const config = loadConfig({
    BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.apiRoot,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY,
    ALLOWED_USER_IDS: (opts.allowed ?? []).join(','),
    ADMIN_USER_IDS: (opts.admins ?? []).join(','),
    ...opts.env,
  });
  const open = opts.openStore ?? (() => openStore({ dataDir, logger, clock, debounceMs: 20 }));
  const store = await open(clock);
  const vault = await Vault.open({ dataDir, envKey: ENCRYPTION_KEY, logger });
  const client = new FakeServiceClient();
  client.addKey(DEMO_KEY, DEMO_SECRET);
  const scheduler = new FakeScheduler();
  const outbox = opts.outbox ? new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger, clock }) : undefined;
  outbox?.start();
  const conversations = createConversationStore({ clock, logger });
  conversations.start();
  const makeBot = async (withStore: Store) => {
    const made = createBot({
      config,
      logger,
      store: withStore,
      vault,
      client,
      scheduler,
      clock,
      botInfo: botInfoOf(fake),
      ...(opts.stats ? { stats: opts.stats } : {}),
      ...(outbox ? { chatGate: outbox } : {}),
      conversationStore: opts.state?.conversations ?? conversations,
      ...(opts.state?.pending && { pending: opts.state.pending }),
      ...(opts.state?.caps && { caps: opts.state.caps }),
    });
    await made.init();
    return made;
  };
  const bot = await makeBot(store);

  const h: Harness = {
    fake,
    bot,
    store,
    vault,
    client,
    scheduler,
    clock,
    outbox,
    conversations,
    dataDir,
    logs: lines,
    handle: (update) => h.bot.handleUpdate(update),
    say: (from, text, chat) => h.bot.handleUpdate(fake.sendText(from, text, chat)),
    press: (from, message, data) => h.bot.handleUpdate(fake.pressButton(from, message, data)),
    plant: async (chatId, text, buttons) => {
      const sent = await h.bot.api.sendMessage(chatId, text, {
        reply_markup: { inline_keyboard: [buttons.map(([label, data]) => ({ text: label, callback_data: data }))] },
      });
      const message = fake.messages(chatId).find((m) => m.message_id === sent.message_id);
      if (!message) throw new Error('planted message not recorded');
      return message;
    },
    callbackText: () => {
      const answers = fake.calls('answerCallbackQuery');
      const text = answers[answers.length - 1]?.payload.text;
      return typeof text === 'string' ? text : undefined;
    },
    sent: (chatId) => fake.messages(chatId).filter((m) => !m.deleted),
    last: (chatId) => {
      const all = fake.messages(chatId).filter((m) => !m.deleted);
      const message = all[all.length - 1];
      if (!message) throw new Error(`no message in chat ${chatId}`);
      return message;
    },
    button: (message, label) => {
      const markup = message.reply_markup as InlineKeyboardMarkup | undefined;
      for (const row of markup?.inline_keyboard ?? []) {
        for (const b of row) if (b.text.includes(label) && 'callback_data' in b && b.callback_data) return b.callback_data;
      }
      throw new Error(`no button "${label}" on: ${h.labels(message).join(' | ')}`);
    },
    labels: (message) => {
      const markup = message.reply_markup as InlineKeyboardMarkup | undefined;
      return (markup?.inline_keyboard ?? []).flat().map((b) => b.text);
    },
    connect: async (user = ALICE) => {
      await h.say(user, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    },
    dataFiles: async () => {
      await h.store.flush();
      const names = await readdir(dataDir);
      const texts = await Promise.all(names.map((n) => readFile(join(dataDir, n), 'utf8')));
      return texts.join('\n');
    },
    restart: async () => {
      await h.store.close();
      h.store = await open(clock);
      h.bot = await makeBot(h.store);
    },
    close: async () => {
      conversations.stop();
      outbox?.stop();
      await h.store.close();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/**
 * For each test of the file: a fresh harness with Alice connected and (unless `prematchFilter` is
 * false) a filter on arbs prematch, handed to `ready`, and closed after the test.
 */
export function withConnectedHarness(ready: (h: Harness) => void, opts: { prematchFilter?: boolean } = {}): void {
  let h: Harness | undefined;
  beforeEach(async () => {
    h = await createHarness();
    await h.connect();
    if (opts.prematchFilter !== false) await h.say(ALICE, '/filter arbs_prematch');
    ready(h);
  });
  afterEach(async () => {
    await h?.close();
  });
}
