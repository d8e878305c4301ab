/**
 * The whole bot through the real long-polling loop (`runBot`, @grammyjs/runner) against the fake
 * Bot API on 127.0.0.1, with the real sandbox, the real service client and the real store:
 * /start → /connect → /filter → /item → /status → /forget. Afterwards neither DATA_DIR nor the
 * logs hold the secret in plain text.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/bot/commands.js';
import { createBot } from '../../src/bot/bot.js';
import { runBot, type BotHandle } from '../../src/bot/run.js';
import { loadConfig } from '../../src/config.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { FakeScheduler, FakeServiceClient } from './fakes.js';
import { captureLogs } from '../support/logs.js';

const ALICE = { id: 7001, first_name: 'Alice', language_code: 'en' };

let fake: FakeTelegram;
let sandbox: Sandbox;
let dataDir: string;
let store: Store;
let client: ServiceClientWithLimits;
let handle: BotHandle;
let logs: string[];
const scheduler = new FakeScheduler();

beforeAll(async () => {
  fake = await startFakeTelegram();
  sandbox = await startSandbox();
  dataDir = await mkdtemp(join(tmpdir(), 'bot-e2e-'));
  const captured = captureLogs();
  logs = captured.lines;
  const logger = captured.logger;
  const config = loadConfig({
    BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.apiRoot,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    ...sandbox.urls,
  });
  store = await openStore({ dataDir, logger, debounceMs: 20 });
  // No ENCRYPTION_KEY: the vault generates its key file, as on a first start.
  const vault = await Vault.open({ dataDir, logger });
  client = createServiceClient({ config, logger });
  const bot = createBot({ config, logger, store, vault, client, scheduler });
  handle = await runBot(bot, { logger });
});

afterAll(async () => {
  await handle?.stop();
  await client?.close();
  await store?.close();
  await sandbox?.close();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function ask(text: string, expected: (m: SentMessage) => boolean): Promise<SentMessage> {
  const seen = Math.max(0, ...fake.messages(ALICE.id).map((m) => m.message_id));
  fake.sendText(ALICE, text);
  return fake.waitForMessage((m) => m.chat_id === ALICE.id && m.message_id > seen && expected(m), 8000);
}

describe('the bot over long polling', () => {
  it('sets the command menu in English and Russian at start and polls', () => {
    expect(fake.commands().map((c) => c.command)).toContain('filter');
    expect(fake.commands('ru').find((c) => c.command === 'forget')?.description).toContain('Удалить');
    expect(handle.isRunning()).toBe(true);
    expect(fake.calls('getMe')).toHaveLength(1);
  });

  it('runs a full flow from a fresh chat', async () => {
    const hello = await ask('/start', (m) => m.text.includes('Betting opportunity alerts'));
    expect(hello.text).toContain('/connect');

    const connected = await ask(`/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, (m) => m.text.includes('connected'));
    expect(connected.text).toContain('demo…key');
    expect(connected.text).not.toContain(sandbox.demoKey.secret);
    expect(fake.userMessages(ALICE.id).find((m) => m.text.startsWith('/connect'))?.deleted).toBe(true);
    expect(sandbox.counters().requests.token).toBe(1);

    const wrong = await ask(`/connect ${sandbox.demoKey.accessKey} not-the-secret`, (m) => m.text.includes('is wrong'));
    expect(wrong.text).toContain('Nothing was saved');
    expect(store.getUser(ALICE.id)?.key?.accessKey).toBe(sandbox.demoKey.accessKey);

    const bad = await ask('/filter arbs_prematch min_profit=5 max_profit=1', (m) => m.text.includes('reversed'));
    expect(bad.text).toContain('One line:');
    expect(sandbox.counters().requests.filter ?? 0).toBe(0);

    const saved = await ask('/filter arbs_prematch min_profit=0.5 hours=48', (m) => m.text.includes('saved'));
    expect(saved.text).toContain('Arbs · prematch');
    expect(sandbox.counters().requests.filter).toBe(1);
    expect(store.getUser(ALICE.id)?.filters.arbs_prematch?.settings).toMatchObject({ minProfit: 0.5, hoursToStart: 48 });

    const item = sandbox.currentItems('arbs_prematch')[0];
    if (item) {
      const card = await ask(`/item ${item.id} arbs_prematch`, (m) => m.text.includes(item.id) || m.text.includes('No opportunity'));
      // The by-id read (form B) answers with the full card, or the bot says it found nothing.
      expect(card.text.includes(`<code>${item.id}</code>`) || card.text.includes('No opportunity')).toBe(true);
    }

    const status = await ask('/status', (m) => m.text.includes('Key <code>demo…key</code>'));
    expect(status.text).toContain('Arbs · prematch');

    const confirm = await ask('/forget', (m) => m.text.includes('cannot be undone'));
    const yes = (confirm.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard[0]?.[0]?.callback_data ?? '';
    fake.pressButton(ALICE, confirm, yes);
    await fake.waitForMessage((m) => m.message_id === confirm.message_id && m.text.includes('is deleted'), 8000);
    expect(store.getUser(ALICE.id)).toBeUndefined();
    expect(sandbox.counters().breaches).toBe(0);
    expect(handle.lastPollAt()).toBeGreaterThan(0);
  });

  it('leaves the secret in plain text neither in DATA_DIR nor in the logs', async () => {
    await store.flush();
    const names = await readdir(dataDir);
    expect(names).toContain('encryption.key');
    for (const name of names) {
      const text = await readFile(join(dataDir, name), 'utf8');
      expect(text, name).not.toContain(sandbox.demoKey.secret);
    }
    const logText = logs.join('\n');
    expect(logText.length).toBeGreaterThan(0);
    expect(logText).not.toContain(sandbox.demoKey.secret);
    expect(logText).not.toContain('not-the-secret');
    expect(logText).not.toContain(fake.token);
  });

  it('polls for channel posts and edits, so a /connect line with a secret written there is deleted', async () => {
    const channel = { id: -1_000_000_007_009, type: 'channel' as const, title: 'News' };
    fake.setChat({ ...channel, botIsAdmin: true, adminIds: [ALICE.id] });
    const deleted = new Promise<void>((resolve) => {
      const off = fake.onActivity((e) => {
        if (e.kind === 'deleted' && e.chatId === channel.id) {
          off();
          resolve();
        }
      });
    });
    fake.sendText(ALICE, `/connect some-key ${'s'.repeat(24)}`, channel);
    await Promise.race([deleted, new Promise((_, reject) => setTimeout(() => reject(new Error('not deleted within 8 s')), 8000))]);
    expect(fake.userMessages(channel.id)[0]?.deleted).toBe(true);
  });

  it('stops cleanly', async () => {
    await handle.stop();
    expect(handle.isRunning()).toBe(false);
  });
});

describe('start-up', () => {
  it('a failing non-essential start-up call is logged, not fatal', async () => {
    const tg = await startFakeTelegram();
    const dir = await mkdtemp(join(tmpdir(), 'bot-start-'));
    const { lines, logger } = captureLogs();
    const config = loadConfig({ BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.apiRoot, DATA_DIR: dir });
    const localStore = await openStore({ dataDir: dir, logger, debounceMs: 20 });
    const vault = await Vault.open({ dataDir: dir, envKey: 'b2'.repeat(32), logger });
    const localClient = new FakeServiceClient();
    const bot = createBot({ config, logger, store: localStore, vault, client: localClient, scheduler: new FakeScheduler() });
    tg.failNext({ method: 'setMyCommands', count: 2, code: 400, description: 'Bad Request: commands are broken' });
    tg.failNext({ method: 'deleteWebhook', count: 1, code: 400 });
    const running = await runBot(bot, { logger });
    try {
      expect(lines.filter((l) => l.includes('start-up call failed'))).toHaveLength(3);
      tg.sendText(ALICE, '/help');
      const reply = await tg.waitForMessage((m) => m.chat_id === ALICE.id, 8000);
      expect(reply.text).toContain('Commands');
      // The full list, with no menu set: /help does not lean on what Telegram holds.
      expect(tg.commands()).toEqual([]);
      expect(tg.commands('ru')).toEqual([]);
      const missing = COMMANDS.filter((row) => row.group !== 'admin' && !reply.text.includes(`\n/${row.command} — `));
      expect(missing).toEqual([]);
    } finally {
      await running.stop();
      await localStore.close();
      await tg.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a wrong bot token fails the start with a clear error', async () => {
    const tg = await startFakeTelegram();
    const dir = await mkdtemp(join(tmpdir(), 'bot-start-'));
    const config = loadConfig({ BOT_TOKEN: '123456:WRONG-TOKEN-abcdefghijklmnopq', TELEGRAM_API_ROOT: tg.apiRoot, DATA_DIR: dir });
    const localStore = await openStore({ dataDir: dir, logger: captureLogs().logger, debounceMs: 20 });
    const vault = await Vault.open({ dataDir: dir, envKey: 'b2'.repeat(32), logger: captureLogs().logger });
    const bot = createBot({ config, logger: captureLogs().logger, store: localStore, vault, client: new FakeServiceClient(), scheduler: new FakeScheduler() });
    try {
      await expect(runBot(bot, { logger: captureLogs().logger })).rejects.toThrow(/401|Unauthorized/);
    } finally {
      await localStore.close();
      await tg.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
