/**
 * A wrong or changed encryption key is refused at start-up with one line naming ENCRYPTION_KEY
 * (a fingerprint beside the data, or a test decryption when there is none yet), instead of
 * pausing every user as if the service had refused their keys; users paused that way by an
 * earlier version are resumed once the key is right.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { filterSettingsSchema } from '../../src/service/filter-model.js';
import { VaultError } from '../../src/store/errors.js';
import { checkEncryptionKey, KEY_CHECK_FILE_NAME } from '../../src/store/key-check.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { removeTempDirs, tempDir } from './fixtures.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined)));
  await removeTempDirs();
});

async function setUp(): Promise<{ dir: string; store: Store }> {
  const dir = await tempDir();
  const store = await openStore({ dataDir: dir, logger: silentLogger });
  stores.push(store);
  const vault = await Vault.open({ dataDir: dir, envKey: KEY_A, logger: silentLogger });
  store.updateUser(
    7,
    (u) => {
      u.key = { accessKey: 'ak-7', secretEnc: vault.encrypt('secret-7'), connectedAt: 1 };
      // As an earlier version left it after a start with the wrong key.
      u.filters.arbs_prematch = { settings: filterSettingsSchema.parse({}), paused: true, pausedReason: 'auth', savedAt: 1 };
      u.filters.arbs_live = { settings: filterSettingsSchema.parse({}), paused: true, pausedReason: 'user', savedAt: 1 };
    },
    { chatId: 7 },
  );
  return { dir, store };
}

const check = async (dir: string, store: Store, key: string) =>
  checkEncryptionKey({ dataDir: dir, store, vault: await Vault.open({ dataDir: dir, envKey: key, logger: silentLogger }), logger: silentLogger });

async function refusal(promise: Promise<unknown>): Promise<VaultError> {
  const err = await promise.then(() => new Error('accepted'), (e: unknown) => e);
  expect(err).toBeInstanceOf(VaultError);
  expect((err as VaultError).code).toBe('wrong-key');
  expect((err as VaultError).message).toMatch(/^ENCRYPTION_KEY does not match/);
  expect((err as VaultError).message.split('\n')).toHaveLength(1);
  return err as VaultError;
}

describe('the encryption key check at start-up', () => {
  it('without a fingerprint yet: a key that opens no stored secret is refused, and nothing changes', async () => {
    const { dir, store } = await setUp();
    await refusal(check(dir, store, KEY_B));
    expect(store.getUser(7)?.filters.arbs_prematch?.paused).toBe(true);
    await expect(readFile(join(dir, KEY_CHECK_FILE_NAME))).rejects.toThrow();
  });

  it('the right key writes the fingerprint and resumes subscriptions an earlier version paused for a refused key', async () => {
    const { dir, store } = await setUp();
    expect(await check(dir, store, KEY_A)).toEqual({ resumed: 1, fingerprinted: true, stored: 1 });
    expect(store.getUser(7)?.filters.arbs_prematch).toMatchObject({ paused: false, pausedReason: null });
    // A user's own pause is theirs.
    expect(store.getUser(7)?.filters.arbs_live).toMatchObject({ paused: true, pausedReason: 'user' });
    const fingerprint = (await readFile(join(dir, KEY_CHECK_FILE_NAME), 'utf8')).trim();
    expect(fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprint).not.toContain(KEY_A.slice(0, 8));
    // Later starts compare with the fingerprint: the right key passes, another is refused.
    expect(await check(dir, store, KEY_A)).toEqual({ resumed: 0, fingerprinted: true, stored: 1 });
    const err = await refusal(check(dir, store, KEY_B));
    expect(err.message).toContain(KEY_CHECK_FILE_NAME);
    // With no secret left to protect, any key is accepted and the old fingerprint removed: the
    // new one is written with the next stored secret, not before.
    store.deleteUser(7);
    expect(await check(dir, store, KEY_B)).toEqual({ resumed: 0, fingerprinted: false, stored: 0 });
    await expect(readFile(join(dir, KEY_CHECK_FILE_NAME))).rejects.toThrow();
  });

  it('another process never reads the fingerprint half-written, so one starting beside it (npm run cluster) is not refused', async () => {
    const { dir, store } = await setUp();
    const file = join(dir, KEY_CHECK_FILE_NAME);
    const seen = new Set<string>();
    let writing = true;
    const readers = Array.from({ length: 3 }, async () => {
      while (writing) seen.add(await readFile(file, 'utf8').catch(() => 'none'));
    });
    for (let i = 0; i < 300; i++) {
      await rm(file, { force: true });
      await check(dir, store, KEY_A);
    }
    writing = false;
    await Promise.all(readers);
    const fingerprint = await readFile(file, 'utf8');
    expect(fingerprint).toMatch(/^[0-9a-f]{32}\n$/);
    expect([...seen].filter((text) => text !== 'none' && text !== fingerprint)).toEqual([]);
    expect((await readdir(dir)).filter((f) => f.includes(KEY_CHECK_FILE_NAME))).toEqual([KEY_CHECK_FILE_NAME]);
  });
});
