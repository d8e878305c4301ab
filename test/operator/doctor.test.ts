/**
 * The doctor against the sandbox and the Bot API stand-in: every check passing, then each
 * failure an operator meets, each named with its fix.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/store.js';
import { join } from 'node:path';
import { Api } from 'grammy';
import { describe, expect, it } from 'vitest';
import { runDoctor, type DoctorOptions } from '../../src/doctor/doctor.js';
import { freePort } from '../support/ports.js';
import { storeWithSecret, tempDir, unwritableDataDir, useStandIns } from './helpers.js';

const standIns = useStandIns();

async function doctor(env: Record<string, string>, extra: Partial<DoctorOptions> = {}) {
  const lines: string[] = [];
  const ok = await runDoctor({
    env: {
      ...standIns.sandbox.urls,
      BOT_TOKEN: standIns.telegram.token,
      TELEGRAM_API_ROOT: standIns.telegram.apiRoot,
      DATA_DIR: await tempDir('bb-doctor-'),
      ...env,
    },
    out: (l) => lines.push(l),
    fixWebhook: async () => false,
    ...extra,
  });
  return { ok, lines, text: lines.join('\n') };
}

describe('npm run doctor', () => {
  it('passes every check on a good set-up, in order, naming the bot', async () => {
    const { ok, lines } = await doctor({});
    expect(ok).toBe(true);
    const marks = lines.filter((l) => /^[✓✗]/.test(l));
    expect(marks.every((l) => l.startsWith('✓'))).toBe(true);
    expect(marks.map((l) => l.slice(2, 30))).toEqual([
      expect.stringContaining('settings are valid'),
      expect.stringContaining('DATA_DIR'),
      expect.stringContaining('no encryption key yet'),
      expect.stringContaining('Telegram accepts BOT_TOKEN'),
      expect.stringContaining('no webhook set'),
      expect.stringContaining('BB_AUTH_URL'),
      expect.stringContaining('BB_DICTS_URL'),
    ]);
    expect(lines.join('\n')).toContain('@bb_test_bot');
    expect(lines.at(-1)).toBe('all checks passed');
  });

  it('stops at a bad setting, naming it', async () => {
    const { ok, text } = await doctor({ LIMIT_SCOPE: 'host' });
    expect(ok).toBe(false);
    expect(text).toContain('✗ settings: LIMIT_SCOPE: expected key or address');
    expect(text).toContain('skipped');
  });

  it('names BOT_TOKEN when Telegram refuses the token, without printing it', async () => {
    const wrong = '123456:WRONG-TOKEN-abcdefghijklmnopqrst';
    const { ok, text } = await doctor({ BOT_TOKEN: wrong });
    expect(ok).toBe(false);
    expect(text).toMatch(/^✗ BOT_TOKEN: Telegram refused the token \(401/m);
    expect(text).not.toContain(wrong);
  });

  it('names TELEGRAM_API_ROOT and the address when the Bot API cannot be reached', async () => {
    const root = `http://127.0.0.1:${await freePort()}`;
    const { ok, text } = await doctor({ TELEGRAM_API_ROOT: root });
    expect(ok).toBe(false);
    expect(text).toContain(`✗ TELEGRAM_API_ROOT: cannot reach the Bot API at ${root}: the connection was refused (ECONNREFUSED)`);
  });

  it('names DATA_DIR when it cannot be written', async () => {
    const { ok, text } = await doctor({ DATA_DIR: await unwritableDataDir() });
    expect(ok).toBe(false);
    expect(text).toMatch(/^✗ DATA_DIR: cannot write to .* \((EACCES|ENOTDIR|EROFS)\)/m);
  });

  it('names ENCRYPTION_KEY when the key does not open the stored secrets, and passes with the right one', async () => {
    const dataDir = await tempDir('bb-doctor-key-');
    const right = randomBytes(32).toString('hex');
    await storeWithSecret(dataDir, right);
    const wrong = await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    expect(wrong.ok).toBe(false);
    expect(wrong.text).toContain('✗ ENCRYPTION_KEY does not match the key the stored secrets were encrypted with (none of the 1 stored secrets can be decrypted with it)');
    const good = await doctor({ DATA_DIR: dataDir, ENCRYPTION_KEY: right });
    expect(good.text).toContain('✓ the encryption key opens the stored secrets (1 users connected)');
    expect(good.ok).toBe(true);
  });

  it('says the store was written by a newer version', async () => {
    const dataDir = await tempDir('bb-doctor-new-');
    await storeWithSecret(dataDir, randomBytes(32).toString('hex'), 99);
    const { ok, text } = await doctor({ DATA_DIR: dataDir });
    expect(ok).toBe(false);
    expect(text).toContain('✗ DATA_DIR: db.json was written by a newer version of the bot (schema 99');
  });

  it('finds a leftover webhook, and deletes it when told to', async () => {
    const api = new Api(standIns.telegram.token, { apiRoot: standIns.telegram.apiRoot });
    await api.setWebhook('https://old.example.com/hook', { secret_token: 'x'.repeat(20) });
    const left = await doctor({});
    expect(left.ok).toBe(false);
    expect(left.text).toContain('✗ a webhook is set (https://old.example.com/hook) and TELEGRAM_WEBHOOK_URL is not');
    expect(left.text).toContain('--fix');
    expect(standIns.telegram.webhookInfo()).toBeDefined();

    const fixed = await doctor({}, { fixWebhook: async () => true });
    expect(fixed.text).toContain('✓ a leftover webhook (https://old.example.com/hook) was deleted');
    expect(fixed.ok).toBe(true);
    expect(standIns.telegram.webhookInfo()).toBeUndefined();
  });

  it('names the Data Service host it cannot reach', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { ok, text } = await doctor({ BB_DICTS_URL: url });
    expect(ok).toBe(false);
    expect(text).toContain(`✗ BB_DICTS_URL: cannot reach ${url}: the connection was refused (ECONNREFUSED)`);
    expect(text).toContain('✓ BB_AUTH_URL');
  });

  it('checks one key pair with one token request, said before it runs and counted in the ledger', async () => {
    const dataDir = await tempDir('bb-doctor-pair-');
    const tokens = () => standIns.sandbox.counters().requests.token ?? 0;
    const before = tokens();
    const good = await doctor({ DATA_DIR: dataDir }, { key: { accessKey: standIns.sandbox.demoKey.accessKey, secret: async () => standIns.sandbox.demoKey.secret } });
    expect(good.text).toMatch(/^… one token request for this key follows: it counts in the key's budget of 20 an hour \(0 used/m);
    expect(good.text).toContain('✓ the service accepts the key pair');
    expect(good.ok).toBe(true);
    expect(good.text).not.toContain(standIns.sandbox.demoKey.secret);
    expect(tokens() - before).toBe(1);

    const bad = await doctor({ DATA_DIR: dataDir }, { key: { accessKey: standIns.sandbox.demoKey.accessKey, secret: async () => 'not-the-secret' } });
    expect(bad.text).toMatch(/\(1 used/);
    expect(bad.text).toContain('✗ the service refused the key pair');
    expect(bad.ok).toBe(false);
    expect(tokens() - before).toBe(2);
    const ledger = JSON.parse(await readFile(join(dataDir, 'token-ledger.json'), 'utf8')) as { keys: Record<string, number[]> };
    expect(Object.values(ledger.keys).flat()).toHaveLength(2);
  });

  it('refuses --key while the bot holds DATA_DIR (its ledger would not count the request): nothing asked, nothing sent', async () => {
    const dataDir = await tempDir('bb-doctor-running-');
    const running = await openStore({ dataDir, logger: silentLogger });
    try {
      const tokens = () => standIns.sandbox.counters().requests.token ?? 0;
      const before = tokens();
      let asked = false;
      const { ok, text } = await doctor({ DATA_DIR: dataDir }, { key: { accessKey: standIns.sandbox.demoKey.accessKey, secret: async () => ((asked = true), standIns.sandbox.demoKey.secret) } });
      expect(ok).toBe(false);
      expect(text).toMatch(/✗ --key: DATA_DIR \S+ is in use by another bot process \(pid \d+\); its token ledger would not count this request, so nothing was sent/);
      expect(text).toContain('fix: stop the bot first');
      expect(asked).toBe(false);
      expect(tokens()).toBe(before);
    } finally {
      await running.close();
    }
    // Stopped: the check runs, and leaves no lock behind.
    const after = await doctor({ DATA_DIR: dataDir }, { key: { accessKey: standIns.sandbox.demoKey.accessKey, secret: async () => standIns.sandbox.demoKey.secret } });
    expect(after.text).toContain('✓ the service accepts the key pair');
    expect(await readdir(dataDir)).not.toContain('bot.lock');
  });

  it('says so when the token request it spent cannot be recorded in the ledger', async () => {
    const dataDir = await tempDir('bb-doctor-ledger-');
    // A folder where the ledger file should be: the write (temp file, then rename) fails.
    await mkdir(join(dataDir, 'token-ledger.json'));
    const { ok, text } = await doctor({ DATA_DIR: dataDir }, { key: { accessKey: standIns.sandbox.demoKey.accessKey, secret: async () => standIns.sandbox.demoKey.secret } });
    expect(text).toContain('✓ the service accepts the key pair');
    expect(text).toMatch(/✗ the token request could not be recorded in \S+token-ledger\.json \(E\w+: .+\): the bot will not count it at its next start/);
    expect(text).toContain('fix: make that file writable');
    expect(text).not.toContain(standIns.sandbox.demoKey.secret);
    expect(ok).toBe(false);
  });
});
