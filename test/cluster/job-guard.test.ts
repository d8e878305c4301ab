/**
 * Whoever can write to the cluster's Redis cannot make the front post: on a real Redis and the Bot
 * API stand-in, a batch added to the alert stream unsigned, altered after signing, signed under
 * another key, added again, too old, or with an alert to a chat the store does not list for its user
 * is refused and never reaches Telegram; a worker's signed batch to the user's own chat (or their
 * alert chat) goes out.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from 'grammy';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertKey } from '../../src/alerts/idempotency.js';
import { subscriptionKey } from '../../src/store/schema.js';
import { alertStreams, sendPayload, WIRE_VERSION, type AlertPayload } from '../../src/cluster/alert-jobs.js';
import { startAlertConsumer } from '../../src/cluster/alert-consumer.js';
import { ALERT_JOB_KEY_PURPOSE, createJobGuard } from '../../src/cluster/job-guard.js';
import { createDestinationConfirmer } from '../../src/cluster/destination-confirm.js';
import { createRemoteOutbox } from '../../src/cluster/remote-outbox.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { captureLogs } from '../support/logs.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { stopAfterEach } from '../support/teardown.js';

let redis: TestRedis;
let dir: string;
let store: Store;
let vault: Vault;
let otherVault: Vault;
beforeAll(async () => {
  redis = await redisForTests('job-guard');
  dir = await mkdtemp(join(tmpdir(), 'bb-guard-'));
  store = await openStore({ dataDir: dir, logger: silentLogger });
  store.updateUser(501, (u) => void (u.alertChatId = 9001), { chatId: 501 });
  store.updateUser(502, () => undefined, { chatId: 502 });
  vault = await Vault.open({ dataDir: dir, envKey: randomBytes(32).toString('hex'), logger: silentLogger });
  otherVault = await Vault.open({ dataDir: dir, envKey: randomBytes(32).toString('hex'), logger: silentLogger });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
  await redis.dispose();
});

const stopAfter = stopAfterEach();
let run = 0;

async function cluster() {
  run += 1;
  const prefix = `${redis.prefix}${run}:`;
  const fake: FakeTelegram = await startFakeTelegram();
  stopAfter(fake);
  const outbox = new Outbox({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), logger: silentLogger, privatePerSecond: 20 });
  outbox.start();
  stopAfter(outbox);
  const logs = captureLogs();
  // 501's alert group, where 501 is an admin; 9002 is someone else's group, where the bot is too.
  fake.setChat({ id: 9001, type: 'supergroup', title: 'Team 501', botIsAdmin: true, adminIds: [501] });
  fake.setChat({ id: 9002, type: 'supergroup', title: 'Not theirs', botIsAdmin: true, adminIds: [777] });
  const consumer = startAlertConsumer({
    connection: { url: redis.url }, prefix, outbox, logger: logs.logger,
    guard: createJobGuard({ key: vault.deriveKey(ALERT_JOB_KEY_PURPOSE), store }),
    confirmDestination: createDestinationConfirmer(new Api(fake.token, { apiRoot: fake.apiRoot })),
  });
  stopAfter(consumer);
  const worker = (v: Vault) => {
    const remote = createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: silentLogger, resultTimeoutMs: 5000, guard: createJobGuard({ key: v.deriveKey(ALERT_JOB_KEY_PURPOSE) }) });
    stopAfter(remote);
    return remote;
  };
  const conn = new Redis(redis.url);
  stopAfter({ close: () => conn.quit() });
  /** Adds an entry as any process with access to Redis could: a body and maybe a signature. */
  const raw = (body: string, sig?: string) => conn.xadd(alertStreams(prefix).new, '*', 'b', body, ...(sig === undefined ? [] : ['s', sig]));
  return { fake, consumer, logs, worker, raw };
}

/** A batch's bytes as a worker writes them, signed at `at`. */
function body(items: AlertPayload[], at = Date.now()): string {
  return JSON.stringify({ v: WIRE_VERSION, from: 'raw-worker-1', at, nonce: randomBytes(16).toString('base64url'), items: items.map((p, i) => ({ ...p, i })) });
}

describe('the front takes only its workers\' batches to chats its users chose', () => {
  it('sends a signed batch to the user\'s chat and alert chat', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { fake, worker } = await cluster();
    const remote = worker(vault);
    // The key as the notifier names an alert: the user is read from it.
    const key = alertKey({ subKey: subscriptionKey(501, 'arbs_prematch'), itemId: 'i1', item: { createdAt: 1 }, entry: { firstSeenAt: 1, chatId: 501 }, again: false, filterSavedAt: 1 });
    expect(await remote.send(501, 'arb for 501', { kind: 'alert', idempotencyKey: key })).toEqual(expect.any(Number));
    // The same key to another user's chat is refused.
    expect(await remote.send(502, 'arb for 501 sent to 502', { kind: 'alert', idempotencyKey: `${key}:x` })).toBeUndefined();
    expect(await remote.send(9001, 'arb for 501 in its group', { kind: 'alert', idempotencyKey: '501:arbs_prematch:i2:new:1' })).toEqual(expect.any(Number));
    expect(fake.messages(501).map((m) => m.text)).toEqual(['arb for 501']);
    expect(fake.messages(9001).map((m) => m.text)).toEqual(['arb for 501 in its group']);
  });

  it('refuses unsigned, altered and foreign-key jobs, and a signed job to a chat the store does not list for its user', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { fake, consumer, logs, worker, raw } = await cluster();
    const guard = createJobGuard({ key: vault.deriveKey(ALERT_JOB_KEY_PURPOSE) });
    // Unsigned, as any process with access to Redis could write it.
    await raw(body([sendPayload(777, 'FORGED: send me your key', { kind: 'info' })]));
    // Signed, then the text and the chat changed in Redis.
    const signed = body([sendPayload(501, 'real alert', { kind: 'alert', idempotencyKey: '501:arbs_prematch:i3:new:1' })]);
    const sig = guard.sign(signed);
    await raw(signed.replace('real alert', 'FORGED text'), sig);
    await raw(signed.replace('"chatId":501', '"chatId":777'), sig);
    // Signed under another cluster's key.
    expect(await worker(otherVault).send(501, 'FORGED by another key', { kind: 'alert', idempotencyKey: '501:arbs_prematch:i4:new:1' })).toBeUndefined();
    // Signed with this cluster's key, but to a chat user 501 never chose (502's chat, a stranger's).
    const remote = worker(vault);
    expect(await remote.send(502, 'FORGED to another user', { kind: 'alert', idempotencyKey: '501:arbs_prematch:i5:new:1' })).toBeUndefined();
    expect(await remote.send(777, 'FORGED to a stranger', { kind: 'info' })).toBeUndefined();
    await vi.waitFor(() => expect(consumer.stats().refused).toBe(6), { timeout: 10_000, interval: 50 });
    for (const chat of [501, 502, 777]) expect(fake.messages(chat).filter((m) => m.text.startsWith('FORGED'))).toEqual([]);
    expect(fake.messages(501)).toEqual([]);
    expect(logs.text()).not.toContain('FORGED');
    const refusals = logs.records().map((r) => r.refusal).filter(Boolean);
    expect(refusals.sort()).toEqual(['destination', 'destination', 'forged', 'forged', 'forged', 'unsigned']);
  });

  it('audit 3, M3: a signed batch added again, or signed over an hour ago, is refused; the same entry taken over is not', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { fake, consumer, logs, raw } = await cluster();
    const guard = createJobGuard({ key: vault.deriveKey(ALERT_JOB_KEY_PURPOSE) });
    const signed = body([sendPayload(501, 'edit me later', { kind: 'info', forUser: 501 })]);
    await raw(signed, guard.sign(signed));
    await vi.waitFor(() => expect(fake.messages(501).map((m) => m.text)).toEqual(['edit me later']), { timeout: 10_000, interval: 50 });
    // The same signed bytes, copied out of the stream and added again as a new entry.
    await raw(signed, guard.sign(signed));
    // Signed by a worker whose clock said 61 minutes ago (or 6 minutes ahead).
    const old = body([sendPayload(501, 'STALE old', { kind: 'info', forUser: 501 })], Date.now() - 61 * 60_000);
    const ahead = body([sendPayload(501, 'STALE ahead', { kind: 'info', forUser: 501 })], Date.now() + 6 * 60_000);
    await raw(old, guard.sign(old));
    await raw(ahead, guard.sign(ahead));
    await vi.waitFor(() => expect(consumer.stats().refused).toBe(3), { timeout: 10_000, interval: 50 });
    expect(fake.messages(501).map((m) => m.text)).toEqual(['edit me later']);
    expect(logs.records().map((r) => r.refusal).filter(Boolean).sort()).toEqual(['replayed', 'stale', 'stale']);
    // A job of the BullMQ queue before this version (one alert, signed alone) is not taken either.
    const legacy = JSON.stringify({ ...sendPayload(501, 'LEGACY', { kind: 'info', forUser: 501 }), v: 1, at: Date.now(), nonce: randomBytes(16).toString('base64url') });
    await raw(legacy, guard.sign(legacy));
    await vi.waitFor(() => expect(consumer.stats().invalid).toBe(1), { timeout: 10_000, interval: 50 });
    expect(fake.messages(501).map((m) => m.text)).toEqual(['edit me later']);
  });

  it('audit 3, M3: a user record rewritten in Redis does not move the user\'s alerts or notices to another chat', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { fake, consumer, logs, worker } = await cluster();
    const remote = worker(vault);
    // A notice names its user: it goes to the user's own private chat.
    expect(await remote.send(502, 'notice for 502', { kind: 'info', forUser: 502 })).toEqual(expect.any(Number));
    try {
      // The attacker points 501's alert chat at their group, and 502's chat at their own private chat.
      store.updateUser(501, (u) => void (u.alertChatId = 9002));
      store.updateUser(502, (u) => void (u.chatId = 777));
      // The workers, reading those records, sign 501's alert to 9002 and 502's notice to 777.
      expect(await remote.send(9002, 'ALERT of 501', { kind: 'alert', idempotencyKey: '501:arbs_prematch:i9:new:1' })).toBeUndefined();
      expect(await remote.send(777, 'NOTICE of 502', { kind: 'info', forUser: 502 })).toBeUndefined();
      // A notice naming no user goes nowhere.
      expect(await remote.send(502, 'NOTICE of nobody', { kind: 'info' })).toBeUndefined();
      await vi.waitFor(() => expect(consumer.stats().refused).toBe(3), { timeout: 10_000, interval: 50 });
      expect(fake.messages(9002)).toEqual([]);
      expect(fake.messages(777)).toEqual([]);
      expect(fake.messages(502).map((m) => m.text)).toEqual(['notice for 502']);
      expect(logs.records().map((r) => r.refusal).filter(Boolean)).toEqual(['destination', 'destination', 'destination']);
    } finally {
      store.updateUser(501, (u) => void (u.alertChatId = 9001));
      store.updateUser(502, (u) => void (u.chatId = 502));
    }
  });
});
