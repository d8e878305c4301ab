/**
 * The Redis store against a real Redis: the store contract the embedded store passes, then what
 * only a shared store has to get right — two processes (two store instances on one prefix) seeing
 * each other's changes, and a front and a worker writing one user at once without losing either
 * change.
 */
import { describe, expect, it, vi } from 'vitest';
import type { FilterRecord } from '../../src/store/schema.js';
import { captureLogs } from '../support/logs.js';
import { storeContract } from './contract.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('store');

const filter = (minProfit: number): FilterRecord => ({
  settings: { sports: [], bookmakers: [], minProfit, maxProfit: null, minOdds: null, maxOdds: null, hoursToStart: null, minOvervalue: null, marketsOff: [], minProfitBySport: {} },
  paused: false,
  pausedReason: null,
  savedAt: 1,
});

const settle = { timeout: 3_000, interval: 10 };

describe.skipIf(!redis.available)('the Redis store: the store contract', () => {
  storeContract({
    open: (opts) => stores.open({ ...(opts?.clock && { clock: opts.clock }) }),
    reopen: (store) => stores.open({ prefix: stores.prefixOf(store) }),
    persisted: async (store) => {
      const keys = stores.keys(store);
      const [users, subs] = await Promise.all([stores.raw().smembers(keys.users), stores.raw().smembers(keys.alertSubs)]);
      return { users: users.sort(), alertSubs: subs.sort() };
    },
    protoIdSurvivesReload: true,
  });
});

/** Two stores on one prefix (two processes), user 1 written by the first and seen by the second. */
async function twoProcessesWithUser1() {
  const a = await stores.open();
  const b = await stores.open({ prefix: stores.prefixOf(a) });
  a.updateUser(1, (u) => void (u.bankroll = 5), { chatId: 10 });
  await a.flush();
  await vi.waitFor(() => expect(b.getUser(1)?.bankroll).toBe(5), settle);
  return { a, b };
}

describe.skipIf(!redis.available)('the Redis store: two processes on one Redis', () => {
  it("sees another process's changes, and tells listeners of changed records but not of status writes or its own changes", async () => {
    const a = await stores.open();
    const b = await stores.open({ prefix: stores.prefixOf(a) });
    const toldA: number[] = [];
    const toldB: number[] = [];
    a.onUserChanged((id) => toldA.push(id));
    b.onUserChanged((id) => toldB.push(id));

    a.updateUser(1, (u) => void (u.bankroll = 5), { chatId: 10 });
    await a.flush();
    await vi.waitFor(() => expect(b.getUser(1)?.bankroll).toBe(5), settle);
    expect(toldB).toEqual([1]);

    a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 42 });
    await a.flush();
    await b.refreshUsers([1]);
    expect(b.getUser(1)?.status.arbs_live?.lastGoodReadAt).toBe(42);
    expect(toldB).toEqual([1]);

    b.updateUser(1, (u) => void (u.filters.arbs_live = filter(2)));
    await b.flush();
    await vi.waitFor(() => expect(a.getUser(1)?.filters.arbs_live?.settings.minProfit).toBe(2), settle);
    expect(toldA).toEqual([1]);

    expect(a.deleteUser(1)).toBe(true);
    await a.flush();
    await vi.waitFor(() => expect(b.getUser(1)).toBeUndefined(), settle);
    expect(toldB).toEqual([1, 1]);
    expect(b.listUsers()).toEqual([]);
    expect(toldA).toEqual([1]);
  });

  it('announces no status write (no process spends a thing on it), and another process has it once it asks', async () => {
    const { a, b } = await twoProcessesWithUser1();
    const feed = stores.raw().duplicate();
    const heard: string[] = [];
    feed.on('message', (_channel: string, text: string) => heard.push(text));
    await feed.subscribe(stores.keys(a).changes);
    try {
      for (let i = 1; i <= 20; i++) {
        a.updateStatus(1, 'arbs_live', { lastGoodReadAt: i });
        a.updateStatus(1, 'arbs_prematch', { lastAlertAt: 100 + i });
        await a.flush();
      }
      // Messages on one channel arrive in order: once this one is heard, any announcement before it was too.
      await stores.raw().publish(stores.keys(a).changes, 'sentinel');
      await vi.waitFor(() => expect(heard).toContain('sentinel'), settle);
      expect(heard).toEqual(['sentinel']);
      expect(b.getUser(1)?.status.arbs_live).toBeUndefined();
      await b.refreshUsers([1]);
      expect(b.getUser(1)).toMatchObject({ bankroll: 5, status: { arbs_live: { lastGoodReadAt: 20 }, arbs_prematch: { lastAlertAt: 120 } } });
      // A change of the record itself is still announced, statuses and all.
      a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 21 });
      a.updateUser(1, (u) => void (u.bankroll = 6));
      await a.flush();
      await vi.waitFor(() => expect(b.getUser(1)).toMatchObject({ bankroll: 6, status: { arbs_live: { lastGoodReadAt: 21 } } }), settle);
      expect(heard).toHaveLength(2);
    } finally {
      feed.disconnect();
    }
  });

  it("gathers statuses written after reads into one round, and a user's own change takes them at once", async () => {
    // Long enough that a loaded machine's late timers cannot make the round come before the checks.
    const a = await stores.open({ statusBatchMs: 2_000 });
    for (let id = 1; id <= 5; id++) a.updateUser(id, () => undefined, { chatId: id });
    await a.flush();
    const stored = async (id: number) => {
      const raw = await stores.raw().hget(stores.keys(a).user(id), 's:arbs_live');
      return raw === null ? undefined : (JSON.parse(raw) as { lastGoodReadAt?: number }).lastGoodReadAt;
    };
    // Five reads ending 20 ms apart: nothing is written yet...
    for (let id = 1; id <= 5; id++) {
      a.updateStatus(id, 'arbs_live', { lastGoodReadAt: 100 + id });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await Promise.all([1, 2, 3, 4, 5].map(stored))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // ...then all five in one round.
    await vi.waitFor(async () => expect(await stored(1)).toBe(101), settle);
    expect(await Promise.all([2, 3, 4, 5].map(stored))).toEqual([102, 103, 104, 105]);
    // A change the user made is written within the usual few ms, with the status waiting before it.
    a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 200 });
    a.updateUser(1, (u) => void (u.bankroll = 7));
    await vi.waitFor(async () => expect(await stored(1)).toBe(200), { timeout: 1_000, interval: 10 });
  });

  it("reads back a user an older version announced with its statuses, as it reads any announced user", async () => {
    const { a, b } = await twoProcessesWithUser1();
    a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 77 });
    await a.flush();
    // What an older worker publishes after a status write: the id, and the statuses it wrote.
    await stores.raw().publish(stores.keys(a).changes, JSON.stringify({ from: 'older', ids: [1], st: { 1: { arbs_live: '{"lastGoodReadAt":1}' } } }));
    await vi.waitFor(() => expect(b.getUser(1)?.status.arbs_live?.lastGoodReadAt).toBe(77), settle);
  });

  it('loses nothing when a front and a worker write the same user at once', async () => {
    const front = await stores.open();
    const worker = await stores.open({ prefix: stores.prefixOf(front) });
    front.updateUser(1, (u) => void (u.filters.arbs_live = filter(1)), { chatId: 10 });
    await front.flush();
    await vi.waitFor(() => expect(worker.getUser(1)?.filters.arbs_live).toBeDefined(), settle);

    for (let i = 0; i < 40; i++) {
      // The front: a user's commands. The worker: statuses after reads, a pause, the blocked flag.
      front.updateUser(1, (u) => void (u.mutedEvents[`ev-${i}`] = 2_000_000_000_000 + i));
      if (i === 20) front.updateUser(1, (u) => void (u.filters.arbs_prematch = filter(3)));
      worker.updateStatus(1, 'arbs_live', { lastGoodReadAt: i });
      worker.updateUser(1, (u) => void (u.blocked = i === 39));
      if (i === 10) worker.updateUser(1, (u) => void Object.assign(u.filters.arbs_live!, { paused: true, pausedReason: 'auth' }));
      // Both send what they have together, so both write against the same version and one must lose the race.
      if (i % 5 === 4) await Promise.all([front.flush(), worker.flush()]);
    }
    await Promise.all([front.flush(), worker.flush()]);

    const check = (label: string, user: ReturnType<typeof front.getUser>) => {
      expect(Object.keys(user?.mutedEvents ?? {}), label).toHaveLength(40);
      expect(user?.filters.arbs_prematch?.settings.minProfit, label).toBe(3);
      expect(user?.filters.arbs_live, label).toMatchObject({ paused: true, pausedReason: 'auth' });
      expect(user?.status.arbs_live?.lastGoodReadAt, label).toBe(39);
      expect(user?.blocked, label).toBe(true);
    };
    await vi.waitFor(() => {
      check('front', front.getUser(1));
      check('worker', worker.getUser(1));
    }, settle);
    const fresh = await stores.open({ prefix: stores.prefixOf(front) });
    check('a new process', fresh.getUser(1));
  });

  it('gives an access key to one user when two processes connect it at once, and says why the other change was dropped', async () => {
    const logs = captureLogs();
    const a = await stores.open({ logger: logs.logger });
    const b = await stores.open({ prefix: stores.prefixOf(a), logger: logs.logger });
    a.updateUser(1, () => undefined, { chatId: 1 });
    a.updateUser(2, () => undefined, { chatId: 2 });
    await a.flush();
    await vi.waitFor(() => expect(b.listUsers()).toHaveLength(2), settle);

    const key = { accessKey: 'ak-shared', secretEnc: 'v1:x', connectedAt: 1 };
    a.updateUser(1, (u) => void (u.key = key));
    b.updateUser(2, (u) => void (u.key = key));
    await Promise.all([a.flush(), b.flush()]);

    await vi.waitFor(() => {
      const holders = [a, b].map((s) => s.listUsers().filter((u) => u.key?.accessKey === 'ak-shared').map((u) => u.id));
      expect(holders[0]).toHaveLength(1);
      expect(holders[1]).toEqual(holders[0]);
      expect(a.findUserByAccessKey('ak-shared')?.id).toBe(holders[0]?.[0]);
      expect(b.findUserByAccessKey('ak-shared')?.id).toBe(holders[0]?.[0]);
    }, settle);
    const owner = await stores.raw().hget(stores.keys(a).accessKeys, 'ak-shared');
    expect(Number(owner)).toBe(a.findUserByAccessKey('ak-shared')?.id);
    expect(logs.records().some((r) => r.reason === 'access-key-taken')).toBe(true);
  });

  it('keeps writing when a change loses the race to a write it has not heard of yet', async () => {
    const a = await stores.open({ writeBatchMs: 60_000 });
    a.updateUser(1, () => undefined, { chatId: 1 });
    await a.flush();
    // Another process's write that a's feed has not brought yet (written straight into Redis, unannounced).
    const keys = stores.keys(a);
    const rec = JSON.parse((await stores.raw().hget(keys.user(1), 'rec')) ?? '{}') as Record<string, unknown>;
    await stores.raw().hset(keys.user(1), 'rec', JSON.stringify({ ...rec, timeZone: 'Europe/Moscow' }), 'v', '2');
    a.updateUser(1, (u) => void (u.bankroll = 9));
    await a.flush();
    expect(a.getUser(1)).toMatchObject({ bankroll: 9, timeZone: 'Europe/Moscow' });
    expect(await stores.raw().hget(keys.user(1), 'v')).toBe('3');
    expect(JSON.parse((await stores.raw().hget(keys.user(1), 'rec')) ?? '{}')).toMatchObject({ bankroll: 9, timeZone: 'Europe/Moscow' });
  });
});
