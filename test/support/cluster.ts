/**
 * The real bot as a cluster, for the chaos test and the scaling benchmark: users seeded straight
 * into Redis (their secrets sealed by the vault every process opens with the same ENCRYPTION_KEY),
 * bot processes started as `node --import tsx src/main.ts` with a role, and their /healthz read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { defaultFilter } from '../../src/service/filter-model.js';
import type { Service } from '../../src/service/services.js';
import { planStatus, type PlanTier } from '../../src/scheduler/plan-tier.js';
import type { Store } from '../../src/store/port.js';
import { openRedisStore } from '../../src/store/redis-store.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';

export interface SeedUser {
  id: number;
  accessKey: string;
  secret: string;
  service: Service;
}

/** Where the users go: Redis (a cluster), or a DATA_DIR's db.json (the embedded bot, no Redis). */
export type SeedTarget = { url: string; prefix: string } | { dataDir: string };

/** Writes the users, each with its key and a default filter on its service, and waits until the store has them. */
export async function seedUsers(opts: SeedTarget & { encryptionKey: string; users: readonly SeedUser[]; plan?: PlanTier }): Promise<void> {
  const vault = await Vault.open({ dataDir: await mkdtemp(join(tmpdir(), 'bb-seed-')), envKey: opts.encryptionKey, logger: silentLogger });
  const store: Store = 'dataDir' in opts
    ? await openStore({ dataDir: opts.dataDir, logger: silentLogger })
    : await openRedisStore({ url: opts.url, prefix: opts.prefix, logger: silentLogger });
  for (const u of opts.users) {
    store.updateUser(
      u.id,
      (draft) => {
        draft.key = { accessKey: u.accessKey, secretEnc: vault.encrypt(u.secret, { userId: u.id, accessKey: u.accessKey }), connectedAt: Date.now() };
        draft.filters[u.service] = { settings: defaultFilter(), paused: false, pausedReason: null, savedAt: Date.now() };
        // A plan stored as a previous read would have left it: the user may join a read group at once.
        if (opts.plan) draft.status[u.service] = { lastGoodReadAt: null, lastAlertAt: null, lastError: null, ...planStatus(opts.plan, u.accessKey) };
      },
      { chatId: u.id, lang: 'en' },
    );
  }
  await store.flush();
  await store.close();
}

const tails = new WeakMap<ChildProcess, string>();

/** The last 4 KB a bot process wrote to stderr, for a test that timed out waiting on it. */
export const stderrOf = (child: ChildProcess): string => tails.get(child) ?? '';

export interface BotProcessOptions {
  /** Node's arguments: flags, loader and module; default `src/main.ts` through tsx (the benches start the compiled one, as shipped). */
  args?: readonly string[];
  /** A file descriptor the process's log (stdout) goes to; default nowhere. */
  logFd?: number;
}

/** One bot process; its last 4 KB of stderr are printed if it fails on its own. */
export function startBotProcess(env: NodeJS.ProcessEnv, name: string, children: Set<ChildProcess>, opts: BotProcessOptions = {}): ChildProcess {
  const args = opts.args ?? ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', opts.logFd ?? 'ignore', 'pipe'] });
  children.add(child);
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000);
    tails.set(child, tail);
  });
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && code !== null && signal === null) console.error(`[${name}] exited ${code}: ${tail}`);
  });
  return child;
}

export interface RoleHealth {
  ok: boolean;
  details?: { worker?: { leasesHeld: number; alertsAwaitingFront?: number } };
}

/** The process's /healthz, or undefined while it does not answer. */
export async function roleHealth(port: number): Promise<RoleHealth | undefined> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as RoleHealth;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 250 ms until it holds; throws after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(250);
  }
}

/** Leases held by the workers listening on these ports (0 for one that does not answer). */
export async function leasesHeld(ports: readonly number[]): Promise<number[]> {
  return (await Promise.all(ports.map((p) => roleHealth(p)))).map((h) => h?.details?.worker?.leasesHeld ?? 0);
}
