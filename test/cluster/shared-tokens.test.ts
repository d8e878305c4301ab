/**
 * The shared token cache (src/cluster/shared-tokens.ts) on a real Redis against the sandbox, each
 * "process" a cache on its own connection around its own in-process TokenManager: one token
 * request however many processes ask at once, grants sealed in Redis (never the token or a key in
 * plain text, not movable to another key), read back by a process with a skewed clock, refused and
 * forgotten tokens deleted without touching a newer one, a dead lock holder, a caller that will not
 * wait, and a process with another ENCRYPTION_KEY. Also the vault's key derivation they rest on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SharedTokenCache, TOKEN_KEY_PURPOSE } from '../../src/cluster/shared-tokens.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createLimits } from '../../src/service/limits.js';
import { TokenManager } from '../../src/service/tokens.js';
import { Vault } from '../../src/store/vault.js';
import { configFor } from '../service/helpers.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { CLUSTER_KEY, refOf } from './shared-fixtures.js';

let redis: TestRedis;
let dir: string;
let vault: Vault;
beforeAll(async () => {
  redis = await redisForTests('shared-tokens');
  dir = await mkdtemp(join(tmpdir(), 'bb-shared-tokens-'));
  vault = await Vault.open({ dataDir: dir, envKey: CLUSTER_KEY, logger: silentLogger });
});
afterAll(async () => {
  await redis.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('Vault.deriveKey', () => {
  it('gives every process with the same ENCRYPTION_KEY the same key per purpose, and nothing else the same key', async () => {
    const other = await Vault.open({ dataDir: dir, envKey: CLUSTER_KEY, logger: silentLogger });
    const foreign = await Vault.open({ dataDir: dir, envKey: 'cd'.repeat(32), logger: silentLogger });
    const hex = (v: Vault, purpose: string) => v.deriveKey(purpose).export().toString('hex');
    expect(hex(vault, TOKEN_KEY_PURPOSE)).toBe(hex(other, TOKEN_KEY_PURPOSE));
    expect(hex(vault, TOKEN_KEY_PURPOSE)).toHaveLength(64);
    expect(hex(vault, TOKEN_KEY_PURPOSE)).not.toBe(hex(vault, 'another purpose'));
    expect(hex(vault, TOKEN_KEY_PURPOSE)).not.toBe(hex(foreign, TOKEN_KEY_PURPOSE));
    expect(hex(vault, TOKEN_KEY_PURPOSE)).not.toBe(CLUSTER_KEY);
  });
});

describe('tokens shared by processes through Redis', () => {
  let clock: ManualClock;
  let sandbox: Sandbox;
  let conns: Redis[];
  let prefix: string;
  let run = 0;

  beforeEach(async () => {
    clock = new ManualClock();
    sandbox = await startSandbox({ clock, seed: 5 });
    conns = [];
    prefix = `${redis.prefix}${++run}:`;
  });
  afterEach(async () => {
    for (const c of conns) c.disconnect();
    await sandbox.close();
  });

  const connect = async () => {
    const c = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await c.connect();
    conns.push(c);
    return c;
  };

  /** One process's cache: its own connection, limits and manager; the same Redis and, by default, the same ENCRYPTION_KEY. */
  const process = async (opts: { clock?: ManualClock; from?: Vault; busyWaitMs?: number } = {}) => {
    const own = opts.clock ?? clock;
    const config = configFor(sandbox.origin);
    const limits = createLimits({ config, clock: own });
    const manager = new TokenManager({ config, limits, clock: own, logger: silentLogger });
    return new SharedTokenCache({
      redis: await connect(),
      prefix,
      key: (opts.from ?? vault).deriveKey(TOKEN_KEY_PURPOSE),
      manager,
      clock: own,
      logger: silentLogger,
      // Redis's clock follows the test's clock, whatever this process's own clock says.
      clockOffsetMs: () => clock.now() - Date.now(),
      pollMs: 20,
      ...(opts.busyWaitMs === undefined ? {} : { busyWaitMs: opts.busyWaitMs }),
    });
  };

  const tokenRequests = () => sandbox.counters().requests['token'] ?? 0;
  const stored = async () => {
    const c = conns[0] ?? (await connect());
    const keys = await c.keys(`${prefix}*`);
    return Promise.all(keys.map(async (k) => ({ key: k, type: await c.type(k), value: (await c.type(k)) === 'string' ? await c.get(k) : null, pttl: await c.pttl(k) })));
  };
  const grantKeys = async () => (await stored()).filter((s) => /:(arbs|middles|valuebets)_\w+$/.test(s.key));

  it('sends one token request however many processes ask at once', async () => {
    sandbox.setFaults({ latencyMs: 150 });
    const caches = await Promise.all([process(), process(), process()]);
    const key = refOf(sandbox.demoKey);
    const tokens = await Promise.all(caches.flatMap((c) => [c.token(key, 'arbs_live'), c.token(key, 'arbs_live'), c.token(key, 'arbs_live', { wait: false })]));
    expect(new Set(tokens).size).toBe(1);
    expect(tokenRequests()).toBe(1);
    // And later callers use it without asking Redis or the service again.
    for (const c of caches) expect(c.valid(key.accessKey, 'arbs_live')?.token).toBe(tokens[0]);
  });

  it('keeps grants sealed: neither the token nor a key in plain text, due to expire when the token is due for renewal', async () => {
    const cache = await process();
    const key = refOf(sandbox.demoKey);
    const token = await cache.token(key, 'arbs_live');
    const entries = await stored();
    const [grant] = await grantKeys();
    expect(grant?.value).toMatch(/^\d+\|t1:[\w-]+:[\w-]+:[\w-]+$/);
    // The sandbox's 5-minute token is renewed 5 s before it expires.
    expect(grant?.pttl).toBeGreaterThan(285_000);
    expect(grant?.pttl).toBeLessThanOrEqual(295_000);
    const everything = JSON.stringify(entries);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(CLUSTER_KEY);
    expect(everything).not.toContain(vault.deriveKey(TOKEN_KEY_PURPOSE).export().toString('hex'));
    expect(everything).not.toContain(Buffer.from(token).toString('base64url'));
    expect(everything).not.toContain(key.accessKey);
    expect(entries.every((e) => e.key.startsWith(prefix))).toBe(true);
  });

  it('serves the grant to a process whose clock is an hour off, with its times on that clock', async () => {
    const key = refOf(sandbox.demoKey);
    const token = await (await process()).token(key, 'arbs_live');
    await clock.advance(60_000);
    const ahead = new ManualClock(clock.now() + 3_600_000);
    const skewed = await process({ clock: ahead });
    expect(await skewed.token(key, 'arbs_live')).toBe(token);
    expect(tokenRequests()).toBe(1);
    // Received a minute ago (on Redis's clock): four minutes left, on the skewed clock too (to the
    // few ms between this clock and Redis's reading of it).
    expect(skewed.expiresInMs(key.accessKey, 'arbs_live')).toBeGreaterThan(239_900);
    expect(skewed.expiresInMs(key.accessKey, 'arbs_live')).toBeLessThanOrEqual(240_100);
    expect(skewed.valid(key.accessKey, 'arbs_live')?.renewAt).toBeGreaterThan(ahead.now() + 234_000);
    // Once due for renewal on Redis's clock, the grant is not served any more: one new request.
    await clock.advance(235_100);
    await ahead.advance(235_100);
    const renewed = await (await process()).token(key, 'arbs_live');
    expect(renewed).not.toBe(token);
    expect(tokenRequests()).toBe(2);
  });

  it('drops a refused token in Redis, but never a newer one another process stored since', async () => {
    const key = refOf(sandbox.demoKey);
    const [a, b] = [await process(), await process()];
    const first = await a.token(key, 'arbs_live');
    expect(await b.token(key, 'arbs_live')).toBe(first);
    a.refused(key.accessKey, 'arbs_live', first);
    expect(a.valid(key.accessKey, 'arbs_live')).toBeUndefined();
    // The drop has reached Redis when the next command on that connection answers.
    const second = await a.token(key, 'arbs_live');
    expect(second).not.toBe(first);
    expect(tokenRequests()).toBe(2);
    // b is told of the 401 late, for the old token: the new one stays in Redis.
    b.refused(key.accessKey, 'arbs_live', first);
    expect(await (await process()).token(key, 'arbs_live')).toBe(second);
    expect(tokenRequests()).toBe(2);
  });

  it('forgets a key everywhere, and a request in flight elsewhere does not bring its grant back', async () => {
    const key = refOf(sandbox.demoKey);
    const [a, b] = [await process(), await process()];
    await a.token(key, 'arbs_live');
    await a.token(key, 'valuebets_prematch');
    expect(await grantKeys()).toHaveLength(2);
    sandbox.setFaults({ latencyMs: 200 });
    const inFlight = b.token(key, 'arbs_prematch');
    await new Promise((r) => setTimeout(r, 50));
    a.forget(key.accessKey);
    expect(a.valid(key.accessKey, 'arbs_live')).toBeUndefined();
    await inFlight;
    expect(await grantKeys()).toEqual([]);
  });

  it('takes over from a holder that died: its lock lapses and one request follows', async () => {
    const key = refOf(sandbox.demoKey);
    const cache = await process();
    // A holder that locked (arbs_live) and then died: its lock lives 300 ms more.
    const [probe] = await Promise.all([process(), cache]);
    await probe.token(key, 'arbs_prematch');
    const [prematch] = await grantKeys();
    const lock = `${prematch!.key.replace(/arbs_prematch$/, 'arbs_live')}:lock`;
    await conns[0]!.set(lock, 'a-dead-process', 'PX', 300);
    const started = Date.now();
    await cache.token(key, 'arbs_live');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(tokenRequests()).toBe(2);
  });

  it('refuses a caller that does not wait once another process has held the lock too long (nothing sent)', async () => {
    const key = refOf(sandbox.demoKey);
    const cache = await process({ busyWaitMs: 150 });
    await cache.token(key, 'arbs_prematch');
    const [prematch] = await grantKeys();
    await conns[0]!.set(`${prematch!.key.replace(/arbs_prematch$/, 'arbs_live')}:lock`, 'a-slow-process', 'PX', 5_000);
    await expect(cache.token(key, 'arbs_live', { wait: false })).rejects.toMatchObject({
      kind: 'rate_limited',
      details: { local: true, limit: 'tokens' },
    });
    expect(tokenRequests()).toBe(1);
  });

  it('does not open a grant moved to another service, nor one sealed under another ENCRYPTION_KEY: it requests its own', async () => {
    const key = refOf(sandbox.demoKey);
    const a = await process();
    await a.token(key, 'arbs_live');
    const [live] = await grantKeys();
    // Copied under another service's key: the associated data no longer matches.
    await conns[0]!.set(live!.key.replace(/arbs_live$/, 'middles_live'), live!.value ?? '', 'PX', 60_000);
    await (await process()).token(key, 'middles_live');
    expect(tokenRequests()).toBe(2);
    const foreign = await process({ from: await Vault.open({ dataDir: dir, envKey: 'cd'.repeat(32), logger: silentLogger }) });
    await foreign.token(key, 'arbs_live');
    expect(tokenRequests()).toBe(3);
  });
});
