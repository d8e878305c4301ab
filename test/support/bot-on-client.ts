/**
 * A bot (grammY, the real store and vault) on a service client the test builds — the embedded
 * client over the sandbox, or one process's shared client of a test cluster — driven update by
 * update against the fake Bot API, for tests whose subject is what the limits behind that client
 * do to a user's command.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bot } from 'grammy';
import { createBot } from '../../src/bot/bot.js';
import type { BotContext } from '../../src/bot/context.js';
import type { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { FakeTelegram } from '../../src/fake-telegram/server.js';
import type { FakeUser } from '../../src/fake-telegram/types.js';
import { silentLogger } from '../../src/logger.js';
import type { ServiceClient } from '../../src/service/client-types.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { FakeScheduler } from '../bot/fakes.js';
import { botInfoOf } from '../bot/harness.js';

export interface BotOnClient {
  bot: Bot<BotContext>;
  store: Store;
  /** A user types `text` in their private chat; resolves when the bot has handled it. */
  say(from: FakeUser, text: string): Promise<void>;
  close(): Promise<void>;
}

export async function botOnClient(opts: {
  fake: FakeTelegram;
  client: ServiceClient;
  clock: ManualClock;
  env?: Record<string, string>;
}): Promise<BotOnClient> {
  const { fake, client, clock } = opts;
  const dataDir = await mkdtemp(join(tmpdir(), 'bot-on-client-'));
  const config = loadConfig({ BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot, DATA_DIR: dataDir, ENCRYPTION_KEY: 'cd'.repeat(32), ...opts.env });
  const store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 20 });
  const vault = await Vault.open({ dataDir, envKey: config.ENCRYPTION_KEY, logger: silentLogger });
  const bot = createBot({ config, logger: silentLogger, store, vault, client, scheduler: new FakeScheduler(), clock, botInfo: botInfoOf(fake) });
  await bot.init();
  return {
    bot,
    store,
    say: (from, text) => bot.handleUpdate(fake.sendText(from, text)),
    close: async () => {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
