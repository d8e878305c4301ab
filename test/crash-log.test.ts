/**
 * Audit 3, L3: an error that escapes every handler is logged through the scrubbing logger, never
 * printed by Node's default handler, which shows a grammY HttpError's inner URL with the bot token.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const TOKEN = '7004512398:AAHq9Zr4kLmN7pQx2VbWc8TyUe5Rf6Gd3Sz';

function run(how: 'rejection' | 'exception', installed: 'on' | 'off'): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/crash-child.ts', how, installed], {
      env: { ...process.env, CRASH_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('an error nobody caught', () => {
  it.each(['rejection', 'exception'] as const)('an unhandled %s is one fatal JSON line without the token, and exit 1', async (how) => {
    const { code, out } = await run(how, 'on');
    expect(code).toBe(1);
    expect(out).not.toContain(TOKEN.split(':')[1]);
    const fatal = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; event?: string; err?: { type?: string } });
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ level: 60, event: how === 'rejection' ? 'unhandledRejection' : 'uncaughtException', err: { type: 'HttpError' } });
  }, 20_000);

  it("Node's own printer, which the crash log replaces, shows the token", async () => {
    const { code, out } = await run('rejection', 'off');
    expect(code).not.toBe(0);
    expect(out).toContain(TOKEN.split(':')[1]);
  }, 20_000);
});
