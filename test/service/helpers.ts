/** Shared pieces of the service client tests: a small local HTTP server, settings, a log buffer, clock stepping. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ManualClock } from '../../src/clock.js';
import type { ServiceClientOptions } from '../../src/service/client.js';
import type { AccessKeyRef } from '../../src/service/client-types.js';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface LocalServer {
  url: string;
  seen: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Replace the handler between steps of a test. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 with an ephemeral port that records every request. */
export async function startLocalServer(handler: Handler): Promise<LocalServer> {
  let current = handler;
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      void Promise.resolve(current(request, res)).catch(() => res.destroy());
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    handle: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Client settings with every host on `origin` (each service under its own base path). */
export function configFor(origin: string, overrides: Partial<ServiceClientOptions['config']> = {}): ServiceClientOptions['config'] {
  return {
    BB_AUTH_URL: `${origin}/auth`,
    BB_DICTS_URL: `${origin}/dicts`,
    BB_ARBS_PREMATCH_URL: `${origin}/arbs-prematch`,
    BB_ARBS_LIVE_URL: `${origin}/arbs-live`,
    BB_MIDDLES_PREMATCH_URL: `${origin}/middles-prematch`,
    BB_MIDDLES_LIVE_URL: `${origin}/middles-live`,
    BB_VALUEBETS_PREMATCH_URL: `${origin}/valuebets-prematch`,
    BB_VALUEBETS_LIVE_URL: `${origin}/valuebets-live`,
    BB_PATH_FORM: 'A',
    BB_ACCOUNT_PREFIX: 'bb-',
    BB_REQUEST_TIMEOUT_MS: 2_000,
    LIMIT_TOKENS_PER_HOUR: 20,
    LIMIT_FILTERS_PER_HOUR: 20,
    LIMIT_ITEMS_PER_MINUTE: 30,
    LIMIT_DICTS_PER_DAY: 24,
    LIMIT_SCOPE: 'key',
    DATA_DIR: '/nonexistent-data-dir-for-tests',
    ...overrides,
  };
}

/** An access key ref whose secret reveals are counted. */
export function keyRef(accessKey: string, secret: string): AccessKeyRef & { reveals: number } {
  const ref = {
    accessKey,
    reveals: 0,
    revealSecret() {
      ref.reveals += 1;
      return secret;
    },
  };
  return ref;
}

/**
 * Awaits `promise` while moving `clock` forward `stepMs` at a time whenever something sleeps on it
 * (and letting real I/O run in between), so backoffs and limit waits pass in real milliseconds.
 */
export async function settle<T>(
  clock: ManualClock,
  promise: Promise<T>,
  stepMs = 1_000,
  /** Holds the clock still while false (e.g. while requests are in flight). */
  canAdvance: () => boolean = () => true,
  maxSteps = 100_000,
): Promise<T> {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  watched.catch(() => undefined);
  for (let i = 0; i < maxSteps && !done; i++) {
    await new Promise((r) => setTimeout(r, 1));
    if (!done && clock.pending > 0 && canAdvance()) await clock.advance(stepMs);
  }
  return watched;
}

/** A valid items envelope (service-api.md §5) with `n` arbs on one event. */
export function arbsEnvelope(n = 1, masked = false): Record<string, unknown> {
  const items = Array.from({ length: n }, (_, i) => ({
    id: `a${i + 1}`,
    event_id: 'e1',
    value: 2.35,
    roi: 2.35,
    created: '2026-01-03 10:29:13',
    groups_ids: [1],
    odds: [
      { sub_event_id: 's1', type_id: 1, value: masked ? 0 : 2.1, prev: masked ? 0 : 2.05, index: '', updated: '2026-01-03 10:29:10', initiator: true, crumbs: {} },
      { sub_event_id: 's2', type_id: 2, value: masked ? 0 : 2.2, prev: masked ? 0 : 2.2, index: '', updated: '2026-01-03 10:29:11', initiator: false, crumbs: {} },
    ],
  }));
  return {
    filtered: n,
    masked,
    timestamp: 1767436153,
    items,
    events: [
      {
        id: 'e1',
        sport_id: 6,
        league: 'ATP',
        team_1: 'A',
        team_2: 'B',
        start: '2026-01-03 12:00',
        live: false,
        sub_events: [
          { id: 's1', bookmaker_id: 7, original_id: '123' },
          { id: 's2', bookmaker_id: 39, original_id: '456' },
        ],
      },
    ],
  };
}

/** Polls `condition` in real time (bottleneck hands jobs over on timers of its own). */
export async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}
