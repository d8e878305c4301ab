/**
 * What sent messages printed (src/ledger/prints.ts) in both stores: kept through a reopen, expired
 * PRINT_TTL_MS after their last send on the store's injected clock (the lowdb file swept of them,
 * Redis keys carrying that expiry), refreshed by a later send of the same content, a few versions
 * per item, refused when malformed, and removed with the user.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { PRINT_TTL_MS, type AlertPrint } from '../../src/ledger/prints.js';
import { PRINTS_PER_ITEM } from '../../src/store/print-store.js';
import { PRINT_GATHER_MS, RedisPrints } from '../../src/store/redis-prints.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, samplePrint, tempDir } from './fixtures.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('prints');

interface Opened {
  store: Store;
  reopen(): Promise<Store>;
}

/** The same behaviour from both stores. */
function printsContract(open: (clock: ManualClock) => Promise<Opened>): void {
  it('keeps a print through a reopen, for its owner only', async () => {
    const clock = new ManualClock(10_000);
    const { store, reopen } = await open(clock);
    store.prints.put(7, samplePrint({ sentAt: clock.now() }));
    expect(await store.prints.get(7, 'p1')).toEqual(samplePrint({ sentAt: 10_000 }));
    expect(await store.prints.get(8, 'p1')).toBeUndefined();
    await store.flush();
    const again = await reopen();
    expect((await again.prints.get(7, 'p1'))?.legs.map((l) => l.stake)).toEqual([495, 505]);
  });

  it('is gone PRINT_TTL_MS after its last send on the injected clock; a send of the same content again keeps it a week from then', async () => {
    const clock = new ManualClock(10_000);
    const { store } = await open(clock);
    store.prints.put(7, samplePrint({ sentAt: clock.now() }));
    store.prints.put(7, samplePrint({ id: 'p2', sentAt: clock.now() }));
    await clock.advance(PRINT_TTL_MS - 1_000);
    store.prints.put(7, samplePrint({ id: 'p2', sentAt: clock.now() }));
    expect(await store.prints.get(7, 'p1')).toBeDefined();
    await clock.advance(2_000);
    expect(await store.prints.get(7, 'p1')).toBeUndefined();
    expect(await store.prints.get(7, 'p2')).toBeDefined();
    await clock.advance(PRINT_TTL_MS);
    expect(await store.prints.get(7, 'p2')).toBeUndefined();
  });

  it("refuses a malformed print and removes a user's prints with the user", async () => {
    const clock = new ManualClock(10_000);
    const { store } = await open(clock);
    expect(() => store.prints.put(7, { ...samplePrint(), legs: [] } as AlertPrint)).toThrow();
    store.updateUser(7, () => undefined, { chatId: 70 });
    store.prints.put(7, samplePrint({ sentAt: clock.now() }));
    store.deleteUser(7);
    await store.flush();
    expect(await store.prints.get(7, 'p1')).toBeUndefined();
  });
}

describe('prints in the embedded store', () => {
  afterEach(async () => {
    await removeTempDirs();
  });

  const openLowdb = async (clock: ManualClock) => {
    const dataDir = await tempDir();
    let store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 5 });
    opened.push(store);
    return {
      store,
      reopen: async () => {
        await store.close();
        store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 5 });
        opened.push(store);
        return store;
      },
    };
  };
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
  });

  printsContract(openLowdb);

  it('sweeps expired prints out of db.json, and keeps the last few versions of an item (an alert edited on every move)', async () => {
    const clock = new ManualClock(10_000);
    const { store } = await openLowdb(clock);
    const json = store as Store & { file: string };
    store.prints.put(7, samplePrint({ id: 'old', itemId: 'gone-item', sentAt: clock.now() }));
    for (let v = 0; v < PRINTS_PER_ITEM + 3; v++) store.prints.put(7, samplePrint({ id: `v${v}`, sentAt: clock.now() }));
    expect(await store.prints.get(7, 'v0')).toBeUndefined();
    expect(await store.prints.get(7, `v${PRINTS_PER_ITEM + 2}`)).toBeDefined();
    await clock.advance(PRINT_TTL_MS + 1);
    store.prints.put(7, samplePrint({ id: 'new', itemId: 'b2', sentAt: clock.now() }));
    await store.flush();
    const file = JSON.parse(await readFile(json.file, 'utf8')) as { prints: Record<string, unknown> };
    expect(Object.keys(file.prints)).toEqual(['7:new']);
  });
});

describe.skipIf(!redis.available)('prints in the Redis store', () => {
  printsContract(async (clock) => {
    const store = await stores.open({ clock });
    return { store, reopen: async () => stores.open({ prefix: stores.prefixOf(store), clock }) };
  });

  it('writes the prints put within PRINT_GATHER_MS in one pipeline, shows them to their own process at once and to others once written', async () => {
    const clock = new ManualClock(10_000);
    const redisClient = stores.raw();
    const prefix = `${stores.freshPrefix()}print:`;
    let pipelines = 0;
    let singles = 0;
    // The client as the store would use it, counting its writes.
    const counted = new Proxy(redisClient, {
      get(target, name, receiver) {
        if (name === 'pipeline') pipelines++;
        if (name === 'set') singles++;
        const value: unknown = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const prints = new RedisPrints({ redis: counted, prefix, clock, log: silentLogger, guard: () => undefined });
    for (let i = 0; i < 30; i++) prints.put(7, samplePrint({ id: `p${i}`, sentAt: clock.now() }));
    // Its own process reads a print before it is written…
    expect((await prints.get(7, 'p29'))?.id).toBe('p29');
    expect(await redisClient.exists(`${prefix}7:p29`)).toBe(0);
    // …and every other one once the moment is over: thirty prints, one write.
    await new Promise((resolve) => setTimeout(resolve, PRINT_GATHER_MS + 50));
    await prints.flush();
    expect(await redisClient.exists(...Array.from({ length: 30 }, (_, i) => `${prefix}7:p${i}`))).toBe(30);
    expect({ pipelines, singles }).toEqual({ pipelines: 1, singles: 0 });
    // A user removed before the write leaves nothing behind.
    prints.put(8, samplePrint({ id: 'q1', sentAt: clock.now() }));
    prints.deleteUser(8);
    await prints.flush();
    expect(await redisClient.exists(`${prefix}8:q1`)).toBe(0);
  });

  it('keeps each print in a key that Redis itself expires a week after its send', async () => {
    const clock = new ManualClock(10_000);
    const store = await stores.open({ clock });
    store.prints.put(7, samplePrint({ sentAt: clock.now() - 60_000 }));
    await store.flush();
    const ttl = await stores.raw().pttl(`${stores.keys(store).prints}7:p1`);
    expect(ttl).toBeGreaterThan(PRINT_TTL_MS - 70_000);
    expect(ttl).toBeLessThanOrEqual(PRINT_TTL_MS - 60_000);
  });
});
