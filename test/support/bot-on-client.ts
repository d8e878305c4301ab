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
import { afterEach, beforeEach } from 'vitest';
import { createBot } from '../../src/bot/bot.js';
import type { BotContext } from '../../src/bot/context.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import type { FakeUser } from '../../src/fake-telegram/types.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/client-types.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { FakeScheduler } from '../bot/fakes.js';
import { botInfoOf } from '../bot/harness.js';
import { configFor } from '../service/helpers.js';

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

/** The fake Bot API, a sandbox, the embedded client on it and a bot on that client. */
export interface SandboxFront {
  fake: FakeTelegram;
  sandbox: Sandbox;
  client: ServiceClientWithLimits;
  front: BotOnClient;
  clock: ManualClock;
}

/**
 * For each test of the file: a fresh SandboxFront on a manual clock, handed to `ready`, closed after
 * the test. `env` goes to both the client's settings and the bot's.
 */
export function withSandboxFront(
  opts: { sandbox?: Omit<SandboxOptions, 'clock'>; env?: Record<string, string>; config?: Parameters<typeof configFor>[1] },
  ready: (s: SandboxFront) => void,
): void {
  let s: SandboxFront | undefined;
  beforeEach(async () => {
    const clock = new ManualClock();
    const fake = await startFakeTelegram();
    const sandbox = await startSandbox({ ...opts.sandbox, clock });
    const client = createServiceClient({ config: configFor(sandbox.origin, opts.config), logger: silentLogger, clock, random: () => 0.5 });
    const front = await botOnClient({ fake, client, clock, env: { ...sandbox.urls, ...opts.env } });
    s = { fake, sandbox, client, front, clock };
    ready(s);
  });
  afterEach(async () => {
    if (!s) return;
    await s.front.close();
    await s.client.close();
    await s.sandbox.close();
    await s.fake.close();
    s = undefined;
  });
}
