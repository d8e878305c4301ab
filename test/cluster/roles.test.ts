/**
 * The cluster roles wired together, several in this one test process: a front (ROLE=front) and
 * two workers (ROLE=worker), then one process with both halves (ROLE=all), against the sandbox, the
 * Bot API stand-in and a real Redis (leases, the latest-items channel, each role's connection).
 * The store, client and alert stream are stand-ins built from the embedded pieces
 * (stand-in-parts.ts). A user connects and builds a filter on the front; the worker holding the
 * user's bucket reads and alerts through the front; /status, inline mode and /healthz answer per
 * role; when that worker stops, the other takes the user over without alerting an item twice.
 * A filter the key's token budget refuses on the front is kept as a draft, and the worker that
 * holds the user's budget writes it and tells the user through the front.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { bucketOf } from '../../src/cluster/buckets.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../support/ports.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { standInParts, type StandIns } from './stand-in-parts.js';

const FAST_LEASES = { ttlMs: 1_500, renewEveryMs: 300, marginMs: 300 };

let redis: TestRedis;
let sandbox: Sandbox;
let telegram: FakeTelegram;
beforeAll(async () => {
  redis = await redisForTests('roles');
  sandbox = await startSandbox({});
  telegram = await startFakeTelegram({});
});
afterAll(async () => {
  await telegram?.close();
  await sandbox?.close();
  await redis?.dispose();
});

interface Cluster {
  parts: StandIns;
  dataDir: string;
  start(role: 'front' | 'worker' | 'all'): Promise<App>;
}

async function cluster(prefix: string, env: Record<string, string> = {}): Promise<Cluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bb-roles-'));
  const parts = standInParts(dataDir);
  return {
    parts,
    dataDir,
    async start(role) {
      const config = loadConfig({
        ...sandbox.urls,
        BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        DATA_DIR: dataDir,
        HTTP_PORT: String(await freePort()),
        REDIS_URL: redis.url,
        REDIS_PREFIX: prefix,
        ROLE: role,
        ...env,
      });
      return startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger: silentLogger, cluster: parts, leaseTimings: FAST_LEASES });
    },
  };
}

interface Health {
  ok: boolean;
  checks: Record<string, boolean>;
  details: { role: string; worker?: { leasesHeld: number; leasesReady: number; liveWorkers: number; subscriptions: number; redisReachable: boolean }; front?: { alertStream: unknown } };
}
const health = async (app: App) => (await (await fetch(`http://127.0.0.1:${app.healthPort}/healthz`)).json()) as Health;

function chat(user: { id: number; first_name: string; language_code: string }) {
  return async (text: string, expected: (m: SentMessage) => boolean): Promise<SentMessage> => {
    const seen = Math.max(0, ...telegram.messages(user.id).map((m) => m.message_id));
    telegram.sendText(user, text);
    return telegram.waitForMessage((m) => m.chat_id === user.id && m.message_id > seen && expected(m), 10_000);
  };
}

const alertsOf = (userId: number) => telegram.messages(userId).filter((m) => /Arb \+\d/.test(m.text));
/** Resolves once no message reached the user for `quietMs`. */
async function quiet(userId: number, quietMs = 2_000): Promise<void> {
  let count = -1;
  while (count !== telegram.messages(userId).length) {
    count = telegram.messages(userId).length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

describe('a front and two workers', () => {
  const ALICE = { id: 5003, first_name: 'Alice', language_code: 'en' };
  let c: Cluster;
  let front: App;
  let workers: App[];

  beforeAll(async () => {
    if (!redis.available) return;
    c = await cluster(`${redis.prefix}fw:`);
    workers = [await c.start('worker'), await c.start('worker')];
    front = await c.start('front');
  }, 30_000);
  afterAll(async () => {
    for (const app of [front, ...(workers ?? [])]) await app?.stop(1_000);
    if (c) await rm(c.dataDir, { recursive: true, force: true });
  });

  it('shares the 64 buckets between the workers, each reporting its leases and Redis on /healthz', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await expect.poll(async () => (await Promise.all(workers.map(health))).map((h) => h.details.worker?.leasesHeld), { timeout: 10_000 }).toEqual([32, 32]);
    for (const h of await Promise.all(workers.map(health))) {
      expect(h).toMatchObject({ ok: true, checks: { store: true, scheduler: true, leases: true }, details: { role: 'worker', worker: { liveWorkers: 2, redisReachable: true, leasesReady: 32 } } });
    }
    expect(await health(front)).toMatchObject({ ok: true, checks: { telegram: true, store: true, redis: true }, details: { role: 'front', front: { alertStream: { sends: 0 } } } });
  });

  it('has each worker write alert state only after its outbox has added the alerts (the front does not)', async (ctx) => {
    if (!redis.available) return ctx.skip();
    expect(c.parts.alertWaits).toHaveLength(2);
    const before = c.parts.bridged.added;
    for (const wait of c.parts.alertWaits) await wait();
    expect(c.parts.bridged.added - before).toBe(2);
  });

  it('alerts a user connected on the front from the worker holding their bucket; /status and inline mode answer on the front', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const ask = chat(ALICE);
    await ask('/start', (m) => m.text.includes('/connect'));
    await ask(`/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, (m) => /connected/i.test(m.text));
    await ask('/filter arbs_prematch', (m) => /saved/i.test(m.text));
    sandbox.world.inject('arbs_prematch', { profit: 7 });
    await expect.poll(() => alertsOf(ALICE.id).length, { timeout: 15_000 }).toBeGreaterThan(0);

    const owner = await ownerOf(ALICE.id);
    const other = workers.find((w) => w !== owner)!;
    expect((await health(owner)).details.worker?.subscriptions).toBe(1);
    expect((await health(other)).details.worker?.subscriptions).toBe(0);

    // Coverage from the token plan, on the front without a scheduler.
    const status = await ask('/status', (m) => m.text.includes('Coverage'));
    expect(status.text).toMatch(/Coverage 100\s?%/);
    // Inline mode: the latest items, asked of the worker that reads them.
    const answered = telegram.answers.inline.length;
    telegram.inlineQuery(ALICE, '');
    await expect.poll(() => telegram.answers.inline.length, { timeout: 5_000 }).toBeGreaterThan(answered);
    expect(telegram.answers.inline.at(-1)?.results.length).toBeGreaterThan(0);
  }, 40_000);

  it('hands the user to the other worker when the owner stops, alerting nothing twice', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const owner = await ownerOf(ALICE.id);
    const other = workers.find((w) => w !== owner)!;
    await quiet(ALICE.id);
    const sendsBefore = c.parts.bridged.sends;
    // An item born in the owner's last read interval may rightly be alerted by the next holder.
    const since = Date.now() - 3_000;
    await owner.stop(1_000);
    workers = [other];
    await expect.poll(async () => (await health(other)).details.worker?.leasesHeld, { timeout: 10_000 }).toBe(64);
    await expect.poll(async () => (await health(other)).details.worker?.subscriptions, { timeout: 10_000 }).toBe(1);
    // It loaded the user's alert state when it gained the bucket …
    expect(c.parts.loads.some((ids) => ids.includes(ALICE.id))).toBe(true);
    // … so it alerts what is new, and none of the items the first owner alerted.
    sandbox.world.inject('arbs_prematch', { profit: 8 });
    await expect.poll(() => c.parts.bridged.sends, { timeout: 15_000 }).toBeGreaterThan(sendsBefore);
    await quiet(ALICE.id);
    const born = sandbox.world.changes(since, 'arbs_prematch').filter((ch) => ch.type === 'appeared').length;
    // The first read's items came as one summary (issue 31), the later ones one by one.
    expect(sendsBefore).toBeGreaterThan(0);
    expect(c.parts.bridged.sends - sendsBefore).toBeLessThanOrEqual(born);
    expect(sandbox.counters().breaches).toBe(0);
  }, 40_000);

  async function ownerOf(userId: number): Promise<App> {
    const held = await Promise.all(workers.map(async (w) => (await health(w)).details.worker?.subscriptions ?? 0));
    const owner = workers[held.findIndex((n) => n > 0)];
    if (!owner) throw new Error(`no worker reads user ${userId} (bucket ${bucketOf(userId)})`);
    return owner;
  }
});

describe('ROLE=all', () => {
  const BOB = { id: 5004, first_name: 'Bob', language_code: 'en' };

  it('runs the front and a worker in one process: alerts arrive, /healthz shows both halves, stop releases the leases', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}all:`;
    const c = await cluster(prefix);
    const app = await c.start('all');
    try {
      const ask = chat(BOB);
      await ask('/start', (m) => m.text.includes('/connect'));
      await ask(`/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, (m) => /connected/i.test(m.text));
      await ask('/filter arbs_prematch', (m) => /saved/i.test(m.text));
      sandbox.world.inject('arbs_prematch', { profit: 9 });
      await expect.poll(() => alertsOf(BOB.id).length, { timeout: 15_000 }).toBeGreaterThan(0);
      const h = await health(app);
      expect(h).toMatchObject({ ok: true, checks: { telegram: true, redis: true, store: true, scheduler: true, leases: true }, details: { role: 'all', worker: { leasesHeld: 64 } } });
      expect(h.details.front).toBeDefined();
    } finally {
      await app.stop(1_000);
      await rm(c.dataDir, { recursive: true, force: true });
    }
    const check = await import('ioredis').then(({ Redis }) => new Redis(redis.url));
    try {
      expect(await check.keys(`${prefix}lease:*`)).toEqual([]);
      expect(await check.zcard(`${prefix}workers`)).toBe(0);
    } finally {
      check.disconnect();
    }
  }, 40_000);
});

describe('a draft in the cluster', () => {
  const DORA = { id: 5007, first_name: 'Dora', language_code: 'en' };

  it('a save the front’s budget refuses is kept; the worker holding the key’s budget writes it and the user hears it is live', async (ctx) => {
    if (!redis.available) return ctx.skip();
    // 15 token requests an hour: with one service read all the time (12), 3 are left to commands:
    // the /connect, the first filter's write and a mistyped secret's check take them.
    sandbox.addKey({ accessKey: 'dora-key', secret: 'dora-secret-0123' });
    const c = await cluster(`${redis.prefix}draft:`, { LIMIT_TOKENS_PER_HOUR: '15' });
    const apps = [await c.start('worker'), await c.start('front')];
    try {
      const ask = chat(DORA);
      await ask('/connect dora-key dora-secret-0123', (m) => /connected/i.test(m.text));
      await ask('/filter arbs_live', (m) => /saved/.test(m.text));
      await ask('/connect dora-key mistyped-secret-0123', (m) => /wrong/.test(m.text));
      // Ranked first, middles live gets every window of the plan (13 of the hour: 12 and arbs live's 1).
      await ask('/rank middles_live', (m) => /New order/.test(m.text));
      const kept = await ask('/filter middles_live', (m) => /draft/.test(m.text));
      expect(kept.text).toContain('as a draft');
      await telegram.waitForMessage((m) => m.chat_id === DORA.id && m.text.includes('Your draft filter for Middles · live is written and live now'), 15_000);
      const list = await ask('/filters', (m) => m.text.includes('Your filters'));
      expect(list.text).toContain('Middles · live</b> — 🟢 active');
      expect(list.text).not.toContain('draft');
    } finally {
      for (const app of apps) await app.stop(1_000);
      await rm(c.dataDir, { recursive: true, force: true });
    }
  }, 40_000);
});
