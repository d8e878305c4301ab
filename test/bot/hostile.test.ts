/**
 * The bot against a hostile user: the real bot (createBot, the real service client over the
 * sandbox, the real store and vault) fed through the Bot API stand-in with update types it does
 * not handle, edited messages, channel posts, anonymous group admins, very long and
 * control-character input, forged callback data of every prefix, concurrent presses, inline
 * queries and secrets where they do not belong. After all of it: every input got an answer or a
 * deliberate silence, Telegram refused nothing, no secret is in any reply, log line or stored
 * file, nothing grew with the garbage, and the bot still answers.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bot } from 'grammy';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBot } from '../../src/bot/bot.js';
import { MAX_ECHO } from '../../src/bot/parse/values.js';
import type { BotContext } from '../../src/bot/context.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { startFakeTelegram, type FakeTelegram, type FakeUser, type SentMessage } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { FakeScheduler } from './fakes.js';
import { captureLogs } from '../support/logs.js';
import { botInfoOf } from './harness.js';

const ALICE: FakeUser = { id: 8101, first_name: 'Alice', language_code: 'en' };
const MALLORY: FakeUser = { id: 8666, first_name: 'Mallory', language_code: 'ru' };
const GROUP = { id: -1_000_000_008_001, type: 'supergroup' as const, title: 'Bettors' };
const CHANNEL = { id: -1_000_000_008_002, type: 'channel' as const, title: 'Signals' };

let fake: FakeTelegram;
let sandbox: Sandbox;
let dataDir: string;
let store: Store;
let client: ServiceClientWithLimits;
let bot: Bot<BotContext>;
let logs: string[];
const clock = new ManualClock();
let nextUpdateId = 900_000;

beforeAll(async () => {
  fake = await startFakeTelegram();
  sandbox = await startSandbox();
  dataDir = await mkdtemp(join(tmpdir(), 'bot-hostile-'));
  const captured = captureLogs();
  logs = captured.lines;
  const config = loadConfig({ BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot, DATA_DIR: dataDir, LOG_LEVEL: 'debug', ...sandbox.urls });
  store = await openStore({ dataDir, logger: captured.logger, clock, debounceMs: 20 });
  const vault = await Vault.open({ dataDir, logger: captured.logger });
  client = createServiceClient({ config, logger: captured.logger });
  bot = createBot({ config, logger: captured.logger, store, vault, client, scheduler: new FakeScheduler(), clock, botInfo: botInfoOf(fake) });
  await bot.init();
  fake.setChat({ id: GROUP.id, type: 'supergroup', title: GROUP.title, botIsAdmin: true, adminIds: [ALICE.id] });
  fake.setChat({ id: CHANNEL.id, type: 'channel', title: CHANNEL.title, botIsAdmin: true, adminIds: [ALICE.id] });
});

afterAll(async () => {
  await client?.close();
  await store?.close();
  await sandbox?.close();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const say = (from: FakeUser, text: string, chat?: typeof GROUP | typeof CHANNEL) => bot.handleUpdate(fake.sendText(from, text, chat));
/** An update as Telegram might send it, including kinds and fields this grammY version does not type. */
const raw = (update: Record<string, unknown>) => bot.handleUpdate({ update_id: nextUpdateId++, ...update } as unknown as Update);

async function dataFiles(): Promise<string> {
  await store.flush();
  const names = await readdir(dataDir);
  return (await Promise.all(names.map((n) => readFile(join(dataDir, n), 'utf8')))).join('\n');
}

/** Plants a bot message with one button, as if an old message carried it. */
async function planted(chatId: number, data: string): Promise<SentMessage> {
  const sent = await bot.api.sendMessage(chatId, 'old message', { reply_markup: { inline_keyboard: [[{ text: 'x', callback_data: data }]] } });
  const message = fake.messages(chatId).find((m) => m.message_id === sent.message_id);
  if (!message) throw new Error('not recorded');
  return message;
}

const botTexts = () => fake.messages().flatMap((m) => [m.text, ...m.history]);
const refusals = () => fake.calls().filter((c) => !c.ok).map((c) => `${c.method} ${c.error_code} ${JSON.stringify(c.payload).slice(0, 120)}`);

describe('the bot under hostile input', () => {
  it('connects over the sandbox first (the baseline the rest attacks)', async () => {
    await say(ALICE, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    expect(fake.messages(ALICE.id).at(-1)?.text).toContain('connected');
    await say(ALICE, '/filter arbs_prematch');
    expect(fake.messages(ALICE.id).at(-1)?.text).toContain('saved');
  });

  it('update types it does not handle, edits, channel posts and anonymous admins: deliberate silence, nothing fails', async () => {
    const before = fake.messages().length;
    const base = fake.sendText(ALICE, 'plain');
    const message = base.message!;
    const chat = message.chat;
    await bot.handleUpdate(base);
    const afterPlain = fake.messages().length;
    expect(afterPlain).toBe(before + 1); // "not sure what you mean"
    await raw({ edited_message: { ...message, text: 'edited', edit_date: 5 } });
    await raw({ poll: { id: 'p1', question: 'q', options: [], total_voter_count: 0, is_closed: false, is_anonymous: true, type: 'regular', allows_multiple_answers: false } });
    await raw({ poll_answer: { poll_id: 'p1', user: { id: ALICE.id, is_bot: false, first_name: 'A' }, option_ids: [0] } });
    await raw({ message_reaction: { chat, message_id: message.message_id, date: 1, user: { id: ALICE.id, is_bot: false, first_name: 'A' }, old_reaction: [], new_reaction: [{ type: 'emoji', emoji: '👍' }] } });
    await raw({ chosen_inline_result: { result_id: 'r', from: { id: ALICE.id, is_bot: false, first_name: 'A' }, query: 'x' } });
    await raw({ chat_join_request: { chat: { id: GROUP.id, type: 'supergroup', title: GROUP.title }, from: { id: MALLORY.id, is_bot: false, first_name: 'M' }, user_chat_id: MALLORY.id, date: 1 } });
    await say(ALICE, '/start', CHANNEL);
    await say(ALICE, 'hello channel', CHANNEL);
    const post = fake.sendText(ALICE, 'post', CHANNEL);
    await bot.handleUpdate(post);
    await raw({ edited_channel_post: { ...post.channel_post!, text: 'edited post', edit_date: 6 } });
    // An anonymous admin writes in the group as the group itself.
    const anon = fake.sendText({ id: 1087968824, first_name: 'Group', username: 'GroupAnonymousBot' }, '/filters', GROUP);
    await bot.handleUpdate({ ...anon, message: { ...anon.message!, sender_chat: { id: GROUP.id, type: 'supergroup', title: GROUP.title } } });
    await say(MALLORY, 'chatter', GROUP);
    // Only the anonymous /filters got an answer (the pointer to the private chat).
    expect(fake.messages().length - afterPlain).toBeLessThanOrEqual(1);
    expect(refusals()).toEqual([]);
  });

  it('very long and control-character input is answered in bounds, never quoted at length', async () => {
    const long = 'Ω'.repeat(4096);
    const control = '\u0000\u0007\u001b[31m\u202e\u2066\ufeff'.repeat(300);
    const inputs = [
      long,
      control,
      `/item ${long}`,
      `/event ${control}`,
      `/settings tz ${control}`,
      `/settings ${long} x`,
      `/filter ${long}`,
      `/filter arbs_prematch sports=${'9,'.repeat(1500)}1`,
      `/pause ${control}`,
      `/connect ${'k'.repeat(3000)}`,
      '/cancel',
    ];
    for (const text of inputs) {
      const count = fake.messages(ALICE.id).length;
      await say(ALICE, text);
      expect(fake.messages(ALICE.id).length, text.slice(0, 30)).toBeGreaterThan(count);
      const reply = fake.messages(ALICE.id).at(-1)?.text ?? '';
      expect(reply.length).toBeLessThanOrEqual(4096);
      // Quoted at most MAX_ECHO characters (the start, then "…"), so the user sees what was read.
      expect(reply).not.toContain('Ω'.repeat(MAX_ECHO));
      expect(reply).not.toContain('\u0000');
    }
    expect(refusals()).toEqual([]);
  });

  it('forged callback data of every prefix gets exactly one answer, and changes nothing', async () => {
    const forged = [
      '', 'x', 'a:', 'a:ev:', 'a:ev:9:x', 'a:ev:0:..', `a:stk:0:${'z'.repeat(50)}`, 'a:mute:7:e', 'a:snz:', 'a:snz:9',
      'f:', 'f:p:', 'f:p:9', 'f:q:0', 'f:dy:5', 'f:e:0 ', 'fg:', 'fg:y', 'fg:y:', 'fg:y:zzzzzzzzzz', 'fg:y:-1', 'fg:n:x',
      'cv:', 'cv:v:99', 'cv:f:__proto__', 'cv:f:constructor', 'cv:done', 'cv:s:7', 'cv:t:1e9', 'cv:p:-5', '__proto__', 'constructor',
      'll:', 'll:m:', 'll:m:0', 'll:p:9', 'll:e', 'll:e:0', 'll:m:10', 'bk:e:', 'bk:e:999999999', 'bk:v:999999999:x', 'bk:v:1:z', 'bk:v:1',
    ];
    const userBefore = JSON.stringify(store.getUser(ALICE.id));
    const answersBefore = fake.answers.callback.length;
    for (const data of forged) {
      const message = await planted(ALICE.id, data || ' ');
      await bot.handleUpdate(fake.pressButton(ALICE, message, data || ' '));
      // And the same from a stranger in the group.
      const inGroup = await planted(GROUP.id, data || ' ');
      await bot.handleUpdate(fake.pressButton(MALLORY, inGroup, data || ' '));
    }
    expect(fake.answers.callback.length - answersBefore).toBe(forged.length * 2);
    expect(JSON.stringify(store.getUser(ALICE.id))).toBe(userBefore);
    expect(store.getUser(MALLORY.id)).toBeUndefined();
    expect(refusals()).toEqual([]);
    expect(logs.join('\n')).not.toContain('update failed');
  });

  it('concurrent presses of the same buttons: each answered once, the end state consistent', async () => {
    await say(ALICE, '/filters');
    const list = fake.messages(ALICE.id).at(-1)!;
    const pause = fake.pressButton(ALICE, list, 'f:p:0');
    const presses: Promise<void>[] = [];
    for (let i = 0; i < 10; i++) presses.push(bot.handleUpdate(fake.pressButton(ALICE, list, 'f:p:0')));
    await Promise.all([bot.handleUpdate(pause), ...presses]);
    expect(store.getUser(ALICE.id)?.filters.arbs_prematch?.paused).toBe(true);
    await say(ALICE, '/forget');
    const ask = fake.messages(ALICE.id).at(-1)!;
    const no = (ask.reply_markup as { inline_keyboard: { callback_data: string }[][] }).inline_keyboard[0]![1]!.callback_data;
    await Promise.all(Array.from({ length: 8 }, () => bot.handleUpdate(fake.pressButton(ALICE, ask, no))));
    expect(store.getUser(ALICE.id)).toBeDefined();
    const calls = fake.calls('answerCallbackQuery');
    expect(new Set(calls.map((c) => c.payload.callback_query_id)).size).toBe(calls.length);
    expect(refusals()).toEqual([]);
  });

  it('inline queries with garbage are answered; a secret posted in a group is deleted', async () => {
    for (const q of ['', 'Ω'.repeat(256), '\u0000\u202e', '__proto__', '..']) {
      const before = fake.answers.inline.length;
      await bot.handleUpdate(fake.inlineQuery(ALICE, q));
      expect(fake.answers.inline.length).toBe(before + 1);
    }
    await say(MALLORY, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, GROUP);
    expect(fake.userMessages(GROUP.id).at(-1)?.deleted).toBe(true);
    expect(refusals()).toEqual([]);
  });

  it('garbage leaves nothing behind: stored state does not grow with it', async () => {
    const size = async () => (await dataFiles()).length;
    const before = await size();
    for (let i = 0; i < 150; i++) {
      await say(ALICE, `garbage ${i} ${'x'.repeat(i)}`);
      const message = await planted(ALICE.id, `f:x:${i % 10}`);
      await bot.handleUpdate(fake.pressButton(ALICE, message, `f:x:${i % 10}`));
    }
    expect(await size()).toBeLessThan(before + 2_000);
  });

  it('no secret anywhere, and the bot is alive', async () => {
    const secret = sandbox.demoKey.secret;
    expect(botTexts().join('\n')).not.toContain(secret);
    expect(logs.join('\n')).not.toContain(secret);
    expect(await dataFiles()).not.toContain(secret);
    await say(ALICE, '/start');
    expect(fake.messages(ALICE.id).at(-1)?.text).toContain('Betting opportunity alerts');
    expect(refusals()).toEqual([]);
  });
});
