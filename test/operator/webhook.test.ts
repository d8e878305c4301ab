/**
 * Webhook mode through the Bot API stand-in: setWebhook at start with the secret and the update
 * kinds the bot handles, updates posted to the operator port answered, a wrong or missing secret
 * refused with 401, a replayed update_id not handled twice, and long polling deleting the
 * webhook again. The receiving end answers before a slow handler finishes.
 */
import { createServer } from 'node:http';
import { Api } from 'grammy';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { createWebhookReceiver } from '../../src/bot/webhook.js';
import { ALLOWED_UPDATES } from '../../src/bot/run.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { listen } from '../../src/lib/listen.js';
import { freePort } from '../support/ports.js';
import { tempDir, useStandIns } from './helpers.js';

const SECRET = 'webhook-secret-0123456789abcdef';
const ANN = { id: 5151, first_name: 'Ann', language_code: 'en' };

const standIns = useStandIns();

async function start(env: Record<string, string>, dataDir: string): Promise<App> {
  const config = loadConfig({ ...standIns.sandbox.urls, BOT_TOKEN: standIns.telegram.token, TELEGRAM_API_ROOT: standIns.telegram.apiRoot, DATA_DIR: dataDir, ...env });
  return startApp({ config: { ...config, BOT_TOKEN: standIns.telegram.token }, logger: silentLogger });
}

describe('webhook mode', () => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.stop(1_000);
  });

  it('sets the webhook, answers posted updates, refuses a wrong secret, ignores a replay, and long polling deletes it', async () => {
    const dataDir = await tempDir('bb-webhook-');
    const port = await freePort();
    app = await start(
      { TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/tg/hook', TELEGRAM_WEBHOOK_SECRET: SECRET, HTTP_PORT: String(port) },
      dataDir,
    );
    expect(standIns.telegram.webhookInfo()).toEqual({ url: 'https://bot.example.com/tg/hook', secretToken: SECRET, allowedUpdates: [...ALLOWED_UPDATES] });
    expect(standIns.telegram.calls('getUpdates')).toHaveLength(0);
    // As Telegram does, the stand-in refuses long polling while a webhook is set.
    await expect(new Api(standIns.telegram.token, { apiRoot: standIns.telegram.apiRoot }).getUpdates()).rejects.toMatchObject({ error_code: 409 });
    const to = `http://127.0.0.1:${port}/tg/hook`;

    const first = standIns.telegram.sendText(ANN, '/start');
    expect(await standIns.telegram.deliverWebhook({ to })).toEqual([200]);
    await standIns.telegram.waitForMessage((m) => m.chat_id === ANN.id, 10_000);
    const replies = () => standIns.telegram.messages(ANN.id).length;
    const afterStart = replies();

    // Anyone can post to a public URL: without the secret, nothing is handled.
    const forged = { ...standIns.telegram.sendText(ANN, '/status'), update_id: 90_001 };
    expect(await standIns.telegram.postWebhook(forged, { to, secretToken: 'not-the-secret-at-all-0000' })).toBe(401);
    expect(await standIns.telegram.postWebhook(forged, { to, secretToken: null })).toBe(401);
    expect(await standIns.telegram.postWebhook(forged, { to, secretToken: SECRET.slice(0, -1) })).toBe(401);

    // Telegram re-sends an update whose answer it lost; it must not be handled twice.
    expect(await standIns.telegram.postWebhook(first, { to })).toBe(200);
    // Not JSON, or not an update: refused without handling.
    const bad = await fetch(to, { method: 'POST', headers: { 'x-telegram-bot-api-secret-token': SECRET }, body: '{"nope":1}' });
    expect(bad.status).toBe(400);
    await new Promise((r) => setTimeout(r, 300));
    expect(replies()).toBe(afterStart);

    // /healthz and /metrics share the port.
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { checks: Record<string, boolean> };
    expect(health.checks.telegram).toBe(true);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^bot_webhook_refused_total\{reason="secret"\} 3$/m);
    expect(metrics).toMatch(/^bot_webhook_refused_total\{reason="replay"\} 1$/m);
    expect(metrics).toMatch(/^bot_webhook_refused_total\{reason="body"\} 1$/m);
    expect(metrics).not.toContain(SECRET);

    await app.stop(1_000);
    app = undefined;

    // Back to long polling: the webhook is deleted and updates arrive through getUpdates.
    app = await start({}, dataDir);
    expect(standIns.telegram.webhookInfo()).toBeUndefined();
    standIns.telegram.sendText(ANN, '/status');
    await expect.poll(() => replies(), { timeout: 10_000 }).toBeGreaterThan(afterStart);
  }, 30_000);

  it('refuses webhook settings without a secret or a port, and a non-https URL', () => {
    const base = { TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/hook' };
    expect(() => loadConfig({ ...base, HTTP_PORT: '8080' })).toThrow(/^TELEGRAM_WEBHOOK_SECRET: /);
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: SECRET })).toThrow(/^HTTP_PORT: /);
    expect(() => loadConfig({ TELEGRAM_WEBHOOK_URL: 'http://bot.example.com/hook', TELEGRAM_WEBHOOK_SECRET: SECRET, HTTP_PORT: '1' })).toThrow(
      /^TELEGRAM_WEBHOOK_URL: expected a public https:\/\/ URL/,
    );
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'short', HTTP_PORT: '1' })).toThrow(/^TELEGRAM_WEBHOOK_SECRET: /);
  });
});

describe('the webhook receiver', () => {
  it('answers Telegram at once while the update is still being handled', async () => {
    let finish: () => void = () => {};
    let started = 0;
    const receiver = createWebhookReceiver({
      secret: SECRET,
      logger: silentLogger,
      handleUpdate: () => {
        started += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
    });
    const server = createServer((req, res) => receiver.handle(req, res));
    const port = await listen(server, 0, '127.0.0.1');
    try {
      const t0 = Date.now();
      const res = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'x-telegram-bot-api-secret-token': SECRET, 'content-type': 'application/json' },
        body: JSON.stringify({ update_id: 7, message: { message_id: 1, date: 0, chat: { id: 1, type: 'private' }, text: 'hi' } }),
      });
      expect(res.status).toBe(200);
      expect(Date.now() - t0).toBeLessThan(1_000);
      await expect.poll(() => started).toBe(1);
      expect(receiver.stats().accepted).toBe(1);
      finish();
      await receiver.drain(1_000);
    } finally {
      server.close();
    }
  });
});
