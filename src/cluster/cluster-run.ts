/**
 * `npm run cluster`: the whole bot as a cluster on this machine, in the foreground. It uses
 * REDIS_URL, or starts a private `redis-server` (data in DATA_DIR/redis, kept between runs), then
 * one front (ROLE=front) and WORKERS workers (ROLE=worker, default 2) as child processes running
 * what `npm start` runs, with its environment. Worker i leaves from the i-th address of
 * BB_LOCAL_ADDRESSES when that is set (its own egress, so its own budget under
 * LIMIT_SCOPE=address); with HTTP_PORT set, the front listens there and worker i on HTTP_PORT + i.
 * Every line a child prints is prefixed with its name. SIGINT or SIGTERM is forwarded to every
 * child (a second one kills them); when all have stopped the private Redis is stopped too, and the
 * exit code is 0 if every child exited 0. A child that stops by itself stops the others (exit 1).
 *
 * WORKERS and BB_LOCAL_ADDRESSES are read only here (the bot's own settings are config.ts's,
 * checked here too before anything starts). A bad setting: one line naming it, exit code 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config.js';
import { redisServerAvailable, startPrivateRedis, type PrivateRedis } from './redis-server.js';
import { redactSecrets } from '../logger.js';

const ADDRESSES_ERROR = 'a comma-separated list of IP addresses of this machine, one per worker (like 127.0.0.2,127.0.0.3)';

const settingsSchema = z.object({
  WORKERS: z
    .string()
    .trim()
    .default('2')
    .transform((s) => (s === '' ? '2' : s))
    .pipe(z.string().regex(/^\d{1,2}$/, { error: 'a whole number of workers from 1 to 64' }).transform(Number))
    .pipe(z.number().min(1, { error: 'a whole number of workers from 1 to 64' }).max(64, { error: 'a whole number of workers from 1 to 64' })),
  BB_LOCAL_ADDRESSES: z
    .string()
    .trim()
    .default('')
    .transform((s) => (s === '' ? [] : s.split(',').map((a) => a.trim())))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6()], { error: ADDRESSES_ERROR }))),
});

/** The names `npm run cluster` reads beside config.ts's, for the docs check. */
export const clusterSettingNames = Object.keys(settingsSchema.shape);

export interface ClusterSettings {
  workers: number;
  addresses: string[];
}

/** Reads WORKERS and BB_LOCAL_ADDRESSES; throws ConfigError with one line naming the bad one. */
export function clusterSettings(env: NodeJS.ProcessEnv): ClusterSettings {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${String(issue?.path[0] ?? 'environment')}: expected ${issue?.message ?? 'a valid value'}`);
  }
  const { WORKERS: workers, BB_LOCAL_ADDRESSES: addresses } = parsed.data;
  if (addresses.length > 0 && addresses.length < workers) {
    throw new ConfigError(`BB_LOCAL_ADDRESSES: expected at least ${workers} addresses (WORKERS=${workers}), one per worker; got ${addresses.length}`);
  }
  return { workers, addresses };
}

export interface ChildSpec {
  name: string;
  env: NodeJS.ProcessEnv;
}

/** The front and the workers, each with its environment: npm start's, plus its role and egress. */
export function childSpecs(env: NodeJS.ProcessEnv, settings: ClusterSettings, redisUrl: string): ChildSpec[] {
  const port = env.HTTP_PORT?.trim() ? Number(env.HTTP_PORT) : undefined;
  const specs: ChildSpec[] = [{ name: 'front', env: { ...env, REDIS_URL: redisUrl, ROLE: 'front' } }];
  for (let i = 1; i <= settings.workers; i++) {
    // A worker never talks to Telegram, so it is not handed the bot token (audit 3, N12).
    const { BOT_TOKEN: _token, ...withoutToken } = env;
    const worker: NodeJS.ProcessEnv = { ...withoutToken, REDIS_URL: redisUrl, ROLE: 'worker' };
    const address = settings.addresses[i - 1];
    if (address !== undefined) worker.BB_LOCAL_ADDRESS = address;
    // A worker has no Telegram intake: only its /healthz and /metrics take a port.
    if (port !== undefined) worker.HTTP_PORT = String(port + i);
    specs.push({ name: `worker-${i}`, env: worker });
  }
  return specs;
}

export interface ClusterRunOptions {
  env: NodeJS.ProcessEnv;
  /** How to start one bot process (default: this node with npm start's flags, on dist/main.js). */
  command: { file: string; args: string[] };
  /** Where the children's prefixed lines and the runner's own lines go. */
  print: (line: string) => void;
  /** SIGINT/SIGTERM come from here (default the process). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Tests: how a private Redis is started. */
  startRedis?: (dir: string) => Promise<PrivateRedis>;
  /** How long the children get after the signal before they are killed (default 30 s). */
  stopTimeoutMs?: number;
}

/** Runs the cluster until it stops; resolves with the exit code. */
export async function runCluster(opts: ClusterRunOptions): Promise<number> {
  const { env, print } = opts;
  const say = (text: string) => print(`[cluster] ${text}`);
  let settings: ClusterSettings;
  try {
    settings = clusterSettings(env);
    // The bot's own settings, as each child will read them: fail here, once, rather than N times.
    const config = loadConfig({ ...env, REDIS_URL: env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379', ROLE: 'front' });
    if (config.BOT_TOKEN === undefined) throw new ConfigError('BOT_TOKEN: expected the token from @BotFather (set it in .env or the environment)');
    if (config.HTTP_PORT !== undefined && config.HTTP_PORT + settings.workers > 65535) {
      throw new ConfigError(`HTTP_PORT: expected a port with room for ${settings.workers} more above it (worker i listens on HTTP_PORT + i)`);
    }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    print(err.message);
    return 2;
  }

  let redis: PrivateRedis | undefined;
  let redisUrl = env.REDIS_URL?.trim() ?? '';
  if (redisUrl === '') {
    if (!opts.startRedis && !redisServerAvailable()) {
      print('REDIS_URL: expected the URL of a Redis 7, since no redis-server is on PATH to start a private one (Debian: apt-get install redis-server)');
      return 2;
    }
    const dir = join(env.DATA_DIR?.trim() || './data', 'redis');
    redis = await (opts.startRedis ?? ((d) => startPrivateRedis({ dir: d })))(dir);
    redisUrl = redis.url;
    // The URL carries the password: the line shows where, not how to get in.
    say(`private Redis at ${redactSecrets(redis.url)}, password protected (data in ${dir})`);
  }

  const children = childSpecs(env, settings, redisUrl).map((spec) => start(spec, opts));
  say(`started ${children.map((c) => c.spec.name).join(', ')}${settings.addresses.length > 0 ? ` (workers leave from ${settings.addresses.slice(0, settings.workers).join(', ')})` : ''}`);

  let stopping = false;
  let failed = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) {
      say('second signal: killing every process');
      for (const c of children) c.proc.kill('SIGKILL');
      return;
    }
    stopping = true;
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill(signal);
    killTimer = setTimeout(() => {
      say('the processes did not stop in time: killing them');
      for (const c of children) c.proc.kill('SIGKILL');
    }, opts.stopTimeoutMs ?? 30_000);
    killTimer.unref();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) say(`${signal}: stopping every process`);
    stopAll(signal);
  };
  const signals = opts.signals ?? process;
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);

  const codes = await Promise.all(
    children.map(async (c) => {
      const [code, signal] = await c.exited;
      if (!stopping) {
        failed = true;
        say(`${c.spec.name} stopped by itself (${signal ?? `exit code ${code}`}): stopping the others`);
        stopAll('SIGTERM');
      }
      return code;
    }),
  );
  clearTimeout(killTimer);
  signals.off('SIGINT', onSignal);
  signals.off('SIGTERM', onSignal);
  if (redis) {
    await redis.dispose();
    say('private Redis stopped');
  }
  const ok = !failed && codes.every((code) => code === 0);
  say(ok ? 'every process stopped cleanly' : `stopped; exit codes ${children.map((c, i) => `${c.spec.name}=${codes[i] ?? 'killed'}`).join(', ')}`);
  return ok ? 0 : 1;
}

interface Child {
  spec: ChildSpec;
  proc: ChildProcess;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

function start(spec: ChildSpec, opts: ClusterRunOptions): Child {
  const proc = spawn(opts.command.file, opts.command.args, { env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    // 'close', not 'exit': the child's last lines are read by then.
    proc.once('close', (code, signal) => resolve([code, signal]));
    proc.once('error', (err) => {
      opts.print(`[${spec.name}] could not start: ${err.message}`);
      resolve([127, null]);
    });
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => opts.print(`[${spec.name}] ${line}`));
  }
  return { spec, proc, exited };
}
