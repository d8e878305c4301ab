/**
 * The doctor's command line as an operator runs it: exit codes, the secret for `--key` read from
 * stdin (never from the command line, which is refused without echoing it).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir, useStandIns } from './helpers.js';

const standIns = useStandIns();

async function doctor(args: string[], stdin: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/doctor/cli.ts', ...args], {
    env: {
      PATH: process.env.PATH,
      ...standIns.sandbox.urls,
      BOT_TOKEN: standIns.telegram.token,
      TELEGRAM_API_ROOT: standIns.telegram.apiRoot,
      DATA_DIR: await tempDir('bb-doctor-cli-'),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, out };
}

describe('npm run doctor (command line)', () => {
  it('reads the --key secret from stdin, checks the pair and exits 0 when all pass', async () => {
    const { code, out } = await doctor(['--key', standIns.sandbox.demoKey.accessKey], `${standIns.sandbox.demoKey.secret}\n`);
    expect(out).toContain('✓ the service accepts the key pair');
    expect(out).not.toContain(standIns.sandbox.demoKey.secret);
    expect(code).toBe(0);
  }, 20_000);

  it('refuses a secret on the command line without echoing it, and exits 1 when a check fails', async () => {
    const refused = await doctor(['--key', standIns.sandbox.demoKey.accessKey, standIns.sandbox.demoKey.secret], '');
    expect(refused.code).toBe(2);
    expect(refused.out).toContain('the secret is never read from the command line');
    expect(refused.out).not.toContain(standIns.sandbox.demoKey.secret);

    const failed = await doctor([], '', { BOT_TOKEN: '123456:WRONG-TOKEN-abcdefghijklmnopqrst' });
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('✗ BOT_TOKEN: Telegram refused the token');
  }, 20_000);
});
