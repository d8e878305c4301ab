/**
 * Start-up failures as an operator meets them: the real entry point (src/main.ts through tsx)
 * against the Bot API stand-in and the sandbox, ending in one line on stderr that names the
 * setting to fix, and exit code 1. A dictionaries host out of reach is not a failure: the bot
 * starts and says so.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { storeWithSecret, tempDir, unwritableDataDir, useStandIns } from './helpers.js';

const standIns = useStandIns();

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** Runs the bot until it exits, or until every one of `until` appears in its output (then stops it with SIGTERM). */
async function runMain(env: Record<string, string>, until?: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      ...standIns.sandbox.urls,
      BOT_TOKEN: standIns.telegram.token,
      TELEGRAM_API_ROOT: standIns.telegram.apiRoot,
      DATA_DIR: await tempDir('bb-start-'),
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let stopped = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (until !== undefined && !stopped && until.every((u) => stdout.includes(u))) {
      stopped = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await exited;
  return { code, stderr, stdout };
}

function expectOneLine(run: Run, line: RegExp): void {
  expect(run.code).toBe(1);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(run.stderr + run.stdout).not.toContain(standIns.telegram.token);
}

describe('start-up failures in words', () => {
  it('names BOT_TOKEN when Telegram refuses the token, with the address tried and without the token', async () => {
    const wrong = '123456:WRONG-TOKEN-abcdefghijklmnopqrst';
    const run = await runMain({ BOT_TOKEN: wrong });
    expectOneLine(run, new RegExp(`^BOT_TOKEN: Telegram refused the token \\(401 Unauthorized\\) at ${standIns.telegram.apiRoot.replace(/\./g, '\\.')}: copy it again from @BotFather`));
    expect(run.stderr).not.toContain(wrong);
  }, 20_000);

  it('names TELEGRAM_API_ROOT and the URL when the connection is refused', async () => {
    const root = `http://127.0.0.1:${await freePort()}`;
    const run = await runMain({ TELEGRAM_API_ROOT: root });
    expectOneLine(run, new RegExp(`^TELEGRAM_API_ROOT: cannot reach the Bot API at ${root.replace(/\./g, '\\.')}: the connection was refused \\(ECONNREFUSED\\)`));
  }, 20_000);

  it('names TELEGRAM_API_ROOT when the host name does not resolve', async () => {
    const run = await runMain({ TELEGRAM_API_ROOT: 'https://no-such-host.invalid' });
    expectOneLine(run, /^TELEGRAM_API_ROOT: cannot reach the Bot API at https:\/\/no-such-host\.invalid: the host name does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
  }, 20_000);

  it('names TELEGRAM_API_ROOT when TLS fails (https to a server that speaks plain HTTP)', async () => {
    const root = standIns.telegram.apiRoot.replace('http://', 'https://');
    const run = await runMain({ TELEGRAM_API_ROOT: root });
    expectOneLine(run, /^TELEGRAM_API_ROOT: cannot reach the Bot API at https:\/\/127\.0\.0\.1:\d+: the TLS handshake failed \(/);
  }, 20_000);

  it('names DATA_DIR when it cannot be written', async () => {
    const run = await runMain({ DATA_DIR: await unwritableDataDir() });
    expectOneLine(run, /^DATA_DIR: cannot write to .* \((EACCES|ENOTDIR|EROFS)\): make it writable by the user running the bot/);
  }, 20_000);

  it('names DATA_DIR when the store was written by a newer version', async () => {
    const dataDir = await tempDir('bb-start-newer-');
    await storeWithSecret(dataDir, randomBytes(32).toString('hex'), 99);
    const run = await runMain({ DATA_DIR: dataDir });
    expectOneLine(run, /^DATA_DIR: .*db\.json has schema version 99, but this build reads up to 1: run a newer build or restore an older backup/);
  }, 20_000);

  it('starts anyway when the dictionaries host is out of reach, and says so in one line', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await runMain({ BB_DICTS_URL: url }, ['trying again every 15 minutes', 'bot started']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('bot started');
    const warning = run.stdout.split('\n').filter((l) => l.includes('BB_DICTS_URL'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain(`BB_DICTS_URL: the dictionaries host ${url} could not be reached at start: started anyway`);
  }, 30_000);
});
