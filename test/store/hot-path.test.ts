/**
 * The store's hot path (issue 11 item 4): status changes without a whole-record clone and schema
 * pass, alert entries checked by hand, and the file written from cached JSON parts. Each must keep
 * what the slow path guaranteed: the same records, the same refusals, and a file that reloads to
 * exactly what is in memory after any sequence of changes.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { checkedEntry } from '../../src/store/alert-state.js';
import { StoreError } from '../../src/store/errors.js';
import { alertEntrySchema, type AlertEntry } from '../../src/store/schema.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { entry, removeTempDirs, tempDir } from './fixtures.js';

const open: JsonStore[] = [];

async function openAt(dataDir: string): Promise<JsonStore> {
  const store = await openStore({ dataDir, logger: silentLogger, debounceMs: 5 });
  open.push(store);
  return store;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
  await removeTempDirs();
});

/** Everything the store holds, as plain data (entries by id: a JSON object lists integer-like keys first, as it always did). */
function contents(store: JsonStore): unknown {
  return {
    users: store.listUsers().map((u) => structuredClone(u)),
    alerts: ['1:arbs_live', '1:arbs_prematch', '2:arbs_live'].map((k) => store.alerts.entries(k).sort(([x], [y]) => x.localeCompare(y))),
  };
}

describe('store: status changes on the hot path', () => {
  it('gives the record updateUser would give, frozen, saved and read back', async () => {
    const dir = await tempDir();
    const a = await openAt(dir);
    a.updateUser(1, () => undefined, { chatId: 10 });
    a.updateUser(2, () => undefined, { chatId: 20 });
    const fast = a.updateStatus(1, 'arbs_live', { lastGoodReadAt: 5 });
    a.updateUser(2, (d) => {
      d.status.arbs_live = { lastGoodReadAt: 5, lastAlertAt: null, lastError: null };
    });
    expect(fast).toEqual({ ...a.getUser(2), id: 1, chatId: 10, createdAt: fast?.createdAt });
    a.updateStatus(1, 'arbs_live', { lastAlertAt: 7, lastError: { kind: 'server', at: 6 } });
    expect(a.getUser(1)?.status.arbs_live).toEqual({ lastGoodReadAt: 5, lastAlertAt: 7, lastError: { kind: 'server', at: 6 } });
    expect(Object.isFrozen(a.getUser(1)?.status.arbs_live?.lastError)).toBe(true);
    expect(() => {
      (a.getUser(1)!.status.arbs_live as { lastAlertAt: number }).lastAlertAt = 1;
    }).toThrow(TypeError);
    expect(a.updateStatus(99, 'arbs_live', { lastAlertAt: 1 })).toBeUndefined();
    expect(a.getUser(99)).toBeUndefined();
    await a.close();
    const b = await openAt(dir);
    expect(b.getUser(1)?.status.arbs_live).toEqual({ lastGoodReadAt: 5, lastAlertAt: 7, lastError: { kind: 'server', at: 6 } });
  });

  it('refuses a value the schema refuses, changing nothing', async () => {
    const a = await openAt(await tempDir());
    a.updateUser(1, () => undefined, { chatId: 10 });
    const before = a.getUser(1);
    for (const bad of [{ lastAlertAt: Number.NaN }, { lastGoodReadAt: Infinity }, { lastError: { kind: 'x', at: Number.NaN } }]) {
      try {
        a.updateStatus(1, 'arbs_live', bad);
        throw new Error('expected a refusal');
      } catch (e) {
        expect(e).toBeInstanceOf(StoreError);
        expect((e as StoreError).code).toBe('invalid-user');
      }
    }
    expect(a.getUser(1)).toBe(before);
  });
});

describe('store: alert entries checked by hand', () => {
  const bad: Record<string, unknown>[] = [
    { profit: Number.NaN },
    { profit: Infinity },
    { odds: [1.5, Number.NaN] },
    { odds: 'x' },
    { chatId: 1.5 },
    { chatId: 2 ** 53 },
    { messageId: undefined },
    { messageId: 0.5 },
    { goneAt: undefined },
    { eventId: 5 },
    { lastEditAt: null },
    { goneShown: 'yes' },
    { sentKey: '' },
    { sentKey: 'k'.repeat(513) },
    { sentKey: 7 },
  ];

  it('accepts nothing the schema refuses, and what it accepts is what the schema would store', () => {
    for (const change of bad) {
      const e = { ...entry(), ...change } as AlertEntry;
      expect(alertEntrySchema.safeParse(e).success, JSON.stringify(change)).toBe(false);
      expect(checkedEntry(e), JSON.stringify(change)).toBeUndefined();
    }
    for (const good of [entry(), entry({ goneShown: true, goneAt: 5, messageId: null, profit: null }), entry({ messageId: null, sentKey: '1:arbs:a:chat:10:new:-:filter:-' }), { ...entry(), extra: 1 } as AlertEntry]) {
      expect(checkedEntry(good)).toEqual(alertEntrySchema.parse(good));
    }
    // A fresh object: the caller's entry is never aliased.
    const mine = entry();
    const kept = checkedEntry(mine)!;
    expect(kept).not.toBe(mine);
    expect(kept.odds).not.toBe(mine.odds);
  });
});

describe('store: the file written from cached parts', () => {
  it('reloads to exactly what was in memory after changes to some users and subscriptions between writes', async () => {
    const dir = await tempDir();
    const a = await openAt(dir);
    a.updateUser(1, () => undefined, { chatId: 10, lang: 'ru' });
    a.updateUser(2, () => undefined, { chatId: 20 });
    a.alerts.set('1:arbs_live', 'a', entry({ profit: 1 }));
    a.alerts.set('1:arbs_live', '123', entry({ profit: 2 }));
    a.alerts.set('1:arbs_prematch', 'b', entry({ profit: 3 }));
    a.alerts.set('2:arbs_live', 'c', entry({ profit: 4 }));
    await a.flush();
    // Between writes: one subscription changed, one emptied, one user changed by each path.
    a.alerts.set('1:arbs_live', 'a', entry({ profit: 9 }));
    a.alerts.delete('1:arbs_prematch', 'b');
    a.updateStatus(2, 'arbs_live', { lastGoodReadAt: 11 });
    a.updateUser(1, (d) => void (d.bankroll = 77));
    await a.flush();
    a.alerts.prune({ goneBefore: 0, seenBefore: 0 });
    a.alerts.set('2:arbs_live', 'd', entry({ goneAt: 3 }));
    a.alerts.prune({ goneBefore: 4, seenBefore: 0 });
    await a.flush();
    const expected = contents(a);
    const onDisk = JSON.parse(await readFile(a.file, 'utf8')) as { users: Record<string, unknown>; alerts: Record<string, Record<string, AlertEntry>> };
    expect(onDisk.alerts['1:arbs_live']?.a?.profit).toBe(9);
    expect(onDisk.alerts['1:arbs_prematch']).toBeUndefined();
    await a.close();
    const b = await openAt(dir);
    expect(b.loadReport).toEqual({});
    expect(contents(b)).toEqual(expected);
    expect(b.getUser(1)?.bankroll).toBe(77);
    expect(b.getUser(2)?.status.arbs_live?.lastGoodReadAt).toBe(11);
    expect(b.alerts.entries('2:arbs_live').map(([id]) => id)).toEqual(['c']);
  });
});
