/**
 * The cluster's key check: processes with a DATA_DIR each (a generated key each, as on separate
 * machines) share one Redis store. The first stored secret sets the key's fingerprint in Redis;
 * a process whose key differs refuses to start with the embedded bot's one line, even when its
 * own DATA_DIR holds a fingerprint of its own key; with no secret stored any key is accepted and
 * an old fingerprint removed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redisKeyCheck } from '../../src/cluster/key-fingerprint.js';
import { silentLogger } from '../../src/logger.js';
import { openCheckedVault } from '../../src/roles/open-vault.js';
import { writeFingerprint } from '../../src/store/key-check.js';
import { describeStartupError } from '../../src/operator/startup-errors.js';
import { Vault, VaultError } from '../../src/store/vault.js';
import { redisStoreSuite } from '../store/redis-fixtures.js';
import { captureLogs } from '../support/logs.js';

const { redis, stores } = await redisStoreSuite('key-check');
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bb-keycheck-'));
  dirs.push(dir);
  return dir;
}

/** One process of the cluster: its own DATA_DIR (its own generated key), the shared store on `prefix`. */
async function startProcess(prefix: string, dir: string, logger = silentLogger, envKey?: string) {
  const store = await stores.open({ prefix });
  const vault = await openCheckedVault({ DATA_DIR: dir, ENCRYPTION_KEY: envKey }, store, logger, redisKeyCheck(stores.raw(), prefix));
  return { store, vault };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(() => new Error('accepted'), (e: unknown) => e);
  expect(err).toBeInstanceOf(VaultError);
  expect((err as VaultError).code).toBe('wrong-key');
  return describeStartupError(err, { TELEGRAM_API_ROOT: 'http://127.0.0.1:1', DATA_DIR: '/d', TELEGRAM_WEBHOOK_URL: undefined });
}

describe.skipIf(!redis.available)('the cluster key check (fingerprint in Redis)', () => {
  it('is set with the first stored secret, and a process with another key is refused in one line, whatever its DATA_DIR says', async () => {
    const prefix = stores.freshPrefix();
    const fingerprintKey = `${prefix}key-check`;
    const firstDir = await dataDir();
    const a = await startProcess(prefix, firstDir);
    // Started, nothing stored: nothing set yet.
    expect(await stores.raw().get(fingerprintKey)).toBeNull();
    a.store.updateUser(5, (u) => void (u.key = { accessKey: 'ak-5', secretEnc: a.vault.encrypt('secret-5'), connectedAt: 1 }), { chatId: 5 });
    await a.vault.firstSealDone();
    expect(await stores.raw().get(fingerprintKey)).toBe(a.vault.fingerprint());
    await a.store.flush();

    // Another machine: its own key, and a fingerprint file of that key in its own DATA_DIR.
    const otherDir = await dataDir();
    await writeFingerprint(otherDir, await Vault.open({ dataDir: otherDir, logger: silentLogger }));
    const line = await refusal(startProcess(prefix, otherDir));
    expect(line).toMatch(/^ENCRYPTION_KEY does not match the key the stored secrets were encrypted with \(checked against the fingerprint in Redis/);
    expect(line.split('\n')).toHaveLength(1);
    expect(line.split('ENCRYPTION_KEY')).toHaveLength(2);
    expect(await stores.raw().get(fingerprintKey)).toBe(a.vault.fingerprint());

    // A third process given the first one's key (ENCRYPTION_KEY) starts.
    const firstKey = (await readFile(join(firstDir, 'encryption.key'), 'utf8')).trim();
    const sameKey = await startProcess(prefix, await dataDir(), silentLogger, firstKey);
    expect(sameKey.vault.fingerprint()).toBe(a.vault.fingerprint());
  });

  it('with no secret stored, any key is accepted and an old fingerprint replaced by the next first secret', async () => {
    const prefix = stores.freshPrefix();
    const fingerprintKey = `${prefix}key-check`;
    await stores.raw().set(fingerprintKey, '0'.repeat(32));
    const logs = captureLogs();
    const b = await startProcess(prefix, await dataDir(), logs.logger);
    expect(await stores.raw().get(fingerprintKey)).toBeNull();
    b.store.updateUser(6, (u) => void (u.key = { accessKey: 'ak-6', secretEnc: b.vault.encrypt('secret-6'), connectedAt: 1 }), { chatId: 6 });
    await b.vault.firstSealDone();
    expect(await stores.raw().get(fingerprintKey)).toBe(b.vault.fingerprint());
  });

  it('two processes with different keys sealing their first secrets at once: one fingerprint wins, the other says so', async () => {
    const prefix = stores.freshPrefix();
    const logsA = captureLogs();
    const logsB = captureLogs();
    const a = await startProcess(prefix, await dataDir(), logsA.logger);
    const b = await startProcess(prefix, await dataDir(), logsB.logger);
    a.vault.encrypt('secret-a');
    b.vault.encrypt('secret-b');
    await Promise.all([a.vault.firstSealDone(), b.vault.firstSealDone()]);
    const set = await stores.raw().get(`${prefix}key-check`);
    expect([a.vault.fingerprint(), b.vault.fingerprint()]).toContain(set);
    const loser = set === a.vault.fingerprint() ? logsB : logsA;
    expect(loser.text()).toContain('another process of the cluster stored a secret under another encryption key');
  });
});
