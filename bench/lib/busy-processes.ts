/**
 * The busy world's two processes (bench/busy-world.ts): the bot as shipped (`src/main.ts` with the
 * flags of `npm start`, its settings pointing at the stand-ins, its log in the run's folder) and the
 * minimal poller (`poller-process.ts`, settings as JSON over the environment, stats over IPC), how
 * to ask the poller for its counters, and how to stop either.
 */
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { FakeTelegram } from '../../src/fake-telegram/server.js';
import { basePathOf, type Sandbox, type SandboxKey } from '../../src/sandbox/index.js';
import type { Service } from '../../src/service/services.js';
import type { PollerConfig, PollerStats } from './poller.js';
import { botEnv, botNodeFlags, siblingUrl } from './result.js';

/** The poller binds this source address under the address scope, so the sandbox tells it from the bot (127.0.0.1). */
export const POLLER_ADDRESS = '127.0.0.2';
/** The chat id of the first user; user i is FIRST_CHAT + i on both sides. */
export const FIRST_CHAT = 5_001;

/** A module of this project next to the benchmark, run the way the benchmark itself runs (tsx or compiled). */
function projectModule(relative: string): string {
  return fileURLToPath(new URL(`${relative}${siblingUrl('x', import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
}

export function startBot(sandbox: Sandbox, telegram: FakeTelegram, dataDir: string, scope: 'key' | 'address'): ChildProcess {
  const log = openSync(join(dataDir, 'bot.log'), 'a');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...botEnv(),
    ...sandbox.urls,
    BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DATA_DIR: join(dataDir, 'bot-data'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    ...(scope === 'address' ? { LIMIT_SCOPE: 'address' } : {}),
  };
  // The bot's working folder is the data folder: no stray .env is picked up.
  const child = spawn(process.execPath, [...process.execArgv, ...botNodeFlags(), projectModule('../../src/main')], {
    env,
    cwd: dataDir,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  return child;
}

export async function startPoller(sandbox: Sandbox, telegram: FakeTelegram, keys: SandboxKey[], services: Service[], shared: boolean): Promise<ChildProcess> {
  const dataUrls: Record<string, string> = {};
  for (const s of services) dataUrls[s] = `${sandbox.origin}${basePathOf(s)}`;
  const config: PollerConfig = {
    authUrl: sandbox.urls.BB_AUTH_URL,
    dataUrls,
    telegram: { apiRoot: telegram.apiRoot, token: telegram.token },
    users: keys.map((k, i) => ({ chatId: FIRST_CHAT + i, accessKey: k.accessKey, secret: k.secret, services, minProfit: 0 })),
    readEveryMs: 2_500,
    renewEveryMs: 270_000,
    sendEveryMs: 1_100,
    tokensPerHour: 20,
    shared,
    ...(shared ? { localAddress: POLLER_ADDRESS } : {}),
  };
  const child = fork(projectModule('../poller-process'), [], {
    env: { PATH: process.env.PATH ?? '', BENCH_POLLER_CONFIG: JSON.stringify(config), BENCH_POLLER_MAX_SECONDS: '7200' },
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the poller did not start within 30 s')), 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`the poller exited with code ${String(code)}`)));
  });
  return child;
}

const pollerStatsSchema = z.object({
  stats: z.object({
    reads: z.number(),
    readErrors: z.number(),
    tokenRequests: z.number(),
    darkReads: z.number(),
    sends: z.number(),
    edits: z.number(),
    tooMany: z.number(),
  }),
});

export async function askPoller(child: ChildProcess | undefined): Promise<PollerStats | undefined> {
  if (!child?.connected) return undefined;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 5_000);
    const onMessage = (raw: unknown) => {
      const parsed = pollerStatsSchema.safeParse(raw);
      if (!parsed.success) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(parsed.data.stats);
    };
    child.on('message', onMessage);
    child.send('stats');
  });
}

export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send('stop');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  await exited;
  clearTimeout(timer);
}

export function reportBotLog(dataDir: string): void {
  try {
    const lines = readFileSync(join(dataDir, 'bot.log'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    if (lines.length > 0) console.log(`  the bot logged ${lines.length} warning or error lines; the last: ${lines[lines.length - 1]?.slice(0, 300)}`);
  } catch {
    // No log: nothing to say.
  }
}
