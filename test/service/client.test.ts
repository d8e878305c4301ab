import { getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { filterSettingsSchema } from '../../src/service/filter-model.js';
import { retryDelayMs } from '../../src/service/retry.js';
import { AbortGroup, linkSignals } from '../../src/service/abort.js';
import { ClientClosedError } from '../../src/service/limits.js';
import { ServiceError } from '../../src/service/errors.js';
import { captureLogs } from '../support/logs.js';
import {
  arbsEnvelope,
  configFor,
  keyRef,
  sendJson,
  settle,
  startLocalServer,
  type LocalServer,
  type SeenRequest,
} from './helpers.js';

const SECRET = 'very-secret-key-000111';
const key = () => keyRef('acc1', SECRET);

describe('retryDelayMs', () => {
  const half = () => 0.5;
  it('retries server, timeout and unreadable answers with growing jittered delays', () => {
    expect(retryDelayMs(new ServiceError('server', 'x', { status: 503 }), 0, half)).toBe(500);
    expect(retryDelayMs(new ServiceError('timeout', 'x'), 1, half)).toBe(1_000);
    // The shared policy (src/lib/backoff.ts): 75%..125% of the ceiling, no longer 50%..150%.
    expect(retryDelayMs(new ServiceError('timeout', 'x'), 1, () => 0)).toBe(750);
    expect(retryDelayMs(new ServiceError('malformed', 'x', { status: 200 }), 2, () => 0.999)).toBe(2_499);
    expect(retryDelayMs(new ServiceError('server', 'x'), 10, half)).toBe(10_000);
  });

  it('does not retry refusals, local limits or long 429 pauses', () => {
    expect(retryDelayMs(new ServiceError('malformed', 'x', { status: 400 }), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('auth', 'x'), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('forbidden', 'x'), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('not_found', 'x'), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('rate_limited', 'x', { local: true, retryAfterMs: 1 }), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('rate_limited', 'x', { retryAfterMs: 60_000 }), 0, Math.random)).toBeUndefined();
    expect(retryDelayMs(new ServiceError('rate_limited', 'x', { retryAfterMs: 2_000 }), 0, Math.random)).toBe(0);
    expect(retryDelayMs(new ServiceError('rate_limited', 'x', { retryAfterMs: 2_000 }), 0, Math.random, false)).toBeUndefined();
    expect(retryDelayMs(new Error('boom'), 0, Math.random)).toBeUndefined();
  });
});

describe('client over a local server', () => {
  let server: LocalServer;
  let client: ServiceClientWithLimits | undefined;
  let clock: ManualClock;
  /** Answers for data routes, taken one per request; the last one repeats. */
  let script: ((req: SeenRequest, res: ServerResponse) => void)[];
  let dataCalls: SeenRequest[];

  beforeEach(async () => {
    clock = new ManualClock();
    dataCalls = [];
    script = [(_req, res) => sendJson(res, 200, arbsEnvelope(1))];
    server = await startLocalServer((req, res) => {
      if (req.path.startsWith('/auth/')) return sendJson(res, 200, { token: 'tok-abc', expires_in: 300 });
      dataCalls.push(req);
      const step = script.length > 1 ? script.shift() : script[0];
      step?.(req, res);
    });
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await server.close();
  });

  const make = (overrides: Parameters<typeof configFor>[1] = {}, logger = silentLogger) => {
    client = createServiceClient({
      config: configFor(server.url, { BB_REQUEST_TIMEOUT_MS: 300, ...overrides }),
      logger,
      clock,
      random: () => 0.5,
    });
    return client;
  };

  it('writes the filter in form A as the service names it', async () => {
    const c = make();
    const filter = filterSettingsSchema.parse({ sports: [6], minProfit: 1, minOdds: 1.5 });
    await c.writeFilter(key(), 'arbs_prematch', filter);
    expect(dataCalls[0]).toMatchObject({ method: 'POST', path: '/arbs-prematch/filters/bb-acc1' });
    expect(JSON.parse(dataCalls[0]?.body ?? '')).toEqual({
      min: 1,
      sports: [6],
      coeffs_ranges: [{ min: 1.5, max: null }],
      sort: 'percent',
    });
    expect(c.limits.budget({ kind: 'filters', accessKey: 'acc1', service: 'arbs_prematch' }).used).toBe(1);
  });

  it('refuses invalid filter settings before sending anything', async () => {
    const c = make();
    const bad = { ...filterSettingsSchema.parse({}), minProfit: Number.NaN };
    await expect(c.writeFilter(key(), 'arbs_live', bad)).rejects.toMatchObject({ kind: 'malformed' });
    expect(server.seen).toHaveLength(0);
  });

  it('reads in form B with GET, and per event and by id', async () => {
    const c = make({ BB_PATH_FORM: 'B', BB_ACCOUNT_PREFIX: '' });
    await c.writeFilter(key(), 'middles_live', filterSettingsSchema.parse({}));
    await c.readItems(key(), 'middles_live');
    await c.readEventItems(key(), 'middles_live', 'e1');
    const item = await c.readItem(key(), 'middles_live', 'a1');
    expect(item).toMatchObject({ id: 'a1', kind: 'middles' });
    expect(dataCalls.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /middles-live/v1/users/acc1/filter',
      'GET /middles-live/v1/users/acc1/filter/items',
      'GET /middles-live/v1/users/acc1/filter/events/e1/items',
      'GET /middles-live/v1/users/acc1/items/a1',
    ]);
    expect(c.budget('acc1', 'middles_live').readsLeft).toBe(27);
  });

  it('retries a 5xx and a timeout, then succeeds, each try passing the limiter again', async () => {
    const c = make();
    script = [
      (_r, res) => sendJson(res, 503, { error: 'down' }),
      () => undefined, // never answers: the 300 ms timeout
      (_r, res) => sendJson(res, 200, arbsEnvelope(2)),
    ];
    const read = await settle(clock, c.readItems(key(), 'arbs_live'), 100);
    expect(read.items.map((i) => i.id)).toEqual(['a1', 'a2']);
    expect(dataCalls).toHaveLength(3);
    expect(c.limits.budget({ kind: 'items', accessKey: 'acc1', service: 'arbs_live' }).used).toBe(3);
  });

  it('retries an unreadable answer, and says malformed when every try was unreadable', async () => {
    const c = make();
    script = [
      (_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"items": [');
      },
    ];
    const err = await settle(clock, c.readItems(key(), 'arbs_live'), 100).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'malformed' });
    expect((err as Error).message).toBe('arbs_live items read: the answer was not JSON');
    expect(dataCalls).toHaveLength(3);
  });

  it('does not retry a 403 or a 404', async () => {
    const c = make();
    script = [(_r, res) => sendJson(res, 403, { error: 'no subscription' })];
    await expect(c.readItems(key(), 'arbs_live')).rejects.toMatchObject({ kind: 'forbidden', details: { status: 403 } });
    script = [(_r, res) => sendJson(res, 404, { error: 'no route' })];
    await expect(c.readItem(key(), 'arbs_live', 'x1')).rejects.toMatchObject({ kind: 'not_found' });
    expect(dataCalls).toHaveLength(2);
  });

  it('on a 429 pauses the scope for Retry-After and tries again after it, when short', async () => {
    const c = make();
    script = [
      (_r, res) => sendJson(res, 429, { error: 'slow' }, { 'retry-after': '3' }),
      (_r, res) => sendJson(res, 200, arbsEnvelope(1)),
    ];
    const started = clock.now();
    const read = await settle(clock, c.readItems(key(), 'arbs_live'), 500);
    expect(read.items).toHaveLength(1);
    expect(dataCalls).toHaveLength(2);
    expect(clock.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  it('on a 429 with a long Retry-After gives up at once and keeps the scope paused', async () => {
    const c = make();
    script = [(_r, res) => sendJson(res, 429, { error: 'slow' }, { 'retry-after': '40' })];
    const err = await c.readItems(key(), 'arbs_live').catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate_limited', details: { status: 429, retryAfterMs: 40_000 } });
    expect(c.budget('acc1', 'arbs_live').pausedForMs).toBe(40_000);
    const local = await c.readItems(key(), 'arbs_live', { wait: false }).catch((e: unknown) => e);
    expect(local).toMatchObject({ kind: 'rate_limited', details: { local: true, retryAfterMs: 40_000 } });
    expect(dataCalls).toHaveLength(1);
  });

  it('a 429 without Retry-After backs off before the next try', async () => {
    const c = make();
    script = [(_r, res) => sendJson(res, 429, {}), (_r, res) => sendJson(res, 200, arbsEnvelope(1))];
    const started = clock.now();
    await settle(clock, c.readItems(key(), 'arbs_live'), 250);
    expect(dataCalls).toHaveLength(2);
    expect(clock.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it('never logs the secret or the token, even at trace level', async () => {
    const { logger, text } = captureLogs('trace');
    const c = make({}, logger);
    script = [(_r, res) => sendJson(res, 503, {}), (_r, res) => sendJson(res, 200, arbsEnvelope(1))];
    await settle(clock, c.readItems(key(), 'arbs_live'), 100);
    await c.checkKey(key(), 'arbs_live');
    const logged = text();
    expect(logged).toContain('service call failed; trying again');
    expect(logged).toContain('token obtained');
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('tok-abc');
    expect(logged).not.toContain('acc1'); // only a short tag of the key
  });

  it('a caller abort stops the call without a service error', async () => {
    const c = make();
    script = [() => undefined];
    const ctl = new AbortController();
    const pending = c.readItems(key(), 'arbs_live', { signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('user left')), 50);
    await expect(pending).rejects.toThrow('user left');
  });
});

describe('closing the client', () => {
  it('ends calls waiting for the limits or in flight at once with ClientClosedError', async () => {
    const server = await startLocalServer((req, res) => {
      if (req.path.startsWith('/auth/')) return sendJson(res, 200, { token: 't', expires_in: 300 });
      // data calls never answer
    });
    const clock = new ManualClock();
    const client = createServiceClient({
      config: configFor(server.url, { LIMIT_ITEMS_PER_MINUTE: 1, BB_REQUEST_TIMEOUT_MS: 10_000 }),
      logger: silentLogger,
      clock,
    });
    const inFlight = client.readItems(key(), 'arbs_live').catch((e: unknown) => e);
    const waiting = client.readItems(key(), 'arbs_live').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await client.close();
    expect(await inFlight).toBeInstanceOf(ClientClosedError);
    expect(await waiting).toBeInstanceOf(ClientClosedError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(clock.pending).toBe(0);
    await client.close(); // a second close is harmless
    await server.close();
  });
});

describe('linkSignals', () => {
  it('aborts with the first source and lets go of the sources when disposed', async () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkSignals(a.signal, undefined, b.signal);
    b.abort(new Error('b'));
    expect(link.signal.aborted).toBe(true);
    expect((link.signal.reason as Error).message).toBe('b');
    a.abort(new Error('a'));
    expect((link.signal.reason as Error).message).toBe('b');

    const c = new AbortController();
    const quiet = linkSignals(c.signal);
    quiet.dispose();
    c.abort();
    expect(quiet.signal.aborted).toBe(false);
    expect(linkSignals(c.signal).signal.aborted).toBe(true);
  });
});

describe('AbortGroup', () => {
  it("ends every joined call at once, follows each caller's own signal, and keeps nothing once disposed", () => {
    const group = new AbortGroup();
    const caller = new AbortController();
    const first = group.join(caller.signal);
    const second = group.join(undefined);
    expect(group.size).toBe(2);

    caller.abort(new Error('caller left'));
    expect((first.signal.reason as Error).message).toBe('caller left');
    expect(second.signal.aborted).toBe(false);
    expect(group.size).toBe(1);

    const done = group.join(undefined);
    done.dispose();
    expect(group.size).toBe(1);

    group.abort(new Error('closed'));
    expect((second.signal.reason as Error).message).toBe('closed');
    expect(done.signal.aborted).toBe(false);
    expect(group.size).toBe(0);
    expect((group.join(undefined).signal.reason as Error).message).toBe('closed');
    const late = new AbortController();
    late.abort(new Error('already gone'));
    expect(group.size).toBe(0);
    expect((new AbortGroup().join(late.signal).signal.reason as Error).message).toBe('already gone');
  });

  it('listens once on a signal many calls share, gives them one signal, and ends the calls still joined when it aborts', () => {
    const group = new AbortGroup();
    const run = new AbortController();
    const calls = Array.from({ length: 50 }, () => group.join(run.signal));
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    // One controller for the run's calls, not one per call (a read's own controller was a share of its CPU).
    expect(new Set(calls.map((c) => c.signal)).size).toBe(1);
    for (const call of calls.slice(0, 20)) call.dispose();
    calls[0]!.dispose();
    expect(group.size).toBe(30);
    run.abort(new Error('stopping'));
    expect(calls.slice(20).every((c) => (c.signal.reason as Error).message === 'stopping')).toBe(true);
    expect(group.size).toBe(0);
    // A call disposed after the abort counts nothing back.
    calls[30]!.dispose();
    expect(group.size).toBe(0);
    expect((group.join(run.signal).signal.reason as Error).message).toBe('stopping');
  });

  it("ends a caller's shared signal when the group aborts while one of its calls is joined, and not after they are all over", () => {
    const group = new AbortGroup();
    const quiet = new AbortController();
    const busy = new AbortController();
    const over = group.join(quiet.signal);
    over.dispose();
    const running = group.join(busy.signal);
    expect(group.size).toBe(1);
    group.abort(new Error('closed'));
    expect((running.signal.reason as Error).message).toBe('closed');
    expect(over.signal.aborted).toBe(false);
    expect(group.size).toBe(0);
    expect((group.join(quiet.signal).signal.reason as Error).message).toBe('closed');
  });
});
