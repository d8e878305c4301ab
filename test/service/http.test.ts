import { getEventListeners } from 'node:events';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/service/errors.js';
import {
  CONNECTIONS_PER_HOST,
  createServiceAgent,
  kindForStatus,
  MAX_RESPONSE_BYTES,
  parseRetryAfter,
  requireJson,
  sendRequest,
  type HttpRequest,
} from '../../src/service/http.js';
import { sendJson, startLocalServer, type LocalServer } from './helpers.js';

const NOW = Date.UTC(2026, 0, 3, 10, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates relative to now', () => {
    expect(parseRetryAfter('30', NOW)).toBe(30_000);
    expect(parseRetryAfter(' 1.5 ', NOW)).toBe(1_500);
    expect(parseRetryAfter('Sat, 03 Jan 2026 10:00:42 GMT', NOW)).toBe(42_000);
    expect(parseRetryAfter('Sat, 03 Jan 2026 09:00:00 GMT', NOW)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('12abc', NOW)).toBeUndefined();
  });
});

describe('kindForStatus', () => {
  it('maps statuses onto the taxonomy', () => {
    expect([401, 403, 429, 404, 405, 410, 500, 502, 503, 504, 408, 400, 422].map(kindForStatus)).toEqual([
      'auth',
      'forbidden',
      'rate_limited',
      'not_found',
      'not_found',
      'not_found',
      'server',
      'server',
      'server',
      'timeout',
      'timeout',
      'malformed',
      'malformed',
    ]);
  });
});

let endlessSent = 0;

describe('sendRequest over real HTTP', () => {
  let server: LocalServer;
  const base = (path: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({
    method: 'GET',
    url: `${server.url}${path}`,
    what: 'test call',
    timeoutMs: 2_000,
    now: () => NOW,
    ...extra,
  });

  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      const [path] = req.path.split('?');
      switch (path) {
        case '/ok':
          return sendJson(res, 200, { echo: req.body === '' ? null : (JSON.parse(req.body) as unknown), ct: req.headers['content-type'] ?? null });
        case '/text':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return void res.end('plain words');
        case '/cut':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end('{"items": [');
        case '/429':
          return sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '7' });
        case '/429date':
          return sendJson(res, 429, {}, { 'retry-after': 'Sat, 03 Jan 2026 10:01:00 GMT' });
        case '/503':
          return sendJson(res, 503, { error: 'down' });
        case '/bom':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')]));
        case '/big':
          // Written in pieces, so the body reaches the client in several chunks.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"items":[');
          for (let i = 0; i < 2_000; i++) res.write(`${i === 0 ? '' : ','}{"id":"item-${i}","league":"Лига ${i}","value":${i}.5}`);
          return void res.end(']}');
        case '/endless': {
          // A host that streams without end: the client must stop reading at the cap.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"items":[');
          const piece = `${'{"id":"x"},'.repeat(1000)}`;
          let sent = 0;
          const more = () => {
            while (!res.destroyed && sent < 64 * 1024 * 1024) {
              sent += piece.length;
              if (!res.write(piece)) return void res.once('drain', more);
            }
            res.end(']}');
          };
          res.on('close', () => (endlessSent = sent));
          return more();
        }
        case '/hang':
          return; // never answers
        case '/stall':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.write('{"items": ['); // starts, then never finishes
        default:
          return sendJson(res, 404, { error: 'no' });
      }
    });
  });
  afterAll(() => server.close());

  it('stops reading an answer past the size cap (8 MB by default) and says so', async () => {
    const err = await failure(base('/endless', { maxBytes: 256 * 1024 }));
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/^test call: the answer was larger than/);
    // The server saw the connection closed long before it had written all it meant to.
    await new Promise((r) => setTimeout(r, 100));
    expect(endlessSent).toBeLessThan(16 * 1024 * 1024);
    expect(MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024);
    // Below the cap, an answer of several chunks is read whole.
    expect((await sendRequest(base('/big', { maxBytes: 1024 * 1024 }))).bodyIsJson).toBe(true);
  });

  async function failure(req: HttpRequest): Promise<ServiceError> {
    const err = await sendRequest(req).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }

  it('sends JSON and parses JSON', async () => {
    const res = await sendRequest(base('/ok', { method: 'POST', json: { a: 1 } }));
    expect(res).toEqual({ status: 200, body: { echo: { a: 1 }, ct: 'application/json' }, bodyIsJson: true });
  });

  it('keeps a non-JSON body as text and requireJson turns it into malformed', async () => {
    const res = await sendRequest(base('/text'));
    expect(res).toMatchObject({ bodyIsJson: false, body: 'plain words' });
    expect(() => requireJson(res, 'test call')).toThrow(/not JSON/);
    const cut = await sendRequest(base('/cut'));
    expect(() => requireJson(cut, 'test call')).toThrowError(expect.objectContaining({ kind: 'malformed' }) as Error);
  });

  it('reads Retry-After on 429, in seconds or as a date', async () => {
    const secs = await failure(base('/429'));
    expect(secs).toMatchObject({ kind: 'rate_limited', details: { status: 429, retryAfterMs: 7_000 } });
    const date = await failure(base('/429date'));
    expect(date.details.retryAfterMs).toBe(60_000);
  });

  it('maps 5xx and 404 and words the message without the URL', async () => {
    const err = await failure(base('/503?secret=hunter2'));
    expect(err.kind).toBe('server');
    expect(err.message).toBe('test call: the service had an internal problem (HTTP 503)');
    expect((await failure(base('/nope'))).kind).toBe('not_found');
  });

  it.each([
    ['a request that never answers', '/hang', 1_500],
    ['an answer that stops in the middle', '/stall', 2_500],
  ])('times out %s', async (_what, path, withinMs) => {
    const started = Date.now();
    const err = await failure(base(path, { timeoutMs: 200 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('test call: no answer within 200 ms');
    expect(Date.now() - started).toBeLessThan(withinMs);
  });

  it('reports a refused connection as timeout (connection failed)', async () => {
    const err = await failure({ ...base('/ok'), url: 'http://127.0.0.1:1/ok' });
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/^test call: the connection failed \(ECONNREFUSED\)$/);
  });

  it('reads a body that arrives in many chunks whole, and drops a UTF-8 byte-order mark', async () => {
    const big = await sendRequest(base('/big'));
    const items = (big.body as { items: { id: string; league: string; value: number }[] }).items;
    expect(items).toHaveLength(2_000);
    expect(items[1_999]).toEqual({ id: 'item-1999', league: 'Лига 1999', value: 1999.5 });
    expect(await sendRequest(base('/bom'))).toEqual({ status: 200, body: { a: 'é' }, bodyIsJson: true });
  });

  it('gives up a request still waiting for a connection as soon as the caller aborts, and the connection serves the next one', async () => {
    const agent = new Agent({ connections: 1 });
    try {
      const first = sendRequest(base('/hang', { timeoutMs: 1_000, dispatcher: agent }));
      const ctl = new AbortController();
      // Queued behind the first: the only connection is taken.
      const queued = sendRequest(base('/ok', { signal: ctl.signal, dispatcher: agent }));
      const reason = new Error('user went away');
      const started = Date.now();
      setTimeout(() => ctl.abort(reason), 20);
      await expect(queued).rejects.toBe(reason);
      expect(Date.now() - started).toBeLessThan(500);
      await expect(first).rejects.toMatchObject({ kind: 'timeout' });
      expect(await sendRequest(base('/ok', { dispatcher: agent }))).toMatchObject({ status: 200 });
    } finally {
      await agent.close();
    }
  });

  it('puts one listener on a signal however many requests wait on it, and its abort still ends each of them', async () => {
    const ctl = new AbortController();
    const pending = Array.from({ length: 20 }, () => sendRequest(base('/hang', { signal: ctl.signal, timeoutMs: 5_000 })));
    const done = sendRequest(base('/ok', { signal: ctl.signal }));
    await done;
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    const reason = new Error('shutting down');
    ctl.abort(reason);
    for (const p of pending) await expect(p).rejects.toBe(reason);
  });

  it("rethrows the caller's abort reason as is", async () => {
    const ctl = new AbortController();
    const pending = sendRequest(base('/hang', { signal: ctl.signal }));
    const reason = new Error('user went away');
    setTimeout(() => ctl.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('createServiceAgent', () => {
  it('keeps at most CONNECTIONS_PER_HOST connections to a host and reuses them: a burst queues instead of opening more', async () => {
    // Each answer held a moment, so the whole burst is in flight at once.
    const server = await startLocalServer((_req, res) => void setTimeout(() => sendJson(res, 200, { ok: true }), 30));
    const url = `${server.url}/`;
    const agent = createServiceAgent();
    try {
      const burst = () =>
        Promise.all(
          Array.from({ length: CONNECTIONS_PER_HOST * 2 }, () =>
            sendRequest({ method: 'GET', url, what: 'burst read', timeoutMs: 5_000, now: () => NOW, dispatcher: agent }),
          ),
        );
      const first = await burst();
      expect(first.every((r) => r.status === 200)).toBe(true);
      expect(server.connections()).toBe(CONNECTIONS_PER_HOST);
      await burst();
      expect(server.connections()).toBe(CONNECTIONS_PER_HOST);
    } finally {
      await agent.close();
      await server.close();
    }
  });
});
