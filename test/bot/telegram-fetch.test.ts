/**
 * grammY on the bot's own fetch (src/bot/telegram-fetch.ts, undici's dispatcher instead of
 * node-fetch): JSON calls and their answers, Telegram's refusals as GrammyError, a multipart upload
 * (a chart, an export) whole, grammY's timeout ending a call that hangs, a refused connection as an
 * HttpError whose system code the operator's messages read, and the connection kept for the next call.
 */
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, GrammyError, HttpError, InputFile } from 'grammy';
import { createTelegramAgent, createTelegramFetch, telegramFetch } from '../../src/bot/telegram-fetch.js';
import { errnoCode } from '../../src/operator/causes.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';

describe('the Bot API over the bot’s fetch', () => {
  let fake: FakeTelegram;
  let api: Api;

  beforeAll(async () => {
    fake = await startFakeTelegram();
    api = new Api(fake.token, { apiRoot: fake.apiRoot, fetch: telegramFetch() });
  });
  afterAll(() => fake.close());

  it('sends JSON calls and reads their answers', async () => {
    const sent = await api.sendMessage(101, 'один <b>two</b>', { parse_mode: 'HTML', reply_markup: { inline_keyboard: [[{ text: 'ok', callback_data: 'x' }]] } });
    expect(sent.message_id).toBeGreaterThan(0);
    expect(fake.messages(101).map((m) => m.text)).toEqual(['один <b>two</b>']);
    const edited = await api.editMessageText(101, sent.message_id, 'three');
    expect(edited).toMatchObject({ text: 'three' });
    expect((await api.getMe()).username).toBe(fake.botUser.username);
  });

  it('gives Telegram’s refusal as a GrammyError with its code, description and retry_after', async () => {
    fake.failNext({ method: 'sendMessage', count: 1, code: 429, retryAfter: 7 });
    const err = await api.sendMessage(102, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrammyError);
    expect((err as GrammyError).error_code).toBe(429);
    expect((err as GrammyError).parameters.retry_after).toBe(7);
  });

  it('uploads a file as multipart, whole', async () => {
    const bytes = Buffer.alloc(300_000, 7);
    const doc = await api.sendDocument(103, new InputFile(bytes, 'export.csv'), { caption: 'all' });
    expect(doc.message_id).toBeGreaterThan(0);
    const call = fake.calls('sendDocument').at(-1);
    expect(call?.ok).toBe(true);
    expect(call?.payload.caption).toBe('all');
  });

  it('keeps the connection for the next calls', async () => {
    let connections = 0;
    // A proxy in front of the fake that counts the connections made to it.
    const proxy = await proxyTo(fake.port, () => (connections += 1));
    const viaProxy = new Api(fake.token, { apiRoot: `http://127.0.0.1:${proxy.port}`, fetch: createTelegramFetch(createTelegramAgent()) });
    // undici's pool may open a second connection while the first is still being marked free.
    for (let i = 0; i < 2; i++) await viaProxy.sendMessage(104, `warm ${i}`);
    const warm = connections;
    for (let i = 0; i < 10; i++) await viaProxy.sendMessage(104, `m${i}`);
    expect(warm).toBeLessThanOrEqual(2);
    expect(connections).toBe(warm);
    await proxy.close();
  });

  it('ends a call that hangs when grammY’s timeout runs out, as an HttpError', async () => {
    const silent = await silentServer();
    const slow = new Api(fake.token, { apiRoot: `http://127.0.0.1:${silent.port}`, timeoutSeconds: 0.3, fetch: createTelegramFetch(createTelegramAgent()) });
    const started = Date.now();
    const err = await slow.sendMessage(105, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await silent.close();
  });

  it('gives a refused connection as an HttpError carrying ECONNREFUSED', async () => {
    const closed = await silentServer();
    const port = closed.port;
    await closed.close();
    const nowhere = new Api(fake.token, { apiRoot: `http://127.0.0.1:${port}`, fetch: createTelegramFetch(createTelegramAgent()) });
    const err = await nowhere.getMe().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(errnoCode(err)).toBe('ECONNREFUSED');
  });
});

/** A TCP server on 127.0.0.1 that hands each connection to `onSocket`; `close` cuts the ones still open. */
async function tcpServer(onSocket: (socket: Socket, track: (s: Socket) => void) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  const server = createServer((socket) => {
    track(socket);
    onSocket(socket, track);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** A server that accepts connections and never answers. */
const silentServer = () => tcpServer(() => undefined);

/** A TCP proxy to 127.0.0.1:`target` that calls `onConnection` for each connection made to it. */
const proxyTo = (target: number, onConnection: () => void) =>
  tcpServer((client, track) => {
    onConnection();
    const upstream = connect(target, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
  });
