/**
 * The Redis store's alert state against a real Redis: written behind (within the debounce, only
 * the entries that changed), loaded per user by a process that takes users over, and a removed
 * subscription forgotten by the other processes too.
 */
import { describe, expect, it, vi } from 'vitest';
import { subscriptionKey } from '../../src/store/schema.js';
import { WRITE_WAIT_MS } from '../../src/store/redis-alerts.js';
import { captureLogs, WARN } from '../support/logs.js';
import { entry } from './fixtures.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('store-alerts');

const SUB1 = subscriptionKey(1, 'arbs_live');
const SUB2 = subscriptionKey(2, 'arbs_live');
const stored = async (prefix: string, subKey: string, itemId: string) => {
  const text = await stores.raw().hget(stores.keys(prefix).alerts(subKey), itemId);
  return text === null ? undefined : (JSON.parse(text) as unknown);
};

describe.skipIf(!redis.available)('the Redis store: alert state written behind', () => {
  it('writes a change within the debounce (under a second), and only the entries that changed', async () => {
    const a = await stores.open();
    const prefix = stores.prefixOf(a);
    a.alerts.set(SUB1, 'a', entry());
    a.alerts.set(SUB1, 'b', entry());
    await a.flush();
    // Planted behind the store's back: a rewrite of the whole subscription would remove it.
    await stores.raw().hset(stores.keys(prefix).alerts(SUB1), 'planted', JSON.stringify(entry({ profit: 1 })));

    const started = performance.now();
    a.alerts.set(SUB1, 'a', entry({ profit: 9 }));
    a.alerts.set(SUB2, 'c', entry());
    a.alerts.delete(SUB1, 'b');
    expect(await stored(prefix, SUB1, 'a')).toEqual(entry());
    await vi.waitFor(async () => expect(await stored(prefix, SUB1, 'a')).toEqual(entry({ profit: 9 })), { timeout: 2_000, interval: 20 });
    expect(performance.now() - started).toBeLessThan(1_000);
    await vi.waitFor(async () => expect(await stored(prefix, SUB1, 'b')).toBeUndefined(), { timeout: 2_000, interval: 20 });
    expect(await stored(prefix, SUB2, 'c')).toEqual(entry());
    expect(await stored(prefix, SUB1, 'planted')).toEqual(entry({ profit: 1 }));
    expect((await stores.raw().smembers(stores.keys(prefix).alertSubs)).sort()).toEqual([SUB1, SUB2]);
  });

  it('writes alert state only after what it waits for (a worker: its alerts on the stream), and not later than the bound when that never comes', async () => {
    const a = await stores.open({ alertsDebounceMs: 20 });
    const prefix = stores.prefixOf(a);
    let release: () => void = () => undefined;
    const onStream = new Promise<void>((resolve) => (release = resolve));
    const waits: number[] = [];
    a.alertWritesAfter(() => {
      waits.push(performance.now());
      return onStream;
    });
    a.alerts.set(SUB1, 'a', entry());
    await vi.waitFor(() => expect(waits).toHaveLength(1), { timeout: 1_000, interval: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stored(prefix, SUB1, 'a')).toBeUndefined();
    release();
    await vi.waitFor(async () => expect(await stored(prefix, SUB1, 'a')).toEqual(entry()), { timeout: 1_000, interval: 10 });

    // A stream that never answers holds the state back WRITE_WAIT_MS at most.
    a.alertWritesAfter(() => new Promise<void>(() => undefined));
    const started = performance.now();
    a.alerts.set(SUB1, 'b', entry());
    await a.flush();
    expect(await stored(prefix, SUB1, 'b')).toEqual(entry());
    expect(performance.now() - started).toBeGreaterThanOrEqual(WRITE_WAIT_MS - 50);
    expect(performance.now() - started).toBeLessThan(WRITE_WAIT_MS + 1_000);
  });

  it('sends many changes of a debounce window as one write of the latest values', async () => {
    const a = await stores.open({ alertsDebounceMs: 200 });
    const prefix = stores.prefixOf(a);
    for (let i = 0; i < 300; i++) a.alerts.set(subscriptionKey(i % 30, 'arbs_live'), `item-${i % 60}`, entry({ lastSeenAt: i }));
    await a.flush();
    expect(await stored(prefix, subscriptionKey(29, 'arbs_live'), 'item-59')).toEqual(entry({ lastSeenAt: 299 }));
    expect(await stored(prefix, subscriptionKey(0, 'arbs_live'), 'item-0')).toEqual(entry({ lastSeenAt: 240 }));
    expect(await stores.raw().scard(stores.keys(prefix).alertSubs)).toBe(30);
  });
});

describe.skipIf(!redis.available)('the Redis store: alert state kept listed', () => {
  it('writes no SREM for a subscription this process never listed (an item set and gone within one write): it was one every read', async () => {
    const a = await stores.open({ alertsDebounceMs: 200 });
    const prefix = stores.prefixOf(a);
    // Listed by another process, behind this one's back: only a subscription this process listed is unlisted by it.
    await stores.raw().sadd(stores.keys(prefix).alertSubs, SUB2);
    a.alerts.set(SUB2, 'x', entry());
    a.alerts.delete(SUB2, 'x');
    await a.flush();
    expect(await stores.raw().smembers(stores.keys(prefix).alertSubs)).toEqual([SUB2]);
    // One it listed is unlisted when its last entry goes.
    a.alerts.set(SUB1, 'a', entry());
    await a.flush();
    a.alerts.delete(SUB1, 'a');
    await a.flush();
    expect(await stores.raw().smembers(stores.keys(prefix).alertSubs)).toEqual([SUB2]);
  });
});

describe.skipIf(!redis.available)('the Redis store: alert state of users taken over', () => {
  it('loadAlerts reads those users\' entries (and no one else\'s), again after another process changed them', async () => {
    const a = await stores.open();
    const prefix = stores.prefixOf(a);
    a.alerts.set(SUB1, 'a', entry({ profit: 1 }));
    a.alerts.set(SUB2, 'b', entry());
    await a.flush();

    const worker = await stores.open({ prefix, loadAllAlerts: false });
    expect(worker.alerts.size()).toBe(0);
    await worker.loadAlerts([1]);
    expect(worker.alerts.entries(SUB1)).toEqual([['a', entry({ profit: 1 })]]);
    expect(worker.alerts.entries(SUB2)).toEqual([]);

    a.alerts.set(SUB1, 'a', entry({ profit: 2 }));
    a.alerts.set(SUB1, 'new', entry());
    await a.flush();
    expect(worker.alerts.get(SUB1, 'a')?.profit).toBe(1);
    await worker.loadAlerts([1]);
    expect(worker.alerts.entries(SUB1).map(([id, e]) => [id, e.profit])).toEqual([
      ['a', 2],
      ['new', 2.5],
    ]);
  });

  it('writes its own pending changes before reading, so a reload never loses them', async () => {
    const worker = await stores.open({ alertsDebounceMs: 60_000 });
    worker.alerts.set(SUB1, 'mine', entry({ profit: 4 }));
    await worker.loadAlerts([1]);
    expect(worker.alerts.get(SUB1, 'mine')?.profit).toBe(4);
    expect(await stored(stores.prefixOf(worker), SUB1, 'mine')).toEqual(entry({ profit: 4 }));
  });

  it('leaves out (and logs) an entry that fails the schema, and loads the rest', async () => {
    const a = await stores.open();
    const prefix = stores.prefixOf(a);
    a.alerts.set(SUB1, 'good', entry());
    await a.flush();
    await stores.raw().hset(stores.keys(prefix).alerts(SUB1), 'bad', '{"eventId":1,"secretish":"LEAK-ME"}', 'worse', 'not json');
    const logs = captureLogs();
    const worker = await stores.open({ prefix, loadAllAlerts: false, logger: logs.logger });
    await worker.loadAlerts([1]);
    expect(worker.alerts.entries(SUB1)).toEqual([['good', entry()]]);
    expect(logs.records().find((r) => r.level === WARN)).toMatchObject({ key: stores.keys(prefix).alerts(SUB1), items: 2 });
    expect(logs.text()).not.toContain('LEAK-ME');
  });

  it('a removed subscription is forgotten by the process holding it, and leaves Redis', async () => {
    const front = await stores.open({ loadAllAlerts: false });
    const prefix = stores.prefixOf(front);
    const worker = await stores.open({ prefix });
    worker.alerts.set(SUB1, 'a', entry());
    worker.alerts.set(SUB2, 'b', entry());
    await worker.flush();

    // The front never loaded it: deleting a filter still removes what the worker holds.
    front.alerts.deleteSubscription(SUB1);
    await vi.waitFor(() => expect(worker.alerts.entries(SUB1)).toEqual([]), { timeout: 2_000, interval: 10 });
    expect(worker.alerts.entries(SUB2)).toHaveLength(1);
    expect(await stores.raw().exists(stores.keys(prefix).alerts(SUB1))).toBe(0);
    expect(await stores.raw().smembers(stores.keys(prefix).alertSubs)).toEqual([SUB2]);

    front.deleteUser(2);
    await vi.waitFor(() => expect(worker.alerts.size()).toBe(0), { timeout: 2_000, interval: 10 });
    expect(await stores.raw().scard(stores.keys(prefix).alertSubs)).toBe(0);
  });
});
