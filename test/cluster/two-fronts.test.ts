/**
 * Two fronts (ROLE=front) behind one webhook and one user whose updates land on either (issue 24):
 * the open questions, the guided flows and the caps are one set for both, in Redis. /connect asked
 * on front A, its key and the pasted secret answered on front B: the secret's message is deleted
 * and the key connected; a secret pasted after its question expired, on the other front, is
 * deleted; a /filter begun on A goes on on B and back on A, and two presses of it posted to both at
 * once are handled one after the other (the chat's turn); the lookup cap (10 a minute per user)
 * refuses the 11th lookup whichever front it reaches; an update Telegram posts again to the other
 * front is handled once; no secret is ever written to Redis. Built as test/cluster/roles.test.ts builds
 * its roles (the stand-in store and client, a real Redis), against the Bot API stand-in, which
 * posts each update to the front the test names.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Update } from 'grammy/types';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { PENDING_TTL_MS } from '../../src/bot/pending.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../support/ports.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { standInParts } from './stand-in-parts.js';

const SECRET = 'two-fronts-webhook-secret-0123456789';
const ALICE = { id: 5301, first_name: 'Alice', language_code: 'en' };

let redis: TestRedis;
let sandbox: Sandbox;
let telegram: FakeTelegram;
let dataDir: string;
const fronts: { app: App; to: string }[] = [];
/** REDIS_PREFIX of both fronts. */
let PREFIX = '';
/** A connection of the test's own, to watch the fronts' shared state. */
let check: Redis;
/** Added to Redis's clock in both fronts' shared-state scripts. */
let offsetMs = 0;

beforeAll(async () => {
  redis = await redisForTests('two-fronts');
  if (!redis.available) return;
  sandbox = await startSandbox({});
  telegram = await startFakeTelegram({});
  dataDir = await mkdtemp(join(tmpdir(), 'bb-two-fronts-'));
  PREFIX = `${redis.prefix}tf:`;
  check = new Redis(redis.url);
  const parts = standInParts(dataDir);
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const config = loadConfig({
      ...sandbox.urls,
      BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/tg/hook',
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      DATA_DIR: dataDir,
      HTTP_PORT: String(port),
      REDIS_URL: redis.url,
      REDIS_PREFIX: PREFIX,
      ROLE: 'front',
    });
    const app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger: silentLogger, cluster: parts, stateClockOffsetMs: () => offsetMs });
    fronts.push({ app, to: `http://127.0.0.1:${port}/tg/hook` });
  }
}, 30_000);
afterAll(async () => {
  for (const { app } of fronts) await app.stop(1_000);
  check?.disconnect();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  await telegram?.close();
  await sandbox?.close();
  await redis?.dispose();
});

const A = 0;
const B = 1;

/** Posts `update` to one front and waits for the bot's next message (or edit) in Alice's chat that `expected` accepts. */
async function on(front: number, update: () => Update, expected: (m: SentMessage) => boolean): Promise<SentMessage> {
  const stamp = (m: SentMessage) => Math.max(m.at, m.edited_at ?? 0);
  const before = new Map(telegram.messages(ALICE.id).map((m) => [m.message_id, stamp(m)]));
  expect(await telegram.postWebhook(update(), { to: fronts[front]!.to })).toBe(200);
  return telegram.waitForMessage((m) => m.chat_id === ALICE.id && before.get(m.message_id) !== stamp(m) && expected(m), 10_000);
}
const say = (front: number, text: string, expected: (m: SentMessage) => boolean) => on(front, () => telegram.sendText(ALICE, text), expected);
const press = (front: number, message: SentMessage, label: string, expected: (m: SentMessage) => boolean) =>
  on(front, () => telegram.pressButton(ALICE, message, buttonData(message, label)), expected);

/**
 * Runs a step of a flow and waits until its front has written the flow's state: the plugin writes
 * it once the step's handler returns, a moment after the prompt reaches the user.
 */
async function flowStep(step: () => Promise<SentMessage>): Promise<SentMessage> {
  const key = `${PREFIX}conv:${ALICE.id}`;
  const before = await check.get(key);
  const prompt = await step();
  await expect.poll(() => check.get(key), { timeout: 5_000, interval: 20 }).not.toBe(before);
  return prompt;
}

function buttonData(message: SentMessage, label: string): string {
  const rows = (message.reply_markup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined)?.inline_keyboard ?? [];
  const button = rows.flat().find((b) => b.text === label);
  if (button?.callback_data === undefined) throw new Error(`no button "${label}" on: ${rows.flat().map((b) => b.text).join(' | ')}`);
  return button.callback_data;
}
/** A key's content as text, whatever its type. */
async function dump(key: string): Promise<string> {
  switch (await check.type(key)) {
    case 'string':
      return (await check.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await check.hgetall(key));
    case 'zset':
      return JSON.stringify(await check.zrange(key, 0, -1, 'WITHSCORES'));
    case 'set':
      return JSON.stringify(await check.smembers(key));
    case 'list':
      return JSON.stringify(await check.lrange(key, 0, -1));
    default:
      return JSON.stringify(await check.xrange(key, '-', '+').catch(() => []));
  }
}
const sent = (text: string) => telegram.userMessages(ALICE.id).find((m) => m.text === text);

describe('two fronts, one user', () => {
  it('/connect asked on A, the key and the secret answered on B: the secret is deleted and the key connected', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await say(A, '/start', (m) => m.text.includes('/connect'));
    await say(A, '/connect', (m) => /access key/i.test(m.text));
    await say(B, sandbox.demoKey.accessKey, (m) => /secret/i.test(m.text));
    const reply = await say(B, sandbox.demoKey.secret, (m) => /connected/i.test(m.text));
    expect(reply.text).toContain('deleted');
    expect(sent(sandbox.demoKey.secret)?.deleted).toBe(true);
  }, 30_000);

  it('a secret pasted on the other front after its question expired is deleted and not used', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await say(B, '/connect', (m) => /access key/i.test(m.text));
    await say(B, sandbox.demoKey.accessKey, (m) => /secret/i.test(m.text));
    offsetMs += PENDING_TTL_MS + 60_000;
    const late = 'a-late-pasted-secret-0123456789';
    const reply = await say(A, late, (m) => /expired/i.test(m.text));
    expect(reply.text).toMatch(/deleted your message/i);
    expect(sent(late)?.deleted).toBe(true);
  }, 30_000);

  it('Redis holds neither secret, and every key of the fronts\' state expires', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const keys = await check.keys(`${PREFIX}*`);
    const state = keys.filter((k) => /^(pending|conv|cap):/.test(k.slice(PREFIX.length)));
    expect(state.length).toBeGreaterThan(0);
    for (const key of state) expect(await check.pttl(key)).toBeGreaterThan(0);
    let everything = '';
    for (const key of keys) everything += `${key} ${await dump(key)}\n`;
    expect(everything).not.toContain(sandbox.demoKey.secret);
    expect(everything).not.toContain('a-late-pasted-secret');
  });

  it('a /filter begun on A goes on on B and back on A', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const start = await flowStep(() => say(A, '/filter', (m) => m.text.includes('New filter')));
    const sports = await flowStep(() => press(B, start, 'Arbs · live', (m) => m.text.includes('Arbs · live: sports')));
    await flowStep(() => press(A, sports, 'All sports', (m) => m.text.includes('Bookmakers')));
    await say(B, '/cancel', (m) => m.text.startsWith('Stopped.'));
  }, 30_000);

  it('two presses of one flow reaching both fronts at the same moment are handled in turn: neither is lost', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await say(B, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, (m) => /connected/i.test(m.text));
    const start = await flowStep(() => say(A, '/filter', (m) => m.text.includes('New filter')));
    const sports = await flowStep(() => press(B, start, 'Arbs · live', (m) => m.text.includes('Arbs · live: sports')));
    const [football, hockey] = [buttonData(sports, 'Football'), buttonData(sports, 'Ice Hockey')];
    const posts = [
      telegram.postWebhook(telegram.pressButton(ALICE, sports, football), { to: fronts[A]!.to }),
      telegram.postWebhook(telegram.pressButton(ALICE, sports, hockey), { to: fronts[B]!.to }),
    ];
    expect(await Promise.all(posts)).toEqual([200, 200]);
    await expect.poll(() => telegram.messages(ALICE.id).find((m) => m.message_id === sports.message_id)?.text, { timeout: 10_000 }).toMatch(/Selected \(2\)/);
    await say(A, '/cancel', (m) => m.text.startsWith('Stopped.'));
  }, 30_000);

  it('the lookup cap holds across both fronts: the 11th lookup in a minute is refused on either', async (ctx) => {
    if (!redis.available) return ctx.skip();
    // Connected in one line (no open question involved), so this holds alone too.
    await say(A, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, (m) => /connected/i.test(m.text));
    for (let i = 0; i < 10; i++) {
      const reply = await say(i % 2 === 0 ? A : B, `/item no-such-item-${i} arbs_prematch`, (m) => /No opportunity|could not look now/.test(m.text));
      expect(reply.text).toContain('No opportunity');
    }
    for (const front of [A, B]) {
      const refused = await say(front, '/item no-such-item-x9 arbs_prematch', (m) => /No opportunity|could not look now/.test(m.text));
      expect(refused.text).toContain('could not look now');
    }
  }, 60_000);

  it('an update Telegram posts again to the other front is handled once', async (ctx) => {
    if (!redis.available) return ctx.skip();
    // Telegram re-sends an update whose answer it did not get; the load balancer picks the other front.
    const update = telegram.sendText(ALICE, '/help');
    const known = new Set(telegram.messages(ALICE.id).map((m) => m.message_id));
    const answers = () => telegram.messages(ALICE.id).filter((m) => !known.has(m.message_id));
    expect(await telegram.postWebhook(update, { to: fronts[A]!.to })).toBe(200);
    expect(await telegram.postWebhook(update, { to: fronts[B]!.to })).toBe(200);
    await expect.poll(() => answers().length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
    // Time for a second answer to arrive, had the other front handled it too.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(answers()).toHaveLength(1);
    expect(await check.pttl(`${PREFIX}update:${update.update_id}`)).toBeGreaterThan(0);
  }, 30_000);
});
