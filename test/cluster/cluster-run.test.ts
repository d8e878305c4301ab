/**
 * `npm run cluster`'s runner with a stand-in for the bot process (a tiny node script that prints
 * the environment it got and stops on a signal): WORKERS and BB_LOCAL_ADDRESSES checked before
 * anything starts, one front and N workers each with its role, egress address, Redis URL and port,
 * their lines prefixed with their names, SIGINT/SIGTERM forwarded to every child, exit code 0 when
 * all stopped cleanly, and a child that stops by itself stopping the others (exit code 1). The
 * private Redis is started before the children and stopped after them. The last suite runs the
 * real bot processes (a front and two workers) on a real Redis.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childSpecs, clusterSettings, runCluster, type ClusterRunOptions } from '../../src/cluster/cluster-run.js';
import type { PrivateRedis } from '../../src/cluster/redis-server.js';
import { startFakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { freePorts } from '../support/ports.js';
import { redisForTests } from '../support/redis.js';

const STUB = `
const e = process.env;
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => { console.log('got ' + s); process.exit(0); });
console.log(JSON.stringify({ role: e.ROLE, addr: e.BB_LOCAL_ADDRESS ?? null, redis: e.REDIS_URL, port: e.HTTP_PORT ?? null }));
// Fails once the others are up (they print first), so that they are there to be stopped.
if (e.STUB_FAIL && e.STUB_FAIL === (e.BB_LOCAL_ADDRESS ?? '')) setTimeout(() => { console.error('failing on purpose'); process.exit(3); }, 500);
setInterval(() => {}, 1000);
`;

const BASE = { BOT_TOKEN: '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ', PATH: process.env.PATH };

function fakeRedis() {
  const calls: string[] = [];
  const redis: PrivateRedis = {
    url: 'redis://127.0.0.1:7777',
    port: 7777,
    dir: '',
    pid: () => undefined,
    stop: async () => undefined,
    restart: async () => undefined,
    dispose: async () => void calls.push('disposed'),
  };
  return { calls, start: async (dir: string) => (calls.push(`started in ${dir}`), redis) };
}

function run(env: NodeJS.ProcessEnv, extra: Partial<ClusterRunOptions> = {}) {
  const lines: string[] = [];
  const signals = new EventEmitter();
  const done = runCluster({ env, command: { file: process.execPath, args: ['-e', STUB] }, print: (l) => lines.push(l), signals, ...extra });
  return { lines, signals, done };
}

const lineOf = (lines: string[], name: string) => lines.find((l) => l.startsWith(`[${name}] {`));

describe('npm run cluster: settings', () => {
  it('reads WORKERS (default 2) and BB_LOCAL_ADDRESSES, naming a bad one in one line', () => {
    expect(clusterSettings({})).toEqual({ workers: 2, addresses: [] });
    expect(clusterSettings({ WORKERS: '3', BB_LOCAL_ADDRESSES: '127.0.0.2, 127.0.0.3,127.0.0.4' })).toEqual({ workers: 3, addresses: ['127.0.0.2', '127.0.0.3', '127.0.0.4'] });
    expect(() => clusterSettings({ WORKERS: '0' })).toThrow(/^WORKERS: expected a whole number of workers from 1 to 64$/);
    expect(() => clusterSettings({ WORKERS: '65' })).toThrow(/^WORKERS: expected a whole number/);
    expect(() => clusterSettings({ WORKERS: 'two' })).toThrow(/^WORKERS: expected a whole number/);
    expect(() => clusterSettings({ BB_LOCAL_ADDRESSES: '127.0.0.2,localhost' })).toThrow(/^BB_LOCAL_ADDRESSES: expected a comma-separated list of IP addresses/);
    expect(() => clusterSettings({ WORKERS: '3', BB_LOCAL_ADDRESSES: '127.0.0.2,127.0.0.3' })).toThrow(/^BB_LOCAL_ADDRESSES: expected at least 3 addresses \(WORKERS=3\)/);
  });

  it('gives the front and each worker its role, its egress address and its own port', () => {
    const specs = childSpecs({ HTTP_PORT: '9000', X: 'kept', BOT_TOKEN: '1:tok' }, { workers: 2, addresses: ['127.0.0.2', '127.0.0.3'] }, 'redis://r:1');
    // Workers never talk to Telegram, so they are not handed the token (audit 3, N12).
    expect(specs.map((s) => [s.name, s.env.ROLE, s.env.BB_LOCAL_ADDRESS, s.env.HTTP_PORT, s.env.REDIS_URL, s.env.X, s.env.BOT_TOKEN])).toEqual([
      ['front', 'front', undefined, '9000', 'redis://r:1', 'kept', '1:tok'],
      ['worker-1', 'worker', '127.0.0.2', '9001', 'redis://r:1', 'kept', undefined],
      ['worker-2', 'worker', '127.0.0.3', '9002', 'redis://r:1', 'kept', undefined],
    ]);
  });

  it('refuses a bad setting before starting anything (exit code 2)', async () => {
    const redis = fakeRedis();
    for (const env of [{ ...BASE, WORKERS: 'x' }, { ...BASE, LIMIT_SCOPE: 'host' }, { PATH: process.env.PATH }, { ...BASE, HTTP_PORT: '65535' }]) {
      const { lines, done } = run(env, { startRedis: redis.start });
      expect(await done).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^(WORKERS|LIMIT_SCOPE|BOT_TOKEN|HTTP_PORT): expected /);
    }
    expect(redis.calls).toEqual([]);
  });
});

describe('npm run cluster: the processes', () => {
  it('starts a private Redis, a front and WORKERS workers; forwards SIGTERM to all; exits 0; stops Redis last', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bb-cluster-'));
    const redis = fakeRedis();
    try {
      const { lines, signals, done } = run({ ...BASE, DATA_DIR: dataDir, WORKERS: '3', BB_LOCAL_ADDRESSES: '127.0.0.2,127.0.0.3,127.0.0.4', HTTP_PORT: '8100' }, { startRedis: redis.start });
      await expect.poll(() => lines.filter((l) => /^\[(front|worker-\d)\] \{/.test(l)).length, { timeout: 10_000 }).toBe(4);
      expect(redis.calls).toEqual([`started in ${join(dataDir, 'redis')}`]);
      expect(JSON.parse(lineOf(lines, 'front')!.slice('[front] '.length))).toEqual({ role: 'front', addr: null, redis: 'redis://127.0.0.1:7777', port: '8100' });
      expect(JSON.parse(lineOf(lines, 'worker-3')!.slice('[worker-3] '.length))).toEqual({ role: 'worker', addr: '127.0.0.4', redis: 'redis://127.0.0.1:7777', port: '8103' });
      signals.emit('SIGTERM', 'SIGTERM');
      expect(await done).toBe(0);
      for (const name of ['front', 'worker-1', 'worker-2', 'worker-3']) expect(lines).toContain(`[${name}] got SIGTERM`);
      expect(redis.calls.at(-1)).toBe('disposed');
      expect(lines.at(-1)).toBe('[cluster] every process stopped cleanly');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('forwards SIGINT too, and uses REDIS_URL instead of starting a Redis', async () => {
    const redis = fakeRedis();
    const { lines, signals, done } = run({ ...BASE, REDIS_URL: 'redis://:pw-0123456789@10.1.2.3:6379', REDIS_PLAINTEXT: 'allow' }, { startRedis: redis.start });
    await expect.poll(() => lines.filter((l) => l.includes('"role"')).length, { timeout: 10_000 }).toBe(3);
    signals.emit('SIGINT', 'SIGINT');
    expect(await done).toBe(0);
    expect(lines.filter((l) => l.endsWith('got SIGINT'))).toHaveLength(3);
    expect(lines.filter((l) => l.includes('10.1.2.3:6379'))).toHaveLength(3);
    expect(redis.calls).toEqual([]);
  });

  it('stops the others when one process stops by itself, and exits 1', async () => {
    const redis = fakeRedis();
    const { lines, done } = run({ ...BASE, BB_LOCAL_ADDRESSES: '127.0.0.2,127.0.0.3', STUB_FAIL: '127.0.0.3' }, { startRedis: redis.start });
    expect(await done).toBe(1);
    expect(lines).toContain('[worker-2] failing on purpose');
    expect(lines.some((l) => /^\[cluster\] worker-2 stopped by itself \(exit code 3\): stopping the others$/.test(l))).toBe(true);
    expect(lines).toContain('[front] got SIGTERM');
    expect(lines).toContain('[worker-1] got SIGTERM');
    expect(redis.calls.at(-1)).toBe('disposed');
  });

  it('as a command: a bad argument or setting is one line and exit code 2', async () => {
    for (const [args, env, expected] of [
      [['--workers', '3'], BASE, /^unknown argument --workers/],
      [[], { ...BASE, WORKERS: '100' }, /^WORKERS: expected a whole number of workers from 1 to 64\n$/],
    ] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cluster/cli.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
      expect(code).toBe(2);
      expect(out).toMatch(expected);
    }
  }, 30_000);
});

describe('npm run cluster: the bot itself', () => {
  it('runs a front and two workers against the sandbox and the Bot API stand-in, each healthy in its role; SIGTERM stops all with 0', async () => {
    const sandbox = await startSandbox({});
    const telegram = await startFakeTelegram({});
    const redis = await redisForTests('cluster-cli');
    const dataDir = await mkdtemp(join(tmpdir(), 'bb-cluster-bot-'));
    const port = await freePorts(3);
    try {
      if (!redis.available) return;
      const env = {
        PATH: process.env.PATH, ...sandbox.urls, BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot,
        DATA_DIR: dataDir, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, HTTP_PORT: String(port), LOG_LEVEL: 'info',
      };
      const { lines, signals, done } = run(env, { command: { file: process.execPath, args: ['--import', 'tsx', 'src/main.ts'] } });
      const healthOf = async (p: number) => {
        try {
          return (await (await fetch(`http://127.0.0.1:${p}/healthz`)).json()) as { ok: boolean; details: { role: string; worker?: { leasesHeld: number } } };
        } catch {
          return undefined;
        }
      };
      // On a timeout, what the processes printed says why (a port taken, a start-up check that failed).
      const withOutput = (err: unknown) => {
        throw new Error(`${String(err)}\nthe processes printed:\n${lines.slice(-30).join('\n')}`);
      };
      await expect.poll(async () => (await Promise.all([0, 1, 2].map((i) => healthOf(port + i)))).map((h) => h?.ok), { timeout: 30_000 }).toEqual([true, true, true]).catch(withOutput);
      await expect.poll(async () => (await Promise.all([1, 2].map((i) => healthOf(port + i)))).map((h) => h?.details.worker?.leasesHeld), { timeout: 30_000 }).toEqual([32, 32]).catch(withOutput);
      expect((await healthOf(port))?.details.role).toBe('front');
      signals.emit('SIGTERM', 'SIGTERM');
      expect(await done).toBe(0);
      expect(lines.filter((l) => l.includes('stopped cleanly')).length).toBeGreaterThanOrEqual(3);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await redis.dispose();
      await telegram.close();
      await sandbox.close();
    }
  }, 90_000);
});
