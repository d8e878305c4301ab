/**
 * What sent messages printed (src/ledger/prints.ts) in both stores: kept through a reopen, expired
 * PRINT_TTL_MS after their last send on the store's injected clock (left out of the embedded
 * store's log, Redis keys carrying that expiry), refreshed by a later send of the same content, a
 * few versions per item, refused when malformed, and removed with the user. The embedded store
 * keeps them in an append-only log (`prints.log`), not in db.json, rewritten once mostly dead.
 */
import { spawn } from 'node:child_process';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { PRINT_TTL_MS, type AlertPrint } from '../../src/ledger/prints.js';
import { PRINTS_PER_ITEM } from '../../src/store/print-store.js';
import { PRINT_LOG_FILE_NAME, REWRITE_SLACK_BYTES } from '../../src/store/print-log.js';
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
    store.updateUser(7, () => undefined, { chatId: 70 });
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

  /** The log's lines as [key, print id]. */
  const logLines = async (dataDir: string): Promise<string[]> =>
    (await readFile(join(dataDir, PRINT_LOG_FILE_NAME), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as [string, unknown])[0]);

  const openIn = async (dataDir: string, clock: ManualClock) => {
    const store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 5 });
    opened.push(store);
    return store;
  };

  it('leaves expired prints out when it opens, and keeps the last few versions of an item (an alert edited on every move)', async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    store.updateUser(7, () => undefined, { chatId: 70 });
    store.prints.put(7, samplePrint({ id: 'old', itemId: 'gone-item', sentAt: clock.now() }));
    for (let v = 0; v < PRINTS_PER_ITEM + 3; v++) store.prints.put(7, samplePrint({ id: `v${v}`, sentAt: clock.now() + v }));
    expect(await store.prints.get(7, 'v0')).toBeUndefined();
    expect(await store.prints.get(7, `v${PRINTS_PER_ITEM + 2}`)).toBeDefined();
    await store.close();
    const again = await openIn(dataDir, clock);
    expect(await again.prints.get(7, 'old')).toBeDefined();
    expect(await again.prints.get(7, 'v2')).toBeUndefined();
    expect(await again.prints.get(7, 'v3')).toBeDefined();
    await again.close();
    await clock.advance(PRINT_TTL_MS + 100);
    const later = await openIn(dataDir, clock);
    expect(await later.prints.get(7, 'old')).toBeUndefined();
    expect(await later.prints.get(7, `v${PRINTS_PER_ITEM + 2}`)).toBeUndefined();
    // Opening rewrote the log without them: a week's end leaves the disk too.
    expect(await logLines(dataDir)).toEqual([]);
  });

  it("keeps prints out of db.json: a busy bot's thousands of prints are lines of prints.log, appended as they are put", async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    store.updateUser(7, () => undefined, { chatId: 70 });
    for (let i = 0; i < 2_000; i++) store.prints.put(7, samplePrint({ id: `p${i}`, itemId: `item-${i}`, sentAt: clock.now() }));
    // Appended at once, before any write of db.json: a kill -9 now keeps them.
    expect(await logLines(dataDir)).toHaveLength(2_000);
    await store.flush();
    const db = await readFile(join(dataDir, 'db.json'), 'utf8');
    expect((JSON.parse(db) as { prints: object }).prints).toEqual({});
    expect(db.length).toBeLessThan(2_000);
    await store.close();
    const again = await openIn(dataDir, clock);
    expect((await again.prints.get(7, 'p1999'))?.itemId).toBe('item-1999');
  });

  it('moves the prints of a db.json written before the log into prints.log, then writes db.json without them', async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    store.updateUser(7, () => undefined, { chatId: 70 });
    await store.close();
    const file = join(dataDir, 'db.json');
    const db = JSON.parse(await readFile(file, 'utf8')) as { prints: Record<string, AlertPrint> };
    db.prints = { '7:p1': samplePrint({ sentAt: clock.now() }), '7:p2': samplePrint({ id: 'p2', itemId: 'b2', sentAt: clock.now() }), '9:q1': samplePrint({ id: 'q1', sentAt: clock.now() }) };
    await writeFile(file, JSON.stringify(db));
    const again = await openIn(dataDir, clock);
    expect((await again.prints.get(7, 'p2'))?.itemId).toBe('b2');
    // User 9 has no record: their print is not carried over.
    expect(await again.prints.get(9, 'q1')).toBeUndefined();
    expect((await logLines(dataDir)).sort()).toEqual(['7:p1', '7:p2']);
    expect((JSON.parse(await readFile(file, 'utf8')) as { prints: object }).prints).toEqual({});
  });

  it("takes a removed user's prints off the disk at once, and keeps a print put while the log is rewritten", async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    for (const id of [7, 8]) store.updateUser(id, () => undefined, { chatId: id * 10 });
    store.prints.put(7, samplePrint({ sentAt: clock.now() }));
    store.prints.put(8, samplePrint({ id: 'q1', sentAt: clock.now() }));
    store.deleteUser(8);
    // The rewrite has begun (its copy of what is live is taken): this print comes after it.
    store.prints.put(7, samplePrint({ id: 'p2', itemId: 'b2', sentAt: clock.now() }));
    await store.flush();
    expect(await logLines(dataDir)).toEqual(['7:p1', '7:p2']);
    expect((await store.prints.get(7, 'p2'))?.itemId).toBe('b2');
    expect((await store.prints.get(7, 'p1'))?.id).toBe('p1');
    await store.close();
    expect(await (await openIn(dataDir, clock)).prints.get(7, 'p2')).toBeDefined();
  });

  it('keeps every print put before a kill -9, long before db.json would have been written', async () => {
    const dataDir = await tempDir();
    const script = join(dataDir, 'put-then-wait.mts');
    const storeModule = resolve('src/store/store.ts');
    const fixtures = resolve('test/store/fixtures.ts');
    await writeFile(
      script,
      `import { openStore } from ${JSON.stringify(storeModule)};
import { samplePrint } from ${JSON.stringify(fixtures)};
import { silentLogger } from ${JSON.stringify(resolve('src/logger.ts'))};
const store = await openStore({ dataDir: ${JSON.stringify(dataDir)}, logger: silentLogger });
store.updateUser(7, () => undefined, { chatId: 70 });
await store.flush();
for (let i = 0; i < 50; i++) store.prints.put(7, samplePrint({ id: 'k' + i, itemId: 'item-' + i, sentAt: Date.now() }));
process.stdout.write('put\\n');
setInterval(() => {}, 60_000);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('put') && done());
      child.once('exit', (code) => fail(new Error(`the child exited (${code}) before putting its prints`)));
    });
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    const store = await openIn(dataDir, new ManualClock(Date.now()));
    const found = await Promise.all(Array.from({ length: 50 }, (_, i) => store.prints.get(7, `k${i}`)));
    expect(found.filter((p) => p === undefined)).toHaveLength(0);
  }, 20_000);

  it('rewrites the log once it is mostly versions no longer held, and skips a torn last line', async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    store.updateUser(7, () => undefined, { chatId: 70 });
    // One live arb edited on every move: each edit prints again; only the latest few are held.
    const edits = Math.ceil((3 * REWRITE_SLACK_BYTES) / 400);
    for (let v = 0; v < edits; v++) store.prints.put(7, samplePrint({ id: `v${v}`, sentAt: clock.now() + v }));
    await store.flush();
    const size = (await stat(join(dataDir, PRINT_LOG_FILE_NAME))).size;
    // Never more than twice what is live plus the slack (and the line that tipped it), whatever was put.
    expect(size).toBeLessThan(REWRITE_SLACK_BYTES + 2_000);
    const lines = await logLines(dataDir);
    expect(lines).toEqual(expect.arrayContaining(Array.from({ length: PRINTS_PER_ITEM }, (_, i) => `7:v${edits - PRINTS_PER_ITEM + i}`)));
    expect(lines.length).toBeLessThan(edits / 2);
    // Each held print is read back from where the rewrite moved it, in this process too.
    for (let v = edits - PRINTS_PER_ITEM; v < edits; v++) expect((await store.prints.get(7, `v${v}`))?.sentAt).toBe(clock.now() + v);
    await store.close();
    await appendFile(join(dataDir, PRINT_LOG_FILE_NAME), '["7:torn",{"id":"to');
    const again = await openIn(dataDir, clock);
    expect(await again.prints.get(7, `v${edits - 1}`)).toBeDefined();
    // The torn bytes left the file: the next line is whole, and read back after another start.
    again.prints.put(7, samplePrint({ id: 'after', itemId: 'b9', sentAt: clock.now() + edits }));
    await again.close();
    expect((await (await openIn(dataDir, clock)).prints.get(7, 'after'))?.itemId).toBe('b9');
  });

  it('reads a print back from its line and checks it: a line changed outside the bot records nothing', async () => {
    const clock = new ManualClock(10_000);
    const dataDir = await tempDir();
    const store = await openIn(dataDir, clock);
    store.updateUser(7, () => undefined, { chatId: 70 });
    store.prints.put(7, samplePrint({ sentAt: clock.now() }));
    store.prints.put(7, samplePrint({ id: 'p2', itemId: 'b2', sentAt: clock.now() }));
    const file = join(dataDir, PRINT_LOG_FILE_NAME);
    const text = await readFile(file, 'utf8');
    const [first, second] = text.split('\n');
    // Odds of 0.1 (no print has odds of 1 or less), the same length: the offsets still hold.
    await writeFile(file, `${first!.replace('"odds":2.1', '"odds":0.1')}\n${second}\n`);
    expect(await store.prints.get(7, 'p1')).toBeUndefined();
    expect((await store.prints.get(7, 'p2'))?.itemId).toBe('b2');
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
