/**
 * A first start as a new user meets it: one that fails (a wrong token) leaves no bot.lock and no
 * key fingerprint, so the next start with ENCRYPTION_KEY set, as the README advises, is accepted;
 * the fingerprint appears with the first stored secret and from then on a different key is
 * refused, by the start and by `npm run doctor` alike, in one line naming ENCRYPTION_KEY once.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/doctor.js';
import { silentLogger } from '../../src/logger.js';
import { describeStartupError } from '../../src/operator/startup-errors.js';
import { openCheckedVault } from '../../src/roles/open-vault.js';
import { KEY_CHECK_FILE_NAME } from '../../src/store/key-check.js';
import { LOCK_FILE_NAME } from '../../src/store/lock.js';
import { openStore } from '../../src/store/store.js';
import { VaultError } from '../../src/store/vault.js';
import { tempDir, useStandIns } from './helpers.js';

const standIns = useStandIns();

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** The real entry point until it exits, or until `until` appears in its output (then SIGTERM). */
async function runMain(env: Record<string, string>, until?: string): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH, ...standIns.sandbox.urls, BOT_TOKEN: standIns.telegram.token, TELEGRAM_API_ROOT: standIns.telegram.apiRoot, LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let stopping = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (until !== undefined && !stopping && stdout.includes(until)) {
      stopping = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { code: await exited, stderr, stdout };
}

async function doctor(env: Record<string, string>): Promise<{ ok: boolean; text: string }> {
  const lines: string[] = [];
  const ok = await runDoctor({
    env: { ...standIns.sandbox.urls, BOT_TOKEN: standIns.telegram.token, TELEGRAM_API_ROOT: standIns.telegram.apiRoot, ...env },
    out: (l) => lines.push(l),
    fixWebhook: async () => false,
  });
  return { ok, text: lines.join('\n') };
}

/** Stores one secret the way /connect does: sealed by the start's vault, then kept by the store. */
async function connectOneUser(dataDir: string, key: string): Promise<void> {
  const store = await openStore({ dataDir, logger: silentLogger });
  try {
    const vault = await openCheckedVault({ DATA_DIR: dataDir, ENCRYPTION_KEY: key }, store, silentLogger);
    store.updateUser(5, (u) => void (u.key = { accessKey: 'ak-5', secretEnc: vault.encrypt('secret-5'), connectedAt: 1 }), { chatId: 5 });
    await vault.firstSealDone();
  } finally {
    await store.close();
  }
}

const countOf = (text: string, word: string) => text.split(word).length - 1;

describe('first start', () => {
  it('a failed first start leaves no lock and no fingerprint; the next start with ENCRYPTION_KEY set is accepted, and the doctor agrees', async () => {
    const dataDir = await tempDir('bb-first-');
    const failed = await runMain({ DATA_DIR: dataDir, BOT_TOKEN: '123456:WRONG-TOKEN-abcdefghijklmnopqrst' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^BOT_TOKEN: Telegram refused the token/);
    const left = await readdir(dataDir);
    expect(left).not.toContain(LOCK_FILE_NAME);
    expect(left).not.toContain(KEY_CHECK_FILE_NAME);

    const key = randomBytes(32).toString('hex');
    const withoutKey = await doctor({ DATA_DIR: dataDir });
    const withKey = await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: key });
    expect(withoutKey.text).toContain('no stored secrets to test it on yet');
    expect(withKey.text).toContain('no stored secrets to test it on yet');
    expect(withKey.ok).toBe(true);

    const started = await runMain({ DATA_DIR: dataDir, ENCRYPTION_KEY: key }, '"msg":"bot started"');
    expect(started.stderr).toBe('');
    expect(started.stdout).toContain('"msg":"bot started"');
    expect(started.code).toBe(0);
    // Still nothing stored: still no fingerprint, and the clean stop released the lock.
    expect(await readdir(dataDir)).not.toContain(KEY_CHECK_FILE_NAME);
    expect(await readdir(dataDir)).not.toContain(LOCK_FILE_NAME);
  }, 40_000);

  it('an old fingerprint with no secret behind it is replaced; the first stored secret writes the new one; then another key is refused by start and doctor alike', async () => {
    const dataDir = await tempDir('bb-first-');
    await writeFile(join(dataDir, KEY_CHECK_FILE_NAME), `${'0'.repeat(32)}\n`, { mode: 0o600 });
    const key = randomBytes(32).toString('hex');
    expect((await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: key })).ok).toBe(true);

    await connectOneUser(dataDir, key);
    const fingerprint = (await readFile(join(dataDir, KEY_CHECK_FILE_NAME), 'utf8')).trim();
    expect(fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprint).not.toBe('0'.repeat(32));

    const other = randomBytes(32).toString('hex');
    const refused = await runMain({ DATA_DIR: dataDir, ENCRYPTION_KEY: other });
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ENCRYPTION_KEY does not match the key the stored secrets were encrypted with/);
    expect(countOf(lines[0]!, 'ENCRYPTION_KEY')).toBe(1);
    expect(await readdir(dataDir)).not.toContain(LOCK_FILE_NAME);
    const doctorSays = await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: other });
    expect(doctorSays.ok).toBe(false);
    expect(doctorSays.text).toContain('ENCRYPTION_KEY does not match');
    expect((await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: key })).ok).toBe(true);
  }, 40_000);

  it('names each setting once in a line', () => {
    const config = { TELEGRAM_API_ROOT: 'http://127.0.0.1:1', DATA_DIR: '/data', TELEGRAM_WEBHOOK_URL: undefined };
    const wrong = describeStartupError(new VaultError('wrong-key', 'ENCRYPTION_KEY does not match …: set ENCRYPTION_KEY back'), config);
    expect(countOf(wrong, 'ENCRYPTION_KEY')).toBe(2);
    expect(wrong).not.toMatch(/^ENCRYPTION_KEY: /);
    const bad = describeStartupError(new VaultError('bad-key', 'ENCRYPTION_KEY must be 32 bytes'), config);
    expect(bad).toBe('ENCRYPTION_KEY must be 32 bytes');
    const mode = describeStartupError(new VaultError('key-file-mode', '/data/encryption.key can be read by other users'), config);
    expect(mode).toBe('ENCRYPTION_KEY: /data/encryption.key can be read by other users');
  });
});
