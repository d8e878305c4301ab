/**
 * No secret in any log line: every error shape the bot can meet, made for real where it can be
 * (grammY over a refused socket and over a Bot API that answers 400, undici, ioredis, zod), is
 * logged in both formats, and the output may hold none of the known secrets, nor 8 characters of one.
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { Api, GrammyError, HttpError } from 'grammy';
import { Redis } from 'ioredis';
import { fetch as undiciFetch, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { createSecretRegistry, knownSecrets, scrubValue, secretsOfSettings } from '../src/log-redaction.js';
import { createLogger, type LogFormat } from '../src/logger.js';
import { listen } from '../src/lib/listen.js';
import { Vault } from '../src/store/vault.js';
import { silentLogger } from '../src/logger.js';
import { freePort } from './support/ports.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BOT_TOKEN = '7004512398:AAHq9Zr4kLmN7pQx2VbWc8TyUe5Rf6Gd3Sz';
const WEBHOOK_SECRET = 'whsec-Jq7Lm2Np9Rt4Vx8Zb3Cd';
const REDIS_PASSWORD = 'rpw-H8k3M9q2W7x5Z1c4';
const ENCRYPTION_KEY = '9f2c7a1e4b8d3f6a0c5e9b2d7f1a4c8e3b6d0f5a9c2e7b1d4f8a3c6e0b5d9f2a';
const KEY_SECRET = 'ks-Vb7Nq2Xr9Tm4Lp8Wz3Hd6Jf';
const USER_TEXT = 'PRIVATE-USER-WORDS about my bankroll';
const SECRETS = [BOT_TOKEN, WEBHOOK_SECRET, REDIS_PASSWORD, ENCRYPTION_KEY, KEY_SECRET];
const REDIS_URL = `redis://bot:${REDIS_PASSWORD}@127.0.0.1:6399/0`;

/** Each 8-character piece of each secret, and the user's text, that the output must not hold. */
function leaks(output: string): string[] {
  const found: string[] = [];
  for (const secret of SECRETS) {
    for (let i = 0; i + 8 <= secret.length; i++) {
      const piece = secret.slice(i, i + 8);
      if (output.includes(piece)) found.push(`${piece} (of ${secret.slice(0, 4)}…)`);
    }
  }
  if (output.includes('PRIVATE-USER-WORDS')) found.push('the message text');
  return found;
}

function capture(format: LogFormat) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const secrets = createSecretRegistry();
  // What main registers from the settings, and what the vault registers when it opens a secret.
  secrets.pin(...secretsOfSettings({ BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET, ENCRYPTION_KEY, REDIS_URL }));
  secrets.add(KEY_SECRET);
  return { lines, logger: createLogger('trace', stream, { format, colorize: false, secrets }) };
}

let badRequestApi: Server;
let badRequestRoot: string;
let closedPort: number;
const shapes: { name: string; value: unknown }[] = [];

beforeAll(async () => {
  closedPort = await freePort();
  badRequestApi = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }));
    });
  });
  badRequestRoot = `http://127.0.0.1:${await listen(badRequestApi, 0, '127.0.0.1')}`;

  // grammY over a refused socket: HttpError with node-fetch's FetchError (the URL with the token) under `error`.
  const refused = await new Api(BOT_TOKEN, { apiRoot: `http://127.0.0.1:${closedPort}` })
    .sendMessage(42, `${USER_TEXT} ${KEY_SECRET}`)
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(HttpError);
  expect(JSON.stringify((refused as HttpError).error, Object.getOwnPropertyNames((refused as HttpError).error))).toContain(BOT_TOKEN);
  shapes.push({ name: 'grammY HttpError', value: refused });

  // GrammyError: the call's payload, with the user's text (and a pasted secret) in it.
  const rejected = await new Api(BOT_TOKEN, { apiRoot: badRequestRoot })
    .sendMessage(42, `${USER_TEXT} ${KEY_SECRET}`, { reply_markup: { inline_keyboard: [[{ text: KEY_SECRET, callback_data: 'x' }]] } })
    .catch((e: unknown) => e);
  expect(rejected).toBeInstanceOf(GrammyError);
  shapes.push({ name: 'GrammyError', value: rejected });

  // undici: a refused token request and a failed fetch of a URL with the bot token in it.
  shapes.push({
    name: 'undici request',
    value: await undiciRequest(`http://127.0.0.1:${closedPort}/v1/access_keys/AK1/access_tokens`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${KEY_SECRET}` },
    }).catch((e: unknown) => e),
  });
  shapes.push({ name: 'undici fetch', value: await undiciFetch(`http://127.0.0.1:${closedPort}/bot${BOT_TOKEN}/getMe`).catch((e: unknown) => e) });
  const withUrl = Object.assign(new Error(`request to http://127.0.0.1:${closedPort}/bot${BOT_TOKEN}/getUpdates failed`), {
    url: `http://127.0.0.1:${closedPort}/bot${BOT_TOKEN}/getUpdates`,
    request: { headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET, Authorization: `Bearer ${KEY_SECRET}` } },
  });
  shapes.push({ name: 'error with url and headers', value: withUrl });

  // ioredis: a refused connection, and the client's options (which hold the password) logged beside it.
  const redis = new Redis(REDIS_URL.replace('6399', String(closedPort)), { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  const redisErr = await redis.connect().catch((e: unknown) => e);
  redis.disconnect();
  shapes.push({ name: 'ioredis error', value: { err: redisErr, options: redis.options, url: REDIS_URL } });
  shapes.push({ name: 'redis url in a message', value: new Error(`cannot reach ${REDIS_URL}: refused`) });

  // zod over a config holding secrets, with the input reported, and the start's ConfigError.
  const env = { BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET, ENCRYPTION_KEY, REDIS_URL, HTTP_PORT: 'not-a-port' };
  const parsed = z
    .object({ BOT_TOKEN: z.string().regex(/^nope$/), ENCRYPTION_KEY: z.number(), REDIS_URL: z.string().max(3), TELEGRAM_WEBHOOK_SECRET: z.string().max(3) })
    .safeParse(env, { reportInput: true });
  shapes.push({ name: 'ZodError', value: parsed.error });
  let configError: unknown;
  try {
    loadConfig({ ...env, LOG_LEVEL: 'loud' });
  } catch (e) {
    configError = e;
  }
  shapes.push({ name: 'ConfigError', value: configError });
  shapes.push({ name: 'env object', value: { env } });

  // Nested causes and an AggregateError around all of it.
  shapes.push({
    name: 'nested causes',
    value: new Error('outer', {
      cause: new AggregateError([refused, rejected, new Error(`inner ${KEY_SECRET}`, { cause: withUrl })], `many ${WEBHOOK_SECRET}`),
    }),
  });

  // A cycle and a huge object: bounded, and still no secret.
  const cyclic: Record<string, unknown> = { token: BOT_TOKEN, note: `pw=${REDIS_PASSWORD}` };
  cyclic.self = cyclic;
  shapes.push({ name: 'cycle', value: cyclic });
  shapes.push({ name: 'huge', value: { list: Array.from({ length: 100_000 }, (_, i) => `${i} ${KEY_SECRET}`), long: `${'x'.repeat(1_000_000)}${BOT_TOKEN}` } });
}, 20_000);

afterAll(async () => {
  await new Promise<void>((resolve) => badRequestApi.close(() => resolve()));
});

describe('no secret in any log line', () => {
  for (const format of ['json', 'pretty'] as const) {
    it(`holds none of the secrets, nor 8 characters of one, nor message texts (${format})`, () => {
      const { lines, logger } = capture(format);
      for (const { name, value } of shapes) {
        logger.error({ err: value }, `failed: ${name}`);
        logger.warn({ error: value, detail: { nested: [value] } }, name);
        if (value instanceof Error) logger.error(value);
        logger.child({ context: value }).info('child bindings');
      }
      logger.info(`plain text with https://api.telegram.org/bot${BOT_TOKEN}/getMe and ${REDIS_URL}`);
      logger.info('format args %s %o', ENCRYPTION_KEY, { secret: KEY_SECRET });
      const output = lines.join('');
      expect(output.length).toBeGreaterThan(1000);
      expect(leaks(output)).toEqual([]);
      // Still useful: the kind of failure and the method stay.
      expect(output).toContain('sendMessage');
      expect(output).toContain('ECONNREFUSED');
      expect(output).toContain('chat not found');
    });
  }

  it('keeps each line small whatever it is given', () => {
    const { lines, logger } = capture('json');
    const huge = shapes.find((s) => s.name === 'huge')!.value;
    logger.info({ huge }, 'huge');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(20_000);
    expect(lines[0]).toContain('[cut');
  });

  it('drops the texts of a Bot API payload but keeps its ids', () => {
    const rejected = shapes.find((s) => s.name === 'GrammyError')!.value;
    const copy = scrubValue(rejected, (t) => t) as { payload: Record<string, unknown> };
    expect(copy.payload.chat_id).toBe(42);
    expect(copy.payload.text).toBe('[dropped]');
    expect(copy.payload.reply_markup).toBe('[dropped]');
  });

  it('the vault registers a secret when it opens a stored one, not when it seals one the service has not accepted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'logsecrets-'));
    try {
      const vault = await Vault.open({ dataDir: dir, envKey: ENCRYPTION_KEY, logger: silentLogger });
      const fresh = `ks-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
      const binding = { userId: 7, accessKey: 'k-7' };
      const blob = vault.encrypt(fresh, binding);
      expect(knownSecrets.cut(`pasted ${fresh}`)).toBe(`pasted ${fresh}`);
      expect(vault.decrypt(blob, binding, { unproven: true })).toBe(fresh);
      expect(knownSecrets.cut(`pasted ${fresh}`)).toBe(`pasted ${fresh}`);
      expect(vault.decrypt(blob, binding)).toBe(fresh);
      expect(knownSecrets.cut(`pasted ${fresh}`)).toBe('pasted [redacted]');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
