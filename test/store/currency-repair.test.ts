/**
 * A currency set with `/settings currency` before the user record held one lived only in the
 * ledger's settings, so that user's alerts printed bare stakes. Both stores copy it onto the record
 * once, and touch no record that has a currency of its own or a ledger without one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { CURRENCY_REPAIRED_FIELD } from '../../src/store/currency-repair.js';
import { DB_FILE_NAME, openStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/port.js';
import { removeTempDirs, tempDir } from './fixtures.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('currency-repair');
afterEach(removeTempDirs);

/** Users 1–4 as an older build left them: no currency on any record, the ledger's currency as given. */
async function olderUsers(store: Store, ledger: Record<number, string | null>, own: Record<number, string> = {}) {
  for (const id of [1, 2, 3, 4]) store.updateUser(id, (u) => void (u.currency = own[id] ?? null), { chatId: id });
  for (const [id, currency] of Object.entries(ledger)) await store.ledger.updateSettings(Number(id), { currency });
}

const currencies = (store: Store) => [1, 2, 3, 4].map((id) => store.getUser(id)?.currency);

describe('the embedded store', () => {
  it('copies the ledger’s currency onto a record without one at open, and writes the file at once', async () => {
    const dataDir = await tempDir();
    const before = await openStore({ dataDir, logger: silentLogger });
    // 1: EUR in the ledger only; 2: its own USD beside the ledger's EUR; 3: a ledger without one; 4: no ledger.
    await olderUsers(before, { 1: 'EUR', 2: 'EUR', 3: null }, { 2: 'USD' });
    await before.close();
    const after = await openStore({ dataDir, logger: silentLogger });
    expect(currencies(after)).toEqual(['EUR', 'USD', null, null]);
    const file = JSON.parse(await readFile(join(dataDir, DB_FILE_NAME), 'utf8')) as { users: Record<string, { currency: string | null }> };
    expect(file.users['1']?.currency).toBe('EUR');
    await after.close();
  });
});

describe.skipIf(!redis.available)('the Redis store', () => {
  it('copies it once for the whole store: at the first open after the upgrade, never again', async () => {
    const first = await stores.open();
    const prefix = stores.prefixOf(first);
    await olderUsers(first, { 1: 'EUR', 2: 'EUR', 3: null }, { 2: 'USD' });
    await first.flush();
    // The store as an older build left it: never repaired.
    await stores.raw().hdel(stores.keys(first).meta, CURRENCY_REPAIRED_FIELD);
    const upgraded = await stores.open({ prefix });
    expect(currencies(upgraded)).toEqual(['EUR', 'USD', null, null]);
    // Written to Redis: a third process reads it from the record.
    expect(currencies(await stores.open({ prefix }))).toEqual(['EUR', 'USD', null, null]);
    // Repaired once: a user who takes the currency off the record later is not given it back at the next open.
    upgraded.updateUser(1, (u) => void (u.currency = null));
    await upgraded.flush();
    expect(currencies(await stores.open({ prefix }))).toEqual([null, 'USD', null, null]);
  });
});
