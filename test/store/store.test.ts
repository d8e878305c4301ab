import { mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/port.js';
import { SCHEMA_VERSION, type UserRecord } from '../../src/store/schema.js';
import { writeDelay } from '../../src/store/json-writer.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { captureLogs, WARN } from '../support/logs.js';
import { storeContract } from './contract.js';
import { entry, removeTempDirs, tempDir } from './fixtures.js';

const open: JsonStore[] = [];

async function openAt(dataDir: string, opts: { debounceMs?: number; lazyWriteMs?: number; clock?: ManualClock } = {}): Promise<JsonStore> {
  const store = await openStore({ dataDir, logger: silentLogger, ...opts });
  open.push(store);
  return store;
}

async function fileJson(store: JsonStore): Promise<{ version: number; users: Record<string, UserRecord>; alerts: Record<string, unknown> }> {
  return JSON.parse(await readFile(store.file, 'utf8')) as {
    version: number;
    users: Record<string, UserRecord>;
    alerts: Record<string, unknown>;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  await removeTempDirs();
});

describe('the embedded store: the store contract', () => {
  const asJson = (store: Store): JsonStore => open.find((s) => s === store) ?? expect.unreachable('a store this suite opened');
  storeContract({
    open: async (opts) => openAt(await tempDir(), opts),
    reopen: (store) => openAt(join(asJson(store).file, '..')),
    persisted: async (store) => {
      const saved = await fileJson(asJson(store));
      return { users: Object.keys(saved.users).sort(), alertSubs: Object.keys(saved.alerts).sort() };
    },
    writeCount: (store) => asJson(store).writeCount,
    protoIdSurvivesReload: false,
  });
});

describe('store: round trip', () => {
  it('creates DATA_DIR when missing and writes db.json with mode 0600', async () => {
    const dir = join(await tempDir(), 'nested', 'data');
    const store = await openAt(dir);
    store.updateUser(1, () => undefined, { chatId: 1 });
    await store.flush();
    expect(store.file).toBe(join(dir, 'db.json'));
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect((await fileJson(store)).version).toBe(SCHEMA_VERSION);
  });
});

describe('store: debounced, atomic writes', () => {
  it('turns 1,000 changes within one debounce window into one write', async () => {
    const store = await openAt(await tempDir(), { debounceMs: 40 });
    for (let i = 0; i < 500; i++) store.updateUser(i, (u) => void (u.bankroll = 100 + i), { chatId: i });
    for (let i = 0; i < 500; i++) store.alerts.set(`${i}:arbs_live`, `item-${i}`, entry({ lastSeenAt: i }));
    expect(store.writeCount).toBe(0);
    // The window ends after 40 ms; the write itself (1,000 records, a temp file and a rename) may
    // take a busy machine's hundreds of ms more. What counts is that it is one write, not when.
    await vi.waitFor(() => expect(store.writeCount).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 20 });
    await sleep(150);
    expect(store.writeCount).toBeLessThanOrEqual(2);
    const saved = await fileJson(store);
    expect(Object.keys(saved.users)).toHaveLength(500);
    expect(saved.users['499']?.bankroll).toBe(599);
    expect(Object.keys(saved.alerts)).toHaveLength(500);
  });

  it('writes at most once per debounce window while changes keep coming', async () => {
    const store = await openAt(await tempDir(), { debounceMs: 60 });
    store.updateUser(1, () => undefined, { chatId: 1 });
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 300) {
      store.alerts.set('1:arbs_live', `item-${n % 50}`, entry({ lastSeenAt: n }));
      n += 1;
      await sleep(2);
    }
    const elapsed = Date.now() - started;
    await store.flush();
    // One armed timer per window, plus the final flush.
    expect(store.writeCount).toBeLessThanOrEqual(Math.ceil(elapsed / 60) + 1);
    expect(store.writeCount).toBeGreaterThanOrEqual(2);
    expect(n).toBeGreaterThan(store.writeCount * 5);
    expect(store.alerts.get('1:arbs_live', `item-${(n - 1) % 50}`)?.lastSeenAt).toBe(n - 1);
    const saved = await fileJson(store);
    expect(JSON.stringify(saved.alerts)).toContain(`"lastSeenAt":${n - 1}`);
  });

  it('writes the bot’s own bookkeeping later than a user’s change, and a user’s change brings it forward', async () => {
    const store = await openAt(await tempDir(), { debounceMs: 40, lazyWriteMs: 2_000 });
    store.updateUser(1, () => undefined, { chatId: 1 });
    await store.flush();
    const written = store.writeCount;
    /** Resolves with how long it took until the file was written `n` more times (or gives up after 5 s). */
    const writtenAfter = async (n: number) => {
      const started = Date.now();
      while (store.writeCount < written + n && Date.now() - started < 5_000) await sleep(10);
      return Date.now() - started;
    };
    // A read's status and an alert entry: nobody waits for them.
    const changedAt = Date.now();
    store.updateStatus(1, 'arbs_live', { lastGoodReadAt: 5 });
    store.alerts.set('1:arbs_live', 'item-1', entry());
    await sleep(300);
    expect(store.writeCount).toBe(written);
    await writtenAfter(1);
    expect(Date.now() - changedAt).toBeGreaterThanOrEqual(1_990);
    expect((await fileJson(store)).users['1']?.status?.arbs_live?.lastGoodReadAt).toBe(5);
    // Bookkeeping first, then a user's change: both go within the short wait.
    store.updateStatus(1, 'arbs_live', { lastGoodReadAt: 6 });
    store.updateUser(1, (u) => void (u.lang = 'ru'));
    expect(await writtenAfter(2)).toBeLessThan(1_500);
    expect((await fileJson(store)).users['1']?.status?.arbs_live?.lastGoodReadAt).toBe(6);
  });

  it('spaces writes of a large file by what serializing it cost, within half a minute', () => {
    expect(writeDelay(500, 3)).toBe(500);
    expect(writeDelay(500, 50)).toBe(500);
    expect(writeDelay(500, 400)).toBe(4_000);
    expect(writeDelay(500, 60_000)).toBe(30_000);
    expect(writeDelay(60_000, 1)).toBe(60_000);
  });

  it('flush writes only when something changed, and close writes a pending change at once', async () => {
    const dir = await tempDir();
    const store = await openAt(dir, { debounceMs: 60_000 });
    await store.flush();
    expect(store.writeCount).toBe(0);
    store.updateUser(3, (u) => void (u.lang = 'ru'), { chatId: 3 });
    await store.close();
    expect(store.writeCount).toBe(1);
    expect((await fileJson(store)).users['3']?.lang).toBe('ru');
  });

  it('replaces the file by rename and leaves no temp file behind', async () => {
    const dir = await tempDir();
    const store = await openAt(dir, { debounceMs: 5 });
    store.updateUser(1, () => undefined, { chatId: 1 });
    await store.flush();
    const first = (await stat(store.file)).ino;
    store.updateUser(1, (u) => void (u.bankroll = 5), { chatId: 1 });
    await store.flush();
    // A new inode: the file was renamed into place, never rewritten where it stood.
    expect((await stat(store.file)).ino).not.toBe(first);
    expect(await readdir(dir)).toEqual(['bot.lock', 'db.json']);
  });

  it('keeps the old file when a write fails, and saves the change on a later flush', async () => {
    const dir = await tempDir();
    const store = await openAt(dir, { debounceMs: 10_000 });
    store.updateUser(1, (u) => void (u.bankroll = 10), { chatId: 1 });
    await store.flush();
    const before = await readFile(store.file, 'utf8');
    // A directory where the temp file goes makes the next write fail.
    await mkdir(join(dir, '.db.json.tmp'));
    store.updateUser(1, (u) => void (u.bankroll = 20));
    expect(store.writable()).toBe(true);
    await expect(store.flush()).rejects.toThrow();
    expect(store.writable()).toBe(false);
    expect(await readFile(store.file, 'utf8')).toBe(before);
    await rmdir(join(dir, '.db.json.tmp'));
    await store.flush();
    expect(store.writable()).toBe(true);
    expect((await fileJson(store)).users['1']?.bankroll).toBe(20);
    expect(await readdir(dir)).toEqual(['bot.lock', 'db.json']);
    await store.close();
    expect(store.writable()).toBe(false);
  });

  it('removes a temp file left by a crashed write and keeps db.json as it was', async () => {
    const dir = await tempDir();
    const a = await openAt(dir);
    a.updateUser(1, () => undefined, { chatId: 1 });
    await a.close();
    await writeFile(join(dir, '.db.json.tmp'), '{"version":1,"us');
    const b = await openAt(dir);
    expect(b.getUser(1)?.chatId).toBe(1);
    expect(await readdir(dir)).toEqual(['bot.lock', 'db.json']);
  });
});

describe('store: corrupt files', () => {
  it('moves a file that is not JSON aside, reports it, warns, and starts empty', async () => {
    const dir = await tempDir();
    const clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0, 0));
    const text = '{"version":1,"users":{"1":{"key":{"accessKey":"AK-LEAK","secretEnc":"SECRET-LEAK"';
    await writeFile(join(dir, 'db.json'), text);
    const log = captureLogs();
    const store = await openStore({ dataDir: dir, logger: log.logger, clock });
    open.push(store);

    const movedAside = join(dir, 'db.json.corrupt-2026-01-03T10-00-00-000Z');
    expect(store.loadReport.movedAside).toBe(movedAside);
    expect(store.loadReport.corruptReason).toBe('not valid JSON');
    expect(await readFile(movedAside, 'utf8')).toBe(text);
    expect(store.listUsers()).toEqual([]);
    expect(store.alerts.size()).toBe(0);
    const warn = log.records().find((r) => r.level === WARN);
    expect(warn).toMatchObject({ movedAside, reason: 'not valid JSON' });
    // JSON.parse quotes the text it choked on; none of it may reach the log.
    expect(log.text()).not.toContain('LEAK');

    // The fresh store writes a new db.json; the moved file stays as it was.
    store.updateUser(2, () => undefined, { chatId: 2 });
    await store.flush();
    expect(await readFile(movedAside, 'utf8')).toBe(text);
  });

  it('moves a file failing the schema aside, naming the failing path', async () => {
    const dir = await tempDir();
    const bad = { version: 1, users: { '5': { id: 5, lang: 'en', createdAt: 1 } }, alerts: {} };
    await writeFile(join(dir, 'db.json'), JSON.stringify(bad));
    const store = await openAt(dir, { clock: new ManualClock(0) });
    expect(store.loadReport.movedAside).toBe(join(dir, 'db.json.corrupt-1970-01-01T00-00-00-000Z'));
    expect(store.loadReport.corruptReason).toMatch(/users\.5\.chatId/);
    expect(store.getUser(5)).toBeUndefined();
    expect(await readdir(dir)).toEqual(['bot.lock', 'db.json.corrupt-1970-01-01T00-00-00-000Z']);
  });

  it('never overwrites an earlier moved-aside file', async () => {
    const dir = await tempDir();
    const clock = new ManualClock(0);
    await writeFile(join(dir, 'db.json'), 'first');
    await (await openAt(dir, { clock })).close();
    await writeFile(join(dir, 'db.json'), 'second');
    const store = await openAt(dir, { clock });
    const base = join(dir, 'db.json.corrupt-1970-01-01T00-00-00-000Z');
    expect(store.loadReport.movedAside).toBe(`${base}-1`);
    expect(await readFile(base, 'utf8')).toBe('first');
    expect(await readFile(`${base}-1`, 'utf8')).toBe('second');
  });

  it('moves aside an alert state entry that fails the schema, and a user stored under another id', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'db.json'), JSON.stringify({ version: 1, users: {}, alerts: { '1:arbs_live': { x: { eventId: 1 } } } }));
    expect((await openAt(dir)).loadReport.corruptReason).toMatch(/alerts\.1:arbs_live\.x/);

    const dir2 = await tempDir();
    const user = { id: 9, chatId: 9, createdAt: 1 };
    await writeFile(join(dir2, 'db.json'), JSON.stringify({ version: 1, users: { '8': user } }));
    expect((await openAt(dir2)).loadReport.corruptReason).toBe('fails the schema: users.8 holds user 9');
  });

  it('refuses a file from a newer build and leaves it untouched', async () => {
    const dir = await tempDir();
    const text = JSON.stringify({ version: SCHEMA_VERSION + 1, users: {} });
    await writeFile(join(dir, 'db.json'), text);
    const failure = openStore({ dataDir: dir, logger: silentLogger });
    await expect(failure).rejects.toBeInstanceOf(StoreError);
    await expect(failure).rejects.toMatchObject({ code: 'newer-version' });
    expect(await readdir(dir)).toEqual(['db.json']);
    expect(await readFile(join(dir, 'db.json'), 'utf8')).toBe(text);
  });
});

