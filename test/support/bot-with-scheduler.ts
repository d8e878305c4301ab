/**
 * The bot as one process runs it, on a ManualClock: the sandbox, the real service client, the
 * store and vault in a temp dir, the real scheduler and notifier with an outbox on the fake Bot
 * API, and grammY driven update by update. For tests whose subject crosses the bot and the
 * scheduler: a save the token budget refuses and the scheduler writes later, coverage in words.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api, type Bot } from 'grammy';
import { createNotifier } from '../../src/alerts/notifier.js';
import { createBot } from '../../src/bot/bot.js';
import type { BotContext } from '../../src/bot/context.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import type { FakeUser } from '../../src/fake-telegram/types.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { botInfoOf } from '../bot/harness.js';
import { runFor, seededRandom } from '../scheduler/harness.js';

export interface BotWithScheduler {
  clock: ManualClock;
  sandbox: Sandbox;
  fake: FakeTelegram;
  store: Store;
  client: ServiceClientWithLimits;
  scheduler: Scheduler;
  bot: Bot<BotContext>;
  /** A user types `text` in their private chat; resolves when the bot has handled it. */
  say(from: FakeUser, text: string): Promise<void>;
  /**
   * The newcomer report's start: the demo pair connected, then filters for arbs prematch and live
   * (18 of the hour's 20 token requests go to polling them; /connect and the second write take the 2 left).
   */
  twoServices(from: FakeUser): Promise<void>;
  /** A user taps the button labelled `label` on the latest message of their chat that has one. */
  tap(from: FakeUser, label: string): Promise<void>;
  /** The text of the bot's last message to the chat. */
  lastText(chatId: number): string;
  /** Moves the clock on in steps, each read and send of the way done before the next. */
  run(ms: number, stepMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function botWithScheduler(env: Record<string, string> = {}): Promise<BotWithScheduler> {
  const clock = new ManualClock();
  const sandbox = await startSandbox({ clock });
  const fake = await startFakeTelegram({ clock });
  const dataDir = await mkdtemp(join(tmpdir(), 'bot-with-scheduler-'));
  const config = loadConfig({ BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot, DATA_DIR: dataDir, ENCRYPTION_KEY: 'ef'.repeat(32), ...sandbox.urls, ...env });
  const store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 20 });
  const vault = await Vault.open({ dataDir, envKey: config.ENCRYPTION_KEY, logger: silentLogger });
  const client = createServiceClient({ config, logger: silentLogger, clock, retries: 0 });
  const outbox = new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: silentLogger, clock });
  outbox.start();
  const notifier = createNotifier({ store, client, outbox, logger: silentLogger, clock });
  const scheduler = createScheduler({
    config, logger: silentLogger, store, client, notifier, vault, clock, random: seededRandom(20261128),
    ledgerFile: join(dataDir, 'token-ledger.json'),
  });
  const bot = createBot({ config, logger: silentLogger, store, vault, client, scheduler, clock, botInfo: botInfoOf(fake) });
  await bot.init();
  scheduler.start();
  const say = (from: FakeUser, text: string) => bot.handleUpdate(fake.sendText(from, text));
  return {
    clock, sandbox, fake, store, client, scheduler, bot,
    say,
    async twoServices(from) {
      await say(from, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
      await say(from, '/filter arbs_prematch');
      await say(from, '/filter arbs_live');
    },
    async tap(from, label) {
      type Markup = { inline_keyboard?: { text: string; callback_data?: string }[][] };
      for (const message of [...fake.messages(from.id)].reverse()) {
        const button = (message.reply_markup as Markup | undefined)?.inline_keyboard?.flat().find((b) => b.text.includes(label));
        if (button?.callback_data) return void (await bot.handleUpdate(fake.pressButton(from, message, button.callback_data)));
      }
      throw new Error(`no button "${label}" in chat ${from.id}`);
    },
    lastText: (chatId) => fake.messages(chatId).at(-1)?.text ?? '',
    async run(ms, stepMs = 5_000) {
      await runFor(clock, scheduler, ms, stepMs);
      // The outbox sends what the notifier handed it on the clock (its promises settle once sent).
      for (let i = 0; i < 50 && outbox.depth > 0; i++) await clock.advance(1_000);
    },
    async close() {
      await scheduler.stop();
      outbox.stop();
      await outbox.stopped();
      await store.close();
      await client.close();
      await sandbox.close();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
