/**
 * A cluster worker reads the service and never talks to Telegram, so it starts without BOT_TOKEN
 * (a machine of workers need not hold the bot token); a front without it is refused in one line.
 * The real entry point (src/main.ts through tsx) against a real Redis and the sandbox.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, useStandIns } from '../operator/helpers.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

const standIns = useStandIns();
let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('worker-token');
});
afterAll(async () => {
  await redis.dispose();
});

async function runMain(env: Record<string, string>, until?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH, ...standIns.sandbox.urls, TELEGRAM_API_ROOT: standIns.telegram.apiRoot, LOG_FORMAT: 'json', DATA_DIR: await tempDir('bb-worker-'), REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, ...env },
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('BOT_TOKEN and the cluster roles', () => {
  it('a worker starts without BOT_TOKEN and stops cleanly', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const run = await runMain({ ROLE: 'worker' }, '"msg":"bot started"');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('"role":"worker"');
    expect(run.stdout).toContain('"msg":"stopped cleanly"');
    expect(run.code).toBe(0);
  }, 30_000);

  it('a front without BOT_TOKEN is refused in one line naming it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const run = await runMain({ ROLE: 'front' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^BOT_TOKEN: expected the token from @BotFather/)]);
  }, 30_000);
});
