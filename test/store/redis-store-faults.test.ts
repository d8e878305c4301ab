/**
 * The Redis store when things go wrong: broken records and announcements (logged and left out,
 * never a crash), data from a newer build or under an unknown version (refused, naming
 * REDIS_URL), an unreachable Redis (one line, no password in it), a change feed interrupted while
 * another process wrote (everything read again), a Redis restart (writes wait, then land; AOF
 * keeps them), and secrets (only the vault's ciphertext reaches Redis).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { StoreError } from '../../src/store/errors.js';
import { openRedisStore } from '../../src/store/redis-store.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { Vault } from '../../src/store/vault.js';
import { captureLogs, WARN } from '../support/logs.js';
import { freePort } from '../support/ports.js';
import { removeTempDirs, tempDir } from './fixtures.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('store-faults');
const { redis: own, stores: restartStores } = await redisStoreSuite('store-restart', { privateOnly: true });
afterEach(() => removeTempDirs());

const settle = { timeout: 5_000, interval: 20 };

describe.skipIf(!redis.available)('the Redis store: broken data', () => {
  it('leaves out (and logs, without its values) a record that fails the schema, and replaces it when the user is created again', async () => {
    const a = await stores.open();
    const prefix = stores.prefixOf(a);
    a.updateUser(6, () => undefined, { chatId: 6 });
    await a.close();
    const keys = stores.keys(prefix);
    await stores.raw().sadd(keys.users, '5', '7');
    await stores.raw().hset(keys.user(5), 'v', '1', 'rec', '{"id":5,"key":{"accessKey":"AK-LEAK","secretEnc":"SECRET-LEAK"}');
    await stores.raw().hset(keys.user(7), 'v', '1', 'rec', JSON.stringify({ id: 7, chatId: 7, createdAt: 1 }), 's:arbs_live', '{"lastGoodReadAt":"soon"}');

    const logs = captureLogs();
    const b = await stores.open({ prefix, logger: logs.logger });
    expect(b.loadReport).toEqual({ skippedRecords: 1 });
    expect(b.getUser(5)).toBeUndefined();
    expect(b.getUser(6)?.chatId).toBe(6);
    // A broken status field is left out alone: the user stays.
    expect(b.getUser(7)?.status).toEqual({});
    const warnings = logs.records().filter((r) => r.level === WARN);
    expect(warnings.map((w) => w.key)).toEqual([keys.user(5), keys.user(7)]);
    expect(logs.text()).not.toContain('LEAK');

    b.updateUser(5, (u) => void (u.bankroll = 3), { chatId: 5 });
    await b.flush();
    expect(JSON.parse((await stores.raw().hget(keys.user(5), 'rec')) ?? '{}')).toMatchObject({ id: 5, bankroll: 3, key: null });
  });

  it('ignores an announcement that is not in its format, and keeps working', async () => {
    const logs = captureLogs();
    const a = await stores.open({ logger: logs.logger });
    const b = await stores.open({ prefix: stores.prefixOf(a) });
    await stores.raw().publish(stores.keys(a).changes, '{"from":"x","ids":["1; DROP"]}');
    await stores.raw().publish(stores.keys(a).changes, 'not json');
    await vi.waitFor(() => expect(logs.records().filter((r) => r.level === WARN)).toHaveLength(2), settle);
    b.updateUser(1, () => undefined, { chatId: 1 });
    await b.flush();
    await vi.waitFor(() => expect(a.getUser(1)?.chatId).toBe(1), settle);
  });
});

describe.skipIf(!redis.available)('the Redis store: refusing to open', () => {
  it('refuses data written by a newer build, naming REDIS_URL, and changes nothing', async () => {
    const prefix = stores.freshPrefix();
    await stores.raw().hset(stores.keys(prefix).meta, 'version', String(SCHEMA_VERSION + 1));
    const failure = stores.open({ prefix });
    await expect(failure).rejects.toBeInstanceOf(StoreError);
    await expect(failure).rejects.toMatchObject({ code: 'newer-version', setting: 'REDIS_URL', message: expect.stringMatching(/^REDIS_URL: .* has schema version 2, but this build reads up to 1/) });
    expect(await stores.raw().hgetall(stores.keys(prefix).meta)).toEqual({ version: String(SCHEMA_VERSION + 1) });
  });

  it('refuses a schema version it cannot read, and writes its own into an empty prefix', async () => {
    const prefix = stores.freshPrefix();
    await stores.raw().hset(stores.keys(prefix).meta, 'version', 'one');
    await expect(stores.open({ prefix })).rejects.toMatchObject({ code: 'unknown-version', message: expect.stringContaining('REDIS_PREFIX') });
    const fresh = await stores.open();
    expect(await stores.raw().hget(stores.keys(fresh).meta, 'version')).toBe(String(SCHEMA_VERSION));
  });

  it('says in one line that Redis cannot be reached, without the password of the URL', async () => {
    const port = await freePort();
    const failure = openRedisStore({ url: `redis://:hunter2@127.0.0.1:${port}`, prefix: 'bb:', logger: silentLogger });
    await expect(failure).rejects.toMatchObject({ code: 'unreachable', setting: 'REDIS_URL' });
    const message = await failure.then(
      () => '',
      (err: unknown) => (err as Error).message,
    );
    expect(message).toMatch(new RegExp(`^REDIS_URL: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(prefix bb:\\): .*ECONNREFUSED`));
    expect(message).not.toContain('hunter2');
  });
});

describe.skipIf(!redis.available)('the Redis store: interruptions', () => {
  it('reads every user again after its change feed was cut, so a change announced meanwhile is not missed', async () => {
    const b = await stores.open();
    const prefix = stores.prefixOf(b);
    const told: number[] = [];
    b.onUserChanged((id) => told.push(id));
    b.updateUser(1, () => undefined, { chatId: 1 });
    await b.flush();
    // Another process's write whose announcement b never gets.
    const keys = stores.keys(prefix);
    const rec = JSON.parse((await stores.raw().hget(keys.user(1), 'rec')) ?? '{}') as Record<string, unknown>;
    await stores.raw().hset(keys.user(1), 'rec', JSON.stringify({ ...rec, bankroll: 77 }), 'v', '2');
    expect(b.getUser(1)?.bankroll).toBe(100);
    const clients = (await stores.raw().client('LIST')) as string;
    const feeds = clients.split('\n').filter((line) => / name=bb-store-feed /.test(line)).map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    expect(feeds).toHaveLength(1);
    await stores.raw().client('KILL', 'ID', feeds[0] ?? '');
    await vi.waitFor(() => expect(b.getUser(1)?.bankroll).toBe(77), settle);
    expect(told).toEqual([1]);
  });

  it.skipIf(!own.server)('keeps changes made while Redis restarts, writes them once it is back, and the data survives the restart', async () => {
    const a = await restartStores.open();
    a.updateUser(1, (u) => void (u.bankroll = 11), { chatId: 1 });
    a.alerts.set('1:arbs_live', 'x', { eventId: 'e', chatId: 1, messageId: 2, firstSeenAt: 1, lastSeenAt: 2, goneAt: null, profit: 1, odds: [2], lastEditAt: 2 });
    await a.flush();
    await own.server?.stop();
    a.updateUser(1, (u) => void (u.bankroll = 12));
    a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 5 });
    expect(a.getUser(1)?.bankroll).toBe(12);
    await vi.waitFor(() => expect(a.writable()).toBe(false), settle);
    await own.server?.restart();
    await vi.waitFor(() => expect(a.writable()).toBe(true), { timeout: 15_000, interval: 50 });
    await a.flush();
    const b = await restartStores.open({ prefix: restartStores.prefixOf(a) });
    expect(b.getUser(1)).toMatchObject({ bankroll: 12, status: { arbs_live: { lastGoodReadAt: 5 } } });
    expect(b.alerts.get('1:arbs_live', 'x')?.messageId).toBe(2);
  }, 30_000);
});

describe.skipIf(!redis.available)('the Redis store: secrets', () => {
  it('holds only the vault\'s ciphertext: neither the secret nor the encryption key reaches Redis', async () => {
    const encryptionKey = 'ab'.repeat(32);
    const vault = await Vault.open({ dataDir: await tempDir(), envKey: encryptionKey, logger: silentLogger });
    const secret = 'plain-secret-0123456789';
    const a = await stores.open();
    const secretEnc = vault.encrypt(secret);
    a.updateUser(1, (u) => void (u.key = { accessKey: 'ak-1', secretEnc, connectedAt: 1 }), { chatId: 1 });
    await a.flush();
    const raw = stores.raw();
    const names = await raw.keys(`${stores.prefixOf(a)}*`);
    const dump = (await Promise.all(names.map(async (name) => ((await raw.type(name)) === 'hash' ? JSON.stringify(await raw.hgetall(name)) : JSON.stringify(await raw.smembers(name)))))).join('\n');
    expect(dump).toContain(secretEnc.slice(0, 20));
    expect(dump).not.toContain(secret);
    expect(dump.toLowerCase()).not.toContain(encryptionKey);
    expect(vault.decrypt(a.getUser(1)?.key?.secretEnc ?? '')).toBe(secret);
  });
});
