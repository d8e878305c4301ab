import { randomBytes } from 'node:crypto';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/store.js';
import { Vault, VaultError } from '../../src/store/vault.js';
import { openCheckedVault } from '../../src/roles/open-vault.js';
import { storedKeyRef } from '../../src/store/key-ref.js';
import { captureLogs, WARN } from '../support/logs.js';
import { removeTempDirs, tempDir } from './fixtures.js';

const SECRET = 'sk_live_Zq8v3LmN0pRt5WxY';
const hexKey = () => randomBytes(32).toString('hex');

async function vaultError(run: () => unknown): Promise<VaultError> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(VaultError);
    return e as VaultError;
  }
  throw new Error('expected a VaultError');
}

afterEach(removeTempDirs);

describe('vault: encryption', () => {
  it('round-trips text, including empty and non-ASCII, with a fresh IV each time', async () => {
    const vault = await Vault.open({ dataDir: await tempDir(), envKey: hexKey(), logger: silentLogger });
    const a = vault.encrypt(SECRET);
    const b = vault.encrypt(SECRET);
    expect(a).toMatch(/^v1:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(SECRET);
    expect(vault.decrypt(a)).toBe(SECRET);
    expect(vault.decrypt(b)).toBe(SECRET);
    expect(vault.decrypt(vault.encrypt(''))).toBe('');
    expect(vault.decrypt(vault.encrypt('ключ 🔑'))).toBe('ключ 🔑');
  });

  it('fails with a wrong key, saying so without the secret or the blob', async () => {
    const dir = await tempDir();
    const blob = (await Vault.open({ dataDir: dir, envKey: hexKey(), logger: silentLogger })).encrypt(SECRET);
    const other = await Vault.open({ dataDir: dir, envKey: hexKey(), logger: silentLogger });
    const err = await vaultError(() => other.decrypt(blob));
    expect(err.code).toBe('auth-failed');
    expect(err.message).toMatch(/encryption key differs/);
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain(blob.split(':')[3]);
    expect(String(err.stack)).not.toContain(SECRET);
  });

  it('fails on any change to the iv, the tag, the data or the version', async () => {
    const vault = await Vault.open({ dataDir: await tempDir(), envKey: hexKey(), logger: silentLogger });
    const blob = vault.encrypt(SECRET);
    const parts = blob.split(':');
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    for (const i of [1, 2, 3]) {
      const tampered = parts.map((p, j) => (j === i ? flip(p) : p)).join(':');
      expect((await vaultError(() => vault.decrypt(tampered))).code).toBe('auth-failed');
    }
    const longer = `${blob}AAAA`;
    expect((await vaultError(() => vault.decrypt(longer))).code).toBe('auth-failed');
    // Relabelled as the bound format, it does not open (with or without an owner).
    expect((await vaultError(() => vault.decrypt(blob.replace(/^v1/, 'v2')))).code).toBe('auth-failed');
    expect((await vaultError(() => vault.decrypt(blob.replace(/^v1/, 'v2'), { userId: 1, accessKey: 'ak' }))).code).toBe('auth-failed');
    expect((await vaultError(() => vault.decrypt(blob.replace(/^v1/, 'v3')))).code).toBe('malformed');
    expect((await vaultError(() => vault.decrypt(parts.slice(0, 3).join(':')))).code).toBe('malformed');
    expect((await vaultError(() => vault.decrypt(`v1:${parts[1]?.slice(2)}:${parts[2]}:${parts[3]}`))).code).toBe('malformed');
    expect((await vaultError(() => vault.decrypt(SECRET))).code).toBe('malformed');
    expect(vault.decrypt(blob)).toBe(SECRET);
  });

  it('never shows its key through JSON or inspect', async () => {
    const key = hexKey();
    const vault = await Vault.open({ dataDir: await tempDir(), envKey: key, logger: silentLogger });
    const shown = `${JSON.stringify({ vault })} ${inspect(vault, { showHidden: true, depth: 5 })}`;
    expect(shown).not.toContain(key);
    expect(shown).not.toContain(Buffer.from(key, 'hex').toString('base64'));
  });
});

describe('vault: ENCRYPTION_KEY', () => {
  it('takes 64 hex or 44 base64 characters for the same key, and makes no key file', async () => {
    const dir = await tempDir();
    const bytes = randomBytes(32);
    const fromHex = await Vault.open({ dataDir: dir, envKey: bytes.toString('hex'), logger: silentLogger });
    const fromBase64 = await Vault.open({ dataDir: dir, envKey: bytes.toString('base64'), logger: silentLogger });
    expect(fromHex.keySource).toBe('env');
    expect(fromBase64.decrypt(fromHex.encrypt(SECRET))).toBe(SECRET);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a key in no known form without echoing it', async () => {
    const dir = await tempDir();
    for (const bad of ['abc123', `${'z'.repeat(64)}`, `${hexKey()}00`, 'QUJD']) {
      const err = await vaultError(() => Vault.open({ dataDir: dir, envKey: bad, logger: silentLogger }));
      expect(err.code).toBe('bad-key');
      expect(err.message).toMatch(/^ENCRYPTION_KEY must be 32 bytes/);
      expect(err.message).not.toContain(bad);
    }
  });

  it('warns when it differs from a key file already in DATA_DIR', async () => {
    const dir = await tempDir();
    await Vault.open({ dataDir: dir, logger: silentLogger });
    const log = captureLogs();
    const envKey = hexKey();
    await Vault.open({ dataDir: dir, envKey, logger: log.logger });
    expect(log.records().filter((r) => r.level === WARN)).toHaveLength(1);
    expect(log.text()).toMatch(/ENCRYPTION_KEY differs from the key file/);
    expect(log.text()).not.toContain(envKey);
  });
});

describe('vault: the key file', () => {
  it('is generated on first start with mode 0600 and one warning, then reused without one', async () => {
    const dir = join(await tempDir(), 'data');
    const first = captureLogs();
    const a = await Vault.open({ dataDir: dir, logger: first.logger });
    expect(a.keySource).toBe('generated');
    const file = join(dir, 'encryption.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    const warnings = first.records().filter((r) => r.level === WARN);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toMatch(/back this file up/);
    expect(first.text()).not.toContain(text.trim());

    const blob = a.encrypt(SECRET);
    const second = captureLogs();
    const b = await Vault.open({ dataDir: dir, logger: second.logger });
    expect(b.keySource).toBe('file');
    expect(b.decrypt(blob)).toBe(SECRET);
    expect(second.records().filter((r) => r.level === WARN)).toHaveLength(0);
    expect(await readFile(file, 'utf8')).toBe(text);
    // The file's content is what ENCRYPTION_KEY takes, so operators can move it there.
    const fromEnv = await Vault.open({ dataDir: await tempDir(), envKey: text.trim(), logger: silentLogger });
    expect(fromEnv.decrypt(blob)).toBe(SECRET);
  });

  it('gives processes starting together on a new DATA_DIR (npm run cluster) one key, none reading it half-written', async () => {
    for (let round = 0; round < 30; round++) {
      const dir = join(await tempDir(), 'data');
      const file = join(dir, 'encryption.key');
      const seen = new Set<string>();
      let opening = true;
      const readers = Array.from({ length: 2 }, async () => {
        while (opening) seen.add(await readFile(file, 'utf8').catch(() => 'none'));
      });
      // Started a little apart, as processes are: a later one finds the file an earlier one is still writing.
      const vaults = await Promise.all(Array.from({ length: 6 }, (_, i) => new Promise((r) => setTimeout(r, i)).then(() => Vault.open({ dataDir: dir, logger: silentLogger }))));
      opening = false;
      await Promise.all(readers);
      expect(vaults.filter((v) => v.keySource === 'generated')).toHaveLength(1);
      const blob = vaults[0]!.encrypt(SECRET);
      for (const v of vaults) expect(v.decrypt(blob)).toBe(SECRET);
      const key = await readFile(file, 'utf8');
      expect(key).toMatch(/^[0-9a-f]{64}\n$/);
      expect([...seen].filter((text) => text !== 'none' && text !== key)).toEqual([]);
      // Nothing of the staging is left beside the key.
      expect(await readdir(dir)).toEqual(['encryption.key']);
    }
  });

  it('refuses a key file that others can read, saying how to fix it', async () => {
    const dir = await tempDir();
    await Vault.open({ dataDir: dir, logger: silentLogger });
    const file = join(dir, 'encryption.key');
    await chmod(file, 0o644);
    const err = await vaultError(() => Vault.open({ dataDir: dir, logger: silentLogger }));
    expect(err.code).toBe('key-file-mode');
    expect(err.message).toContain('mode 0644');
    expect(err.message).toContain('chmod 600');
    expect(err.message).not.toContain((await readFile(file, 'utf8')).trim());
  });

  it('refuses a key file with bad content instead of replacing it', async () => {
    const dir = await tempDir();
    const file = join(dir, 'encryption.key');
    await writeFile(file, 'not-a-key\n', { mode: 0o600 });
    const err = await vaultError(() => Vault.open({ dataDir: dir, logger: silentLogger }));
    expect(err.code).toBe('bad-key');
    expect(err.message).toMatch(/restore it from your backup/);
    expect(await readFile(file, 'utf8')).toBe('not-a-key\n');
  });
});

describe('vault with the store', () => {
  it('keeps the secret out of db.json and gets it back after a restart', async () => {
    const dir = await tempDir();
    const vault = await Vault.open({ dataDir: dir, logger: silentLogger });
    const store = await openStore({ dataDir: dir, logger: silentLogger });
    store.updateUser(
      5,
      (u) => void (u.key = { accessKey: 'ak-5', secretEnc: vault.encrypt(SECRET), connectedAt: 1 }),
      { chatId: 5 },
    );
    await store.close();

    const onDisk = await readFile(join(dir, 'db.json'), 'utf8');
    expect(onDisk).toContain('ak-5');
    expect(onDisk).not.toContain(SECRET);
    expect(onDisk).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(onDisk).not.toContain(Buffer.from(SECRET).toString('hex'));

    const again = await openStore({ dataDir: dir, logger: silentLogger });
    const vaultAgain = await Vault.open({ dataDir: dir, logger: silentLogger });
    const secretEnc = again.findUserByAccessKey('ak-5')?.key?.secretEnc;
    expect(secretEnc).toBeDefined();
    expect(vaultAgain.decrypt(secretEnc ?? '')).toBe(SECRET);
    await again.close();
  });
});

describe('vault: each secret bound to its user and access key', () => {
  const ALICE = { userId: 11, accessKey: 'ak-alice' };
  const MALLORY = { userId: 66, accessKey: 'ak-mallory' };

  it('a blob opens only for the user and key it was sealed for', async () => {
    const vault = await Vault.open({ dataDir: await tempDir(), envKey: hexKey(), logger: silentLogger });
    const blob = vault.encrypt(SECRET, ALICE);
    expect(blob).toMatch(/^v2:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(vault.decrypt(blob, ALICE)).toBe(SECRET);
    expect((await vaultError(() => vault.decrypt(blob, MALLORY))).code).toBe('auth-failed');
    expect((await vaultError(() => vault.decrypt(blob, { ...ALICE, accessKey: MALLORY.accessKey }))).code).toBe('auth-failed');
    expect((await vaultError(() => vault.decrypt(blob, { ...ALICE, userId: MALLORY.userId }))).code).toBe('auth-failed');
    expect((await vaultError(() => vault.decrypt(blob))).code).toBe('auth-failed');
    // Relabelled as the first format, it does not open either.
    expect((await vaultError(() => vault.decrypt(blob.replace(/^v2:/, 'v1:'), ALICE))).code).toBe('auth-failed');
  });

  it('the start re-seals secrets of the first format bound to their owner; then a blob copied into another user\'s record does not open, nor an old v1 blob', async () => {
    const dir = await tempDir();
    const key = hexKey();
    const store = await openStore({ dataDir: dir, logger: silentLogger });
    try {
      const before = await Vault.open({ dataDir: dir, envKey: key, logger: silentLogger });
      const legacyAlice = before.encrypt('alice-secret-000');
      store.updateUser(ALICE.userId, (u) => void (u.key = { accessKey: ALICE.accessKey, secretEnc: legacyAlice, connectedAt: 1 }), { chatId: ALICE.userId });
      store.updateUser(MALLORY.userId, (u) => void (u.key = { accessKey: MALLORY.accessKey, secretEnc: before.encrypt('mallory-secret-0'), connectedAt: 1 }), { chatId: MALLORY.userId });

      const vault = await openCheckedVault({ DATA_DIR: dir, ENCRYPTION_KEY: key }, store, silentLogger);
      const alice = store.getUser(ALICE.userId)!.key!;
      expect(alice.secretEnc).toMatch(/^v2:/);
      expect(storedKeyRef(store, vault, ALICE.userId, ALICE.accessKey).revealSecret()).toBe('alice-secret-000');
      expect(storedKeyRef(store, vault, MALLORY.userId, MALLORY.accessKey).revealSecret()).toBe('mallory-secret-0');

      // Whoever can write the store copies Alice's blob into Mallory's record: it does not open.
      store.updateUser(MALLORY.userId, (u) => void (u.key!.secretEnc = alice.secretEnc));
      expect(() => storedKeyRef(store, vault, MALLORY.userId, MALLORY.accessKey).revealSecret()).toThrow(/connect the key again/);
      // Nor does Alice's blob from an old backup (the first format).
      store.updateUser(MALLORY.userId, (u) => void (u.key!.secretEnc = legacyAlice));
      expect(() => storedKeyRef(store, vault, MALLORY.userId, MALLORY.accessKey).revealSecret()).toThrow(/connect the key again/);
      // Nor at the next start (audit 3, L2): the re-seal ran once, so the pasted v1 blob is not bound to Mallory now.
      const restarted = await openCheckedVault({ DATA_DIR: dir, ENCRYPTION_KEY: key }, store, silentLogger);
      expect(store.getUser(MALLORY.userId)!.key!.secretEnc).toBe(legacyAlice);
      expect(() => storedKeyRef(store, restarted, MALLORY.userId, MALLORY.accessKey).revealSecret()).toThrow(/connect the key again/);
      expect(storedKeyRef(store, restarted, ALICE.userId, ALICE.accessKey).revealSecret()).toBe('alice-secret-000');
    } finally {
      await store.close();
    }
  });
});
