/**
 * The embedded store's sent-journal (issue 24 item 5): what a killed process leaves in DATA_DIR is
 * copied to a fresh directory and opened there, as the next run would find it. The real kill -9 of
 * the real bot is test/store/kill-journal.test.ts; this file covers the journal's rules one by one,
 * and measures the cost of one journaled send.
 */
import { appendFile, copyFile, mkdir, readdir, readFile, rmdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { JOURNAL_FILE_NAME, mergeJournaled, readJournal, SentJournal } from '../../src/store/sent-journal.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { captureLogs, WARN } from '../support/logs.js';
import { entry, removeTempDirs, tempDir } from './fixtures.js';

const open: JsonStore[] = [];
const journals: SentJournal[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  for (const j of journals.splice(0)) j.close();
  await removeTempDirs();
});

async function openAt(dataDir: string): Promise<JsonStore> {
  // Writes far off: nothing reaches db.json on its own during a test.
  const store = await openStore({ dataDir, logger: silentLogger, debounceMs: 60_000, lazyWriteMs: 60_000 });
  open.push(store);
  return store;
}

/** The files a `kill -9` would leave behind, copied to a new DATA_DIR (the live store keeps its lock on the old one). */
async function afterKill(dataDir: string): Promise<string> {
  const next = await tempDir();
  for (const name of await readdir(dataDir)) {
    if (name === 'db.json' || name.startsWith(JOURNAL_FILE_NAME)) await copyFile(join(dataDir, name), join(next, name));
  }
  return next;
}

/** A store with users 1 and 2 written to db.json, and no alert state yet. */
async function withUsers(): Promise<{ dir: string; store: JsonStore }> {
  const dir = await tempDir();
  const store = await openAt(dir);
  store.updateUser(1, (d) => void (d.key = { accessKey: 'access-one', secretEnc: 'sealed-secret', connectedAt: 1 }), { chatId: 1 });
  store.updateUser(2, () => undefined, { chatId: 2 });
  await store.flush();
  return { dir, store };
}

describe('the sent-journal across a kill', () => {
  it('keeps a send answered after the last db.json write, and folds it into db.json at open', async () => {
    const { dir, store } = await withUsers();
    // The diff's entry, then the answer's message id: the second set is the one journaled.
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: null, chatId: 1 }));
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 77, chatId: 1, sig: 'arbs_live|ev-1|s0/1//7' }));
    const journal = join(dir, JOURNAL_FILE_NAME);
    expect((await stat(journal)).mode & 0o777).toBe(0o600);
    // Ids and figures only: no key or secret of the user reaches the journal.
    const text = await readFile(journal, 'utf8');
    expect(text).not.toContain('access-one');
    expect(text).not.toContain('sealed-secret');

    const next = await afterKill(dir);
    const reopened = await openAt(next);
    expect(reopened.alerts.get('1:arbs_live', 'item-a')?.messageId).toBe(77);
    // The arb's signature too (one message per arb after a kill -9).
    expect(reopened.alerts.get('1:arbs_live', 'item-a')?.sig).toBe('arbs_live|ev-1|s0/1//7');
    // Folded: db.json holds it, the journal is gone.
    const db = JSON.parse(await readFile(join(next, 'db.json'), 'utf8')) as { alerts: Record<string, Record<string, { messageId: number }>> };
    expect(db.alerts['1:arbs_live']?.['item-a']?.messageId).toBe(77);
    expect(existsSync(join(next, JOURNAL_FILE_NAME))).toBe(false);
  });

  it('skips a line torn by a kill in the middle of its write, and keeps the lines before it', async () => {
    const { dir, store } = await withUsers();
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 5, chatId: 1 }));
    const next = await afterKill(dir);
    await appendFile(join(next, JOURNAL_FILE_NAME), '["1:arbs_live","item-b",{"eventId":"ev-1","chatId":1,"messageId":6,"fir');
    const log = captureLogs('info');
    const reopened = await openStore({ dataDir: next, logger: log.logger, debounceMs: 60_000 });
    open.push(reopened);
    expect(reopened.alerts.get('1:arbs_live', 'item-a')?.messageId).toBe(5);
    expect(reopened.alerts.get('1:arbs_live', 'item-b')).toBeUndefined();
    expect(log.records().find((r) => String(r.msg).startsWith('folded the sent-journal'))).toMatchObject({ lines: 1, applied: 1, torn: 1 });
  });

  it('leaves a user deleted after the send deleted, though a line of theirs outlived the write that deleted them', async () => {
    const { dir, store } = await withUsers();
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 8, chatId: 1 }));
    // A failed write: its lines stay set aside, and the next lines go to the journal beside them.
    await mkdir(join(dir, '.db.json.tmp'));
    await expect(store.flush()).rejects.toThrow();
    store.alerts.set('2:arbs_live', 'item-a', entry({ messageId: 9, chatId: 2 }));
    store.deleteUser(2);
    await rmdir(join(dir, '.db.json.tmp'));
    await store.flush();
    expect(readJournal(join(dir, JOURNAL_FILE_NAME)).records.map(([subKey]) => subKey)).toEqual(['2:arbs_live']);
    const reopened = await openAt(await afterKill(dir));
    expect(reopened.getUser(2)).toBeUndefined();
    expect(reopened.alerts.entries('2:arbs_live')).toEqual([]);
  });

  it('drops the lines a db.json write holds once it is written, and keeps those that came after its snapshot', async () => {
    const { dir, store } = await withUsers();
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 1, chatId: 1 }));
    const writing = store.flush();
    // Answered while the write is under way: not in its snapshot.
    store.alerts.set('1:arbs_live', 'item-b', entry({ messageId: 2, chatId: 1 }));
    await writing;
    expect(readJournal(join(dir, JOURNAL_FILE_NAME)).records.map(([, itemId]) => itemId)).toEqual(['item-b']);
  });

  it('keeps the lines of a failed db.json write, so a kill after it still finds them', async () => {
    const { dir, store } = await withUsers();
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 3, chatId: 1 }));
    // A directory where the temp file goes makes the write fail.
    await mkdir(join(dir, '.db.json.tmp'));
    await expect(store.flush()).rejects.toThrow();
    store.alerts.set('1:arbs_live', 'item-b', entry({ messageId: 4, chatId: 1 }));
    const reopened = await openAt(await afterKill(dir));
    expect(reopened.alerts.get('1:arbs_live', 'item-a')?.messageId).toBe(3);
    expect(reopened.alerts.get('1:arbs_live', 'item-b')?.messageId).toBe(4);
    await rmdir(join(dir, '.db.json.tmp'));
  });

  it('leaves no journal after a clean close, and none in an idle DATA_DIR', async () => {
    const { dir, store } = await withUsers();
    expect(await readdir(dir)).toEqual(['bot.lock', 'db.json']);
    store.alerts.set('1:arbs_live', 'item-a', entry({ messageId: 3, chatId: 1 }));
    expect(await readdir(dir)).toContain(JOURNAL_FILE_NAME);
    await store.close();
    expect(await readdir(dir)).toEqual(['db.json']);
  });
});

describe('SentJournal', () => {
  it('keeps sealed lines until folded, and a second seal before the fold moves nothing (a failed write)', async () => {
    const file = join(await tempDir(), JOURNAL_FILE_NAME);
    const j = SentJournal.open(file, silentLogger);
    journals.push(j);
    j.append('1:arbs_live', 'a', entry());
    j.seal();
    j.append('1:arbs_live', 'b', entry());
    // The write of the first snapshot failed: the next snapshot seals again.
    j.seal();
    j.append('1:arbs_live', 'c', entry());
    expect(readJournal(file).records.map(([, id]) => id)).toEqual(['a', 'b', 'c']);
    j.folded();
    // The written snapshot held all three; a goes, b and c stay (replaying them is harmless).
    expect(readJournal(file).records.map(([, id]) => id)).toEqual(['b', 'c']);
  });

  it('stops growing at its bound, with one warning, instead of filling the disk', async () => {
    const file = join(await tempDir(), JOURNAL_FILE_NAME);
    const log = captureLogs('info');
    const j = SentJournal.open(file, log.logger, 1_000);
    journals.push(j);
    for (let i = 0; i < 50; i++) j.append('1:arbs_live', `item-${i}`, entry());
    expect((await stat(file)).size).toBeLessThanOrEqual(1_000);
    expect(j.bytes).toBe((await stat(file)).size);
    expect(log.records().filter((r) => r.level === WARN && String(r.msg).includes('sent-journal is full'))).toHaveLength(1);
  });

  it('costs a few microseconds per journaled send (one synchronous write)', async () => {
    const file = join(await tempDir(), JOURNAL_FILE_NAME);
    const j = SentJournal.open(file, silentLogger);
    journals.push(j);
    const e = entry({ eventId: '1234567890', odds: [2.15, 1.98] });
    const n = 5_000;
    j.append('123456789:arbs_prematch', 'warm-up', e);
    const started = performance.now();
    for (let i = 0; i < n; i++) j.append('123456789:arbs_prematch', `0123456789abcd${i}`, { ...e, messageId: i });
    const perSendUs = ((performance.now() - started) * 1_000) / n;
    console.warn(`sent-journal: ${perSendUs.toFixed(1)} µs per journaled send (${n} sends, ${(j.bytes / (n + 1)).toFixed(0)} bytes a line)`);
    // Generous for a shared 2-core machine; the point is that it is no fsync (milliseconds).
    expect(perSendUs).toBeLessThan(200);
  });
});

describe('mergeJournaled', () => {
  const sent = entry({ messageId: 50, firstSeenAt: 1_000, lastSeenAt: 1_500 });
  it('takes the journal when db.json has no entry or an older sighting', () => {
    expect(mergeJournaled(undefined, sent)).toEqual(sent);
    expect(mergeJournaled(entry({ firstSeenAt: 500, messageId: 3 }), sent)).toEqual(sent);
  });
  it("keeps db.json's newer figures of the same sighting and adds the message id", () => {
    expect(mergeJournaled(entry({ messageId: null, firstSeenAt: 1_000, lastSeenAt: 9_000 }), sent)).toEqual(entry({ messageId: 50, firstSeenAt: 1_000, lastSeenAt: 9_000 }));
  });
  it('leaves an entry db.json already knows sent, or a later sighting', () => {
    expect(mergeJournaled(entry({ messageId: 50, firstSeenAt: 1_000 }), sent)).toBeUndefined();
    expect(mergeJournaled(entry({ messageId: null, firstSeenAt: 2_000 }), sent)).toBeUndefined();
  });
});
