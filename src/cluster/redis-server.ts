/**
 * A private `redis-server` for `npm run cluster` and the tests: the system binary on a free
 * loopback port, in its own temporary directory, with AOF on (every second) and `noeviction`, as the
 * cluster expects of its Redis. It can be stopped (SIGTERM, by pid) and started again on the same
 * port and directory, so a test can check what survives a restart from the AOF.
 *
 * It never runs without a password: any local user can connect to a loopback port, and whoever can
 * write to the bot's Redis can read the sealed secrets and queue messages. A random password per
 * server (kept across `restart`) is written to a config file of mode 0600 in its directory, not on
 * the command line where `ps` shows it, and carried in `url` (`redis://:password@127.0.0.1:port`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateRedis {
  /** With the password: `redis://:password@127.0.0.1:port`. */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  pid(): number | undefined;
  /** Stops the server (SIGTERM; SIGKILL with `hard`) and waits for it to exit. */
  stop(opts?: { hard?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory (it replays its AOF). */
  restart(): Promise<void>;
  /** Stops it and removes its directory (unless it was given one to keep). */
  dispose(): Promise<void>;
}

/** Whether a `redis-server` binary is on PATH. */
export function redisServerAvailable(binary = 'redis-server'): boolean {
  const probe = spawnSync(binary, ['--version'], { stdio: 'ignore' });
  return probe.status === 0;
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port for redis-server');
  return address.port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts a private Redis; rejects when it does not accept connections within `startMs`. With `dir`
 * its data (the AOF) lives there and outlives `dispose()` (`npm run cluster` keeps its users from
 * one run to the next); without it, in a temporary directory that `dispose()` removes.
 */
export async function startPrivateRedis(opts: { binary?: string; startMs?: number; dir?: string } = {}): Promise<PrivateRedis> {
  const binary = opts.binary ?? 'redis-server';
  const startMs = opts.startMs ?? 10_000;
  const kept = opts.dir !== undefined;
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'bb-redis-')));
  if (kept) await mkdir(dir, { recursive: true, mode: 0o700 });
  const port = await freeLoopbackPort();
  // Hex: nothing in it needs escaping in a URL or in redis.conf.
  const password = randomBytes(24).toString('hex');
  const conf = join(dir, 'redis-auth.conf');
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async () => {
    await writeFile(conf, `requirepass ${password}\n`, { mode: 0o600 });
    await chmod(conf, 0o600);
    const args = [
      conf,
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '',
      '--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', join(dir, 'redis.log'),
    ];
    const proc = spawn(binary, args, { stdio: 'ignore' });
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    let failed: Error | undefined;
    proc.once('error', (err) => {
      failed = err;
    });
    const deadline = Date.now() + startMs;
    while (Date.now() < deadline) {
      if (failed) throw new Error(`redis-server could not start: ${failed.message}`);
      if (proc.exitCode !== null) throw new Error(`redis-server exited at start (code ${proc.exitCode}); see ${join(dir, 'redis.log')}`);
      if (await accepting(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(`redis-server did not accept connections on port ${port} within ${startMs} ms`);
  };

  const stop = async ({ hard = false } = {}) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(hard ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };

  await launch();
  return {
    url: `redis://:${password}@127.0.0.1:${port}`,
    port,
    dir,
    pid: () => child?.pid,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    dispose: async () => {
      await stop();
      if (!kept) await rm(dir, { recursive: true, force: true });
    },
  };
}
