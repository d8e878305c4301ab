/**
 * A fake Telegram Bot API on 127.0.0.1: the one stand-in for Telegram that the tests and the
 * playground share. grammY talks to it unchanged through `client.apiRoot`, long polling included:
 *
 *   const fake = await startFakeTelegram();
 *   const bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
 *
 * It answers `POST /bot<token>/<method>` (JSON, form-urlencoded or multipart bodies, or a query
 * string) with `{ ok: true, result }` or Telegram's error shape, records every call and message,
 * and lets a test inject failures. After setWebhook it answers getUpdates 409 as Telegram does, and
 * posts queued updates to the bot's webhook when a test asks (`deliverWebhook`, `postWebhook`). It never logs; the token appears in no error it returns.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { systemClock } from '../clock.js';
import { FakeBotApi } from './bot-api.js';
import { FloodControl, TELEGRAM_FLOOD_LIMITS } from './flood.js';
import type { ApiAnswer } from './errors.js';
import { BodyError, readPayload } from './body.js';
import type { FakeTelegram, FakeTelegramOptions, SentMessage, Update } from './types.js';
import { listen } from '../lib/listen.js';

export type * from './types.js';
export { checkTelegramHtml } from './html.js';
export { MAX_MESSAGE_LENGTH } from './validate.js';

export const DEFAULT_FAKE_TOKEN = '123456:TEST-TOKEN-abcdefghijklmnopqrstu';
export const DEFAULT_FAKE_BOT = { id: 999, username: 'bb_test_bot', first_name: 'BB Test Bot' };

const PATH = /^\/bot([^/]+)\/(?:test\/)?([A-Za-z]+)\/?$/;

/** Starts the fake Bot API; close it with `close()` (held long polls are answered first). */
export async function startFakeTelegram(opts: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = opts.token ?? DEFAULT_FAKE_TOKEN;
  const botUser = { ...(opts.botUser ?? DEFAULT_FAKE_BOT) };
  const flood = opts.floodControl
    ? new FloodControl({ ...TELEGRAM_FLOOD_LIMITS, ...(opts.floodControl === true ? {} : opts.floodControl) })
    : undefined;
  const api = new FakeBotApi(botUser, opts.clock ?? systemClock, flood);

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, { ok: false, error_code: 500, description: 'Internal Server Error' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = PATH.exec(url.pathname);
    if (!match || (req.method !== 'POST' && req.method !== 'GET')) {
      req.resume();
      return answer(res, { ok: false, error_code: 404, description: 'Not Found' });
    }
    if (match[1] !== token) {
      req.resume();
      return answer(res, { ok: false, error_code: 401, description: 'Unauthorized' });
    }
    let payload: Record<string, unknown>;
    try {
      payload = await readPayload(req, url);
    } catch (err) {
      const description = err instanceof BodyError ? err.message : 'Bad Request: the request cannot be read';
      return answer(res, { ok: false, error_code: 400, description });
    }
    // A client that goes away (grammY cancelling a long poll on stop) releases its held poll.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const outcome = await api.call(match[2] ?? '', payload, gone.signal);
    if (outcome.kind === 'drop') {
      res.destroy();
      return;
    }
    if (!res.destroyed) answer(res, outcome.answer);
  }

  const port = await listen(server, opts.port ?? 0, '127.0.0.1');

  let closed: Promise<void> | undefined;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    port,
    botUser,
    sendText: (from, text, chat) => api.sendText(from, text, chat),
    pressButton: (from, message, data) => api.pressButton(from, message, data),
    pressInlineButton: (from, inlineMessageId, data) => api.pressInlineButton(from, inlineMessageId, data),
    inlineQuery: (from, query, offset) => api.inlineQuery(from, query, offset),
    chatMember: (from, status, chat) => api.chatMember(from, status, chat),
    pushUpdate: (u) => api.pushUpdate(u),
    pendingUpdates: () => api.pendingUpdates(),
    messages: (chatId) => api.messages(chatId),
    userMessages: (chatId) => api.userMessages(chatId),
    calls: (method) => api.calls(method),
    sendTimes: (chatId) => api.sendTimes(chatId),
    answers: { callback: api.callbackAnswers, inline: api.inlineAnswers },
    commands: (lang) => api.commands(lang),
    descriptions: (lang) => api.descriptions(lang),
    waitForMessage: (pred, timeoutMs) => waitForMessage(api, pred, timeoutMs),
    flood: () => flood?.snapshot(),
    failNext: (spec) => api.failNext(spec),
    clearFaults: () => api.clearFaults(),
    setChat: (chat) => api.setChat(chat),
    migrateChat: (oldId, newId, from) => api.migrateChat(oldId, newId, from),
    onActivity: (cb) => api.onActivity(cb),
    webhookInfo: () => api.webhookState(),
    postWebhook: (update, o) => postWebhook(api, update, o),
    deliverWebhook: async (o) => {
      const statuses: number[] = [];
      for (const update of api.deliverable()) {
        const status = await postWebhook(api, update, o);
        statuses.push(status);
        if (status >= 200 && status < 300) api.delivered(update.update_id);
      }
      return statuses;
    },
    close: () => (closed ??= closeServer(server, api)),
  };
}

async function postWebhook(
  api: FakeBotApi,
  update: Update,
  opts: { to: string; secretToken?: string | null },
): Promise<number> {
  const secret = opts.secretToken === undefined ? api.webhookState()?.secretToken : opts.secretToken;
  const res = await fetch(opts.to, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret != null && { 'x-telegram-bot-api-secret-token': secret }) },
    body: JSON.stringify(update),
  });
  await res.arrayBuffer();
  return res.status;
}

function answer(res: ServerResponse, body: ApiAnswer): void {
  const status = body.ok ? 200 : body.error_code;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function waitForMessage(api: FakeBotApi, pred: (m: SentMessage) => boolean, timeoutMs = 5000): Promise<SentMessage> {
  const found = () => api.messages().find(pred);
  const now = found();
  if (now) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`fake Telegram: no matching message within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = api.onActivity((event) => {
      if (event.kind !== 'sent' && event.kind !== 'edited') return;
      const match = found();
      if (!match) return;
      clearTimeout(timer);
      stop();
      resolve(match);
    });
  });
}

async function closeServer(server: Server, api: FakeBotApi): Promise<void> {
  api.releasePolls();
  // Let the released polls' answers reach the sockets before the connections are cut.
  await new Promise((resolve) => setImmediate(resolve));
  const done = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  server.closeAllConnections();
  await done;
}
