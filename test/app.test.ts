/**
 * The assembled bot as operators run it: the operator port answers, and SIGTERM stops the
 * process cleanly with exit code 0.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { startFakeTelegram, type FakeTelegram } from '../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { freePort } from './support/ports.js';

describe('the assembled app', () => {
  let sandbox: Sandbox;
  let telegram: FakeTelegram;
  let app: App;
  let dataDir: string;

  beforeAll(async () => {
    sandbox = await startSandbox({});
    telegram = await startFakeTelegram({});
    dataDir = await mkdtemp(join(tmpdir(), 'bb-app-'));
    const config = loadConfig({
      ...sandbox.urls,
      BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DATA_DIR: dataDir,
      HTTP_PORT: String(await freePort()),
    });
    app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger: silentLogger });
  });
  afterAll(async () => {
    await app.stop(1_000);
    await telegram.close();
    await sandbox.close();
  });

  it('answers /healthz and /metrics on the operator port', async () => {
    const base = `http://127.0.0.1:${app.healthPort}`;
    await expect.poll(async () => (await fetch(`${base}/healthz`)).status, { timeout: 10_000 }).toBe(200);
    const health = (await (await fetch(`${base}/healthz`)).json()) as { ok: boolean; checks: Record<string, boolean> };
    expect(health).toEqual({ ok: true, checks: { telegram: true, store: true, scheduler: true } });

    const metrics = await (await fetch(`${base}/metrics`)).text();
    for (const name of [
      'bot_users',
      'bot_subscriptions',
      'bot_reads_total',
      'bot_service_429_total',
      'bot_alerts_sent_total',
      'bot_alert_edits_total',
      'bot_telegram_429_total',
      'bot_outbox_depth',
      'bot_scheduling_lag_p99_ms',
      'bot_poll_interval_stretch',
      'bot_resident_memory_bytes',
      'bot_heap_used_bytes',
      'bot_heap_limit_bytes',
    ]) {
      expect(metrics).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? \\d`, 'm'));
    }
    const limit = Number(/^bot_heap_limit_bytes (\d+)$/m.exec(metrics)?.[1]);
    expect(limit).toBeGreaterThan(Number(/^bot_heap_used_bytes (\d+)$/m.exec(metrics)?.[1]));
  });

  it('sets the command list in English and Russian at start', async () => {
    await expect.poll(() => telegram.commands('ru').length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(telegram.commands().length).toBeGreaterThan(0);
  });
});

describe('the process', () => {
  it('stops on SIGTERM with exit code 0, after flushing the store', async () => {
    const sandbox = await startSandbox({});
    const telegram = await startFakeTelegram({});
    const dataDir = await mkdtemp(join(tmpdir(), 'bb-main-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          PATH: process.env.PATH,
          ...sandbox.urls,
          BOT_TOKEN: telegram.token,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      await expect.poll(() => out, { timeout: 15_000 }).toContain('bot started');
      // A user appears, then the signal comes at once: the store must still reach the disk.
      telegram.sendText({ id: 4242, first_name: 'Ann', language_code: 'en' }, '/start');
      await telegram.waitForMessage((m) => m.chat_id === 4242, 10_000);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped cleanly');
      expect(out).not.toContain(telegram.token);
      // The store was written on the way out and holds no secret.
      const files = await readdir(dataDir);
      expect(files).toContain('db.json');
      expect(await readFile(join(dataDir, 'db.json'), 'utf8')).not.toContain(sandbox.demoKey.secret);
    } finally {
      await telegram.close();
      await sandbox.close();
    }
  }, 30_000);

  it('refuses to start with a bad setting, naming it in one line', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, BOT_TOKEN: '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ', LIMIT_SCOPE: 'host' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(err.trim()).toBe('LIMIT_SCOPE: expected key or address');
  }, 30_000);
});
