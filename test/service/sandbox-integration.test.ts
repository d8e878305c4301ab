/**
 * The client against the sandbox over real HTTP on 127.0.0.1, on a ManualClock shared by both:
 * every endpoint in both path forms and both account prefixes, token expiry and renewal, a burst
 * of 1,000 reads inside the limits under both scopes, every fault recovered from, dictionaries
 * served from the cache after a restart, and nothing secret in the logs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientOptions, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { AccessKeyRef } from '../../src/service/client-types.js';
import { fetchDictionaries } from '../../src/service/dictionaries.js';
import { filterSettingsSchema } from '../../src/service/filter-model.js';
import { SERVICES } from '../../src/service/services.js';
import { captureLogs } from '../support/logs.js';
import { configFor, settle } from './helpers.js';

describe('client against the sandbox', () => {
  let clock: ManualClock;
  let sandbox: Sandbox | undefined;
  let clients: ServiceClientWithLimits[];
  let dataDir: string;

  beforeEach(async () => {
    clock = new ManualClock();
    clients = [];
    dataDir = await mkdtemp(join(tmpdir(), 'bb-client-it-'));
  });
  afterEach(async () => {
    for (const c of clients) await c.close();
    await sandbox?.close();
    sandbox = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(opts: SandboxOptions = {}): Promise<Sandbox> {
    sandbox = await startSandbox({ clock, seed: 7, ...opts });
    return sandbox;
  }

  function connect(
    sb: Sandbox,
    overrides: Partial<ServiceClientOptions['config']> = {},
    extra: { logger?: Logger; retries?: number } = {},
  ): ServiceClientWithLimits {
    const client = createServiceClient({
      // The sandbox serves every host under its origin at the base paths configFor uses.
      config: configFor(sb.origin, { DATA_DIR: dataDir, ...overrides }),
      logger: extra.logger ?? silentLogger,
      clock,
      random: () => 0.5,
      ...(extra.retries === undefined ? {} : { retries: extra.retries }),
    });
    clients.push(client);
    return client;
  }

  const refOf = (k: { accessKey: string; secret: string }): AccessKeyRef => ({
    accessKey: k.accessKey,
    revealSecret: () => k.secret,
  });

  for (const form of ['A', 'B'] as const) {
    for (const prefix of ['bb-', ''] as const) {
      it(`serves every endpoint of all six services in form ${form} with account prefix "${prefix}"`, async () => {
        // The sandbox accepts only this prefix, so a wrong {account} would be refused.
        const sb = await start({ accountPrefix: prefix });
        const client = connect(sb, { BB_PATH_FORM: form, BB_ACCOUNT_PREFIX: prefix });
        const key = refOf(sb.demoKey);
        for (const service of SERVICES) {
          await client.checkKey(key, service);
          await client.writeFilter(key, service, filterSettingsSchema.parse({}));
          const read = await client.readItems(key, service);
          expect(read.items.length).toBeGreaterThan(0);
          expect(read.skipped).toBe(0);
          const first = read.items[0];
          if (!first) throw new Error('no item');
          expect(first.service).toBe(service);
          expect(first.legs.every((l) => l.bookmakerId !== undefined && l.odds !== null)).toBe(true);
          const onEvent = await client.readEventItems(key, service, first.event.id);
          expect(onEvent.items.every((i) => i.event.id === first.event.id)).toBe(true);
          expect(onEvent.items.map((i) => i.id)).toContain(first.id);
          const one = await client.readItem(key, service, first.id);
          expect(one).toEqual(first);
        }
        const counters = sb.counters();
        expect(counters.requests).toMatchObject({ token: 6, filter: 6, items: 6, event_items: 6, item: 6 });
        expect(counters.status).toEqual({ '200': 30 });
        expect(counters.breaches).toBe(0);
      });
    }
  }

  it('reads dictionaries with and without a language, and an unknown id falls back', async () => {
    const sb = await start();
    const client = connect(sb);
    const ru = await client.dictionaries('ru');
    expect(ru?.bookmakers['25']).toBe('Фонбет');
    const plain = await fetchDictionaries({ config: { ...sb.urls, BB_REQUEST_TIMEOUT_MS: 2_000, LIMIT_DICTS_PER_DAY: 24, DATA_DIR: dataDir }, limits: client.limits, clock, logger: silentLogger }, undefined);
    expect(plain.bookmakers['25']).toBe('Fonbet');
    expect(Object.keys(plain.oddsTypes).length).toBeGreaterThan(5);
    expect(sb.counters().requests.dicts).toBe(2);
    expect(client.limits.budget({ kind: 'dicts' }).used).toBe(2);
  });

  it('applies the filter on the service (profit bounds) and reads masked odds as null', async () => {
    const sb = await start();
    sb.addKey({ accessKey: 'masked-key', secret: 'masked-secret-987654', masked: true });
    const client = connect(sb);
    const key = refOf(sb.demoKey);
    const all = await client.readItems(key, 'arbs_prematch');
    const profits = all.items.map((i) => i.profit ?? 0).sort((a, b) => a - b);
    const median = profits[Math.floor(profits.length / 2)] ?? 0;
    await client.writeFilter(key, 'arbs_prematch', filterSettingsSchema.parse({ minProfit: median }));
    const filtered = await client.readItems(key, 'arbs_prematch');
    expect(filtered.items.length).toBeLessThan(all.items.length);
    expect(filtered.items.every((i) => (i.profit ?? 0) >= median)).toBe(true);

    const masked = await client.readItems(refOf({ accessKey: 'masked-key', secret: 'masked-secret-987654' }), 'arbs_prematch');
    expect(masked.masked).toBe(true);
    expect(masked.items.flatMap((i) => i.legs).every((l) => l.odds === null && l.prevOdds === null)).toBe(true);
  });

  it('renews tokens before they expire on the shared clock, never meeting a 401', async () => {
    const sb = await start({ tokenTtlMs: 60_000 });
    const client = connect(sb);
    const key = refOf(sb.demoKey);
    for (let minute = 0; minute < 10; minute++) {
      await client.readItems(key, 'arbs_live');
      expect(client.hasValidToken(key.accessKey, 'arbs_live')).toBe(true);
      await clock.advance(30_000);
    }
    const counters = sb.counters();
    // 60 s tokens renewed 5 s before expiry, reads every 30 s: a new token every other read.
    expect(counters.byKeyHost['demo-key|/arbs-live|token']).toBe(5);
    expect(counters.status['401']).toBeUndefined();
    expect(client.budget(key.accessKey, 'arbs_live').tokensLeft).toBe(15);
  });

  for (const scope of ['key', 'address'] as const) {
    it(`keeps a burst of 1,000 concurrent reads for one key inside the limit (scope ${scope})`, async () => {
      const sb = await start({ limits: { scope } });
      const client = connect(sb, { LIMIT_SCOPE: scope });
      const key = refOf(sb.demoKey);
      const reads = Array.from({ length: 1_000 }, (_, i) =>
        client.readItems(key, 'arbs_live', { priority: i % 10 === 0 ? 'interactive' : 'poll' }),
      );
      // Under address scope a second user shares the host's budget.
      const other = { accessKey: 'other-key', secret: 'other-secret-5555555' };
      if (scope === 'address') sb.addKey(other);
      const otherReads = scope === 'address' ? Array.from({ length: 50 }, () => client.readItems(refOf(other), 'arbs_live')) : [];
      const started = clock.now();
      // The clock moves only while no read is in flight, so each window's length is the client's own doing.
      const inFlight = () =>
        client.limits.budget({ kind: 'items', accessKey: key.accessKey, service: 'arbs_live' }).inFlight +
        client.limits.budget({ kind: 'items', accessKey: other.accessKey, service: 'arbs_live' }).inFlight;
      const results = await settle(clock, Promise.allSettled([...reads, ...otherReads]), 1_000, () => inFlight() === 0);
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

      const counters = sb.counters();
      expect(counters.breaches).toBe(0);
      expect(counters.status['429']).toBeUndefined();
      expect(counters.byKeyHost['demo-key|/arbs-live|items']).toBe(1_000);
      const total = 1_000 + otherReads.length;
      const windows = Math.ceil(total / 30) - 1;
      const elapsed = clock.now() - started;
      // Within the limit, yet not wasting it: about one window per 30 reads (the interactive tenth is
      // capped at a fifth of each window, so its last read may land a step of the clock later).
      expect(elapsed).toBeGreaterThanOrEqual(windows * 60_000);
      expect(elapsed).toBeLessThanOrEqual(windows * 61_000 + 62_000);
    }, 120_000);
  }

  it('recovers from a 429 caused by someone else using the same key', async () => {
    const sb = await start();
    const key = refOf(sb.demoKey);
    const elsewhere = connect(sb); // another process with its own limiter
    const client = connect(sb);
    await Promise.all(Array.from({ length: 30 }, () => elsewhere.readItems(key, 'arbs_live')));
    const err = await client.readItems(key, 'arbs_live').catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate_limited', details: { status: 429 } });
    const paused = client.budget(key.accessKey, 'arbs_live').pausedForMs;
    expect(paused).toBeGreaterThan(50_000);
    const read = await settle(clock, client.readItems(key, 'arbs_live'), 1_000);
    expect(read.items.length).toBeGreaterThan(0);
    expect(sb.counters().breaches).toBe(1);
  });

  describe('faults', () => {
    const reads = async (client: ServiceClientWithLimits, key: AccessKeyRef, n: number) => {
      for (let i = 0; i < n; i++) {
        const read = await settle(clock, client.readItems(key, 'valuebets_prematch'), 250);
        expect(read.items.length).toBeGreaterThan(0);
      }
    };

    it('recovers from server errors', async () => {
      const sb = await start({ faults: { errorRate: 0.3 } });
      const client = connect(sb, {}, { retries: 5 });
      await reads(client, refOf(sb.demoKey), 10);
      expect(sb.counters().status['500']).toBeGreaterThan(0);
    });

    it('recovers from timeouts', async () => {
      const sb = await start({ faults: { timeoutRate: 0.25 } });
      const client = connect(sb, { BB_REQUEST_TIMEOUT_MS: 200 }, { retries: 5 });
      await reads(client, refOf(sb.demoKey), 8);
      expect(sb.counters().status.timeout).toBeGreaterThan(0);
    });

    it('recovers from malformed bodies', async () => {
      const sb = await start({ faults: { malformedRate: 0.4 } });
      const client = connect(sb, {}, { retries: 6 });
      await reads(client, refOf(sb.demoKey), 10);
      // A cut body still answers 200: the requests beyond one token and ten reads are the retries.
      const { requests } = sb.counters();
      expect((requests.items ?? 0) + (requests.token ?? 0)).toBeGreaterThan(11);
    });

    it('copes with latency', async () => {
      const sb = await start({ faults: { latencyMs: 40 } });
      const client = connect(sb);
      await reads(client, refOf(sb.demoKey), 3);
      expect(sb.counters().status).toEqual({ '200': 4 });
    });

    it('reports a revoked key as forbidden without retrying, and works again once restored', async () => {
      const sb = await start();
      const client = connect(sb);
      const key = refOf(sb.demoKey);
      await client.readItems(key, 'arbs_live');
      sb.setFaults({ revokedKeys: [key.accessKey] });
      await expect(client.readItems(key, 'arbs_live')).rejects.toMatchObject({ kind: 'forbidden' });
      client.forgetKey(key.accessKey);
      await expect(client.checkKey(key, 'arbs_live')).rejects.toMatchObject({ kind: 'forbidden' });
      expect(sb.counters().status['403']).toBe(2);
      sb.setFaults({});
      expect((await client.readItems(key, 'arbs_live')).items.length).toBeGreaterThan(0);
    });
  });

  it('serves dictionaries from the cache after a restart, with no request', async () => {
    const sb = await start();
    const first = connect(sb);
    await first.dictionaries('en');
    await first.dictionaries('ru');
    await first.close();
    expect(sb.counters().requests.dicts).toBe(2);

    await clock.advance(60 * 60_000);
    const restarted = connect(sb);
    expect(restarted.cachedDictionaries('en')?.sports['1']).toBeDefined();
    expect((await restarted.dictionaries('ru'))?.bookmakers['25']).toBe('Фонбет');
    expect((await restarted.dictionaries('en'))?.bookmakers['25']).toBe('Fonbet');
    expect(sb.counters().requests.dicts).toBe(2);
  });

  it('logs neither the secret nor any token, through faults, renewals and errors', async () => {
    const sb = await start({ faults: { errorRate: 0.3, malformedRate: 0.2 }, tokenTtlMs: 60_000 });
    const { logger, text } = captureLogs('trace');
    const client = connect(sb, {}, { logger, retries: 5 });
    const key = refOf(sb.demoKey);
    for (let i = 0; i < 6; i++) {
      await settle(clock, client.readItems(key, 'arbs_live'), 250);
      await clock.advance(30_000);
    }
    await settle(clock, client.dictionaries('en'), 250);
    await client.checkKey(refOf({ accessKey: 'demo-key', secret: 'a-wrong-secret-424242' }), 'arbs_live').catch(() => undefined);
    const logged = text();
    expect(logged.length).toBeGreaterThan(500);
    expect(logged).toContain('trying again');
    expect(logged).not.toContain(sb.demoKey.secret);
    expect(logged).not.toContain('a-wrong-secret-424242');
    // Sandbox tokens are 40 hex digits.
    expect(logged).not.toMatch(/[0-9a-f]{40}/);
  });
});
