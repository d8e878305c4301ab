/**
 * One run of the cluster's scaling benchmark (bench/cluster-scale.ts): the real bot, as the embedded
 * process (ROLE=all, lowdb, no Redis) or as one front and n workers on a private redis-server, each
 * sending from its own loopback address (127.0.0.2–4), against a sandbox in this process that counts
 * the limits the same way as the bot is told to (LIMIT_SCOPE), and a fake Bot API.
 *
 * A run waits for the steady state before it measures: for a cluster, the leases settled (every
 * worker sees all n live, the 64 buckets held and loaded, none over its fair share, and nothing moved
 * for two lease rounds), then a warm-up; then the window, in which it counts the reads per address
 * and host (the sandbox's log), each process's CPU (/proc) and Redis's (INFO cpu); then, for the
 * latency, a tail in which sends are still recorded, so an item born in the window's first part has
 * at least a full round of reads to be alerted.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../../src/cluster/redis-server.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { Service } from '../../src/service/services.js';
import { roleHealth, seedUsers, sleep, startBotProcess, waitUntil } from '../../test/support/cluster.js';
import { freePorts } from '../../test/support/ports.js';
import { watchCommission } from './busy-commission.js';
import { cpuMs, ioCalls, wakes } from './proc.js';
import { grown, monitorSample, redisCommandStats, redisCpuMs } from './redis-stats.js';
import { botEnv, botMainArgs, experimentFlags } from './result.js';
import { tempDataDir } from './setup.js';

export const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
export const SERVICES: Service[] = ['arbs_live', 'arbs_prematch'];
export const ITEM_ID = /\b[0-9a-f]{16}\b/g;
/** Nothing may move for this long (two lease rounds) before the leases count as settled. */
const STABLE_MS = 6_000;

export interface RunSpec {
  /** 0: the embedded bot (one process, no Redis); n ≥ 1: a front and n workers on Redis. */
  workers: number;
  scope: 'address' | 'key';
  /** Users, one subscription each, alternating between the two hosts. */
  users: number;
  /** The measured window. */
  seconds: number;
  /** Measured after the leases settled, before the window. */
  warmupSeconds: number;
  /**
   * A first window inside the warm-up, `afterSeconds` after settling, CPU and reads only:
   * what the processes spend while V8 still compiles their hot code (a worker among three reaches
   * it three times slower than one alone) and the front takes in the first backlog.
   */
  startupWindow?: { afterSeconds: number; seconds: number };
  /**
   * Latency: items born in the window but its last `latencyTailSeconds`, with sends recorded until
   * as long after the window; 0: no latency (the window ends the run).
   */
  latencyTailSeconds: number;
  /** The sandbox's world; default 12 items per service living 90 s on average, moving every 30 s. */
  world?: { itemsPerService: number; meanLifetimeMs: number; moveEveryMs: number };
  /** The sandbox's token lifetime (default its own, 5 minutes). */
  tokenTtlMs?: number;
  /** Seed every user with this plan already learnt, so read groups form without a read alone each. */
  plan?: 'full' | 'masked';
  /** Node flags after the shipped ones (a larger heap for a larger bot, as docs/operating.md says). */
  nodeFlags?: readonly string[];
}

/**
 * Every sendMessage of the fake Bot API by chat and item (the item ids its text and buttons carry):
 * when each pair was first sent, and how many messages carried it (more than one: a duplicate alert).
 */
export function recordSends(telegram: FakeTelegram): { firstSends: Map<string, number>; sendCounts: Map<string, number>; stop: () => void } {
  const firstSends = new Map<string, number>();
  const sendCounts = new Map<string, number>();
  const stop = telegram.onActivity((e) => {
    if (e.kind !== 'sent' || !e.message) return;
    const text = `${e.message.text} ${JSON.stringify(e.message.reply_markup ?? null)}`;
    for (const id of new Set(text.match(ITEM_ID) ?? [])) {
      const key = `${e.message.chat_id}|${id}`;
      if (!firstSends.has(key)) firstSends.set(key, Date.now());
      sendCounts.set(key, (sendCounts.get(key) ?? 0) + 1);
    }
  });
  return { firstSends, sendCounts, stop };
}

export interface ProcessCpu {
  name: string;
  /** CPU time in the window, ms. */
  cpuMs: number;
  /** Reads its address made in the window (workers and the embedded process). */
  reads?: number;
  /** Its scheduler's load factor at the window's end (bot_poll_interval_stretch; 1: not stretched). */
  stretch?: number;
  /** In the window: the times its event loop woke (its main thread's voluntary context switches), and its read and write system calls. */
  wakes: number;
  ioCalls: number;
}

/** CPU and reads over one window of a run. */
export interface CpuWindow {
  windowMs: number;
  reads: number;
  processes: ProcessCpu[];
  redisCpuMs: number | undefined;
  telegram: { sent: number; edited: number };
}

export interface RunResult {
  spec: RunSpec;
  /** The start-up window (`spec.startupWindow`), when asked for. */
  startup?: CpuWindow;
  /** From starting the processes to the steady state (leases settled; the embedded bot: answering). */
  settledAfterMs: number;
  windowMs: number;
  reads: number;
  /** Reads in the window per address, all hosts together. */
  readsByAddress: Record<string, number>;
  /** Requests the sandbox refused over a limit during the whole run (warm-up included). */
  breaches: number;
  processes: ProcessCpu[];
  /** Redis's CPU time in the window (user + sys), ms; undefined for the embedded bot. */
  redisCpuMs: number | undefined;
  /** Redis commands called in the window, by command (INFO commandstats); undefined for the embedded bot. */
  redisCommands: Record<string, number> | undefined;
  /** Redis's time inside each command in the window, µs (commandstats' usec; a script's inner commands counted in it and again on their own). */
  redisCommandUs: Record<string, number> | undefined;
  /** Appearance → first sendMessage to each chat, ms, for items born in the latency part of the window. */
  latencies: number[];
  itemsBorn: number;
  /** Of those, items sent to at least one chat. */
  itemsAlerted: number;
  /** Messages the bot sent and edited in the window (the Bot API work a read brings). */
  telegram: { sent: number; edited: number };
}

/** One unlabelled sample `name` of the process's /metrics; undefined when it does not answer or has none. */
export async function metricOf(port: number, name: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+]+)`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The scheduler's load factor (1: not stretched). */
const stretchOf = (port: number) => metricOf(port, 'bot_poll_interval_stretch');

/** The sandbox's reads in [from, to), by address. */
function readsOf(log: readonly { at: number; address: string }[], from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of log) if (r.at >= from && r.at < to) out[r.address] = (out[r.address] ?? 0) + 1;
  return out;
}

interface WorkerView {
  held: number;
  ready: number;
  share: number;
  live: number;
}

async function workerViews(ports: readonly number[]): Promise<(WorkerView | undefined)[]> {
  return Promise.all(
    ports.map(async (p) => {
      const w = (await roleHealth(p))?.details?.worker as { leasesHeld?: number; leasesReady?: number; fairShare?: number; liveWorkers?: number } | undefined;
      return w ? { held: w.leasesHeld ?? 0, ready: w.leasesReady ?? 0, share: w.fairShare ?? 0, live: w.liveWorkers ?? 0 } : undefined;
    }),
  );
}

/** Waits until the workers' leases have settled (see the header); throws after `timeoutMs`. */
export async function leasesSettled(ports: readonly number[], timeoutMs: number): Promise<void> {
  let last = '';
  let since = Date.now();
  await waitUntil(
    'the leases to settle',
    async () => {
      const views = await workerViews(ports);
      const ok = views.every((v) => v !== undefined && v.live === ports.length && v.held === v.ready && v.held <= v.share) &&
        views.reduce((sum, v) => sum + (v?.held ?? 0), 0) === 64;
      const now = Date.now();
      const key = ok ? JSON.stringify(views.map((v) => v?.held)) : '';
      if (key !== last) {
        last = key;
        since = now;
      }
      return ok && now - since >= STABLE_MS;
    },
    timeoutMs,
  );
}

export async function runOnce(spec: RunSpec): Promise<RunResult> {
  const cluster = spec.workers > 0;
  const redisServer: PrivateRedis | undefined = cluster ? await startPrivateRedis() : undefined;
  const sandbox = await startSandbox({
    keys: Array.from({ length: spec.users }, (_, i) => ({ accessKey: `scale-key-${i + 1}`, secret: `scale-secret-${i + 1}` })),
    limits: { scope: spec.scope, tokenScope: 'key' },
    world: spec.world ?? { itemsPerService: 12, meanLifetimeMs: 90_000, moveEveryMs: 30_000 },
    seed: 7,
    ...(spec.tokenTtlMs ? { tokenTtlMs: spec.tokenTtlMs } : {}),
  });
  const telegram = await startFakeTelegram({});
  // As in the busy world: an arb counts from when stakes on the users' grid win in every outcome; the
  // bot never pushes one before (lib/busy-commission.ts).
  const worth = watchCommission(sandbox, SERVICES);
  const children = new Set<ChildProcess>();
  const data = await tempDataDir('cluster');
  const monitor = redisServer ? new Redis(redisServer.url) : undefined;
  try {
    const encryptionKey = randomBytes(32).toString('hex');
    const prefix = 'bb:';
    const users = Array.from({ length: spec.users }, (_, n) => ({
      id: 2001 + n, accessKey: `scale-key-${n + 1}`, secret: `scale-secret-${n + 1}`, service: SERVICES[n % SERVICES.length] as Service,
    }));
    const embeddedDir = `${data.dir}/embedded`;
    const plan = spec.plan ? { plan: spec.plan } : {};
    await seedUsers(redisServer ? { url: redisServer.url, prefix, encryptionKey, users, ...plan } : { dataDir: embeddedDir, encryptionKey, users, ...plan });
    const basePort = await freePorts(1 + spec.workers);
    const common: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      // As shipped: the image's malloc arena cap (and, below, `npm start`'s flags and the compiled module).
      ...botEnv(),
      ...sandbox.urls,
      BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      ENCRYPTION_KEY: encryptionKey,
      LIMIT_SCOPE: spec.scope,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...(redisServer ? { REDIS_URL: redisServer.url, REDIS_PREFIX: prefix } : {}),
    };
    const { firstSends, stop: stopRecording } = recordSends(telegram);
    /** Where the Bot API's messages are counted now (none outside a window). */
    let tally: { sent: number; edited: number } | undefined;
    const stopCounting = telegram.onActivity((e) => {
      if (tally && (e.kind === 'sent' || e.kind === 'edited')) tally[e.kind]++;
    });

    // BENCH_CPU_PROF_DIR: every bot process writes a V8 CPU profile there when it stops (bench/cpu-profile-top.ts reads them).
    const profDir = process.env.BENCH_CPU_PROF_DIR;
    const botArgs = botMainArgs([...(spec.nodeFlags ?? []), ...experimentFlags(), ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])]);
    const started = Date.now();
    const processes: { name: string; pid: number; port: number; address?: string }[] = [];
    // BENCH_LOG_DIR: each bot process's log (warnings and worse) goes to <name>.log there.
    const logDir = process.env.BENCH_LOG_DIR;
    const spawn = (name: string, env: NodeJS.ProcessEnv, address?: string) => {
      const child = startBotProcess({ ...common, ...env }, name, children, { args: botArgs, ...(logDir && { logFd: openSync(join(logDir, `${name}.log`), 'a') }) });
      if (child.pid !== undefined) processes.push({ name, pid: child.pid, port: Number(env.HTTP_PORT), ...(address ? { address } : {}) });
    };
    if (!cluster) {
      spawn('embedded', { ROLE: 'all', BB_LOCAL_ADDRESS: ADDRESSES[0], HTTP_PORT: String(basePort), DATA_DIR: embeddedDir }, ADDRESSES[0]);
      await waitUntil('the embedded bot answering', async () => (await roleHealth(basePort))?.ok === true, 120_000);
    } else {
      spawn('front', { ROLE: 'front', HTTP_PORT: String(basePort), DATA_DIR: `${data.dir}/front` });
      for (let i = 0; i < spec.workers; i++) {
        const address = ADDRESSES[i]!;
        spawn(`worker-${i + 1}`, { ROLE: 'worker', BB_LOCAL_ADDRESS: address, HTTP_PORT: String(basePort + 1 + i), DATA_DIR: `${data.dir}/worker-${i + 1}` }, address);
      }
      await leasesSettled(Array.from({ length: spec.workers }, (_, i) => basePort + 1 + i), 180_000);
    }
    const settledAfterMs = Date.now() - started;

    const sample = () => processes.map((p) => ({ cpuMs: cpuMs(p.pid), wakes: wakes(p.pid), ioCalls: ioCalls(p.pid) }));
    /** Opens a window: when, each process's CPU (wakes, system calls) and Redis's so far, and the Bot API's messages counted from now. */
    const openWindow = async () => {
      const at = Date.now();
      const counts = sample();
      const redisCpu = monitor ? await redisCpuMs(monitor) : undefined;
      const telegramWork = { sent: 0, edited: 0 };
      tally = telegramWork;
      return { at, counts, redisCpu, telegramWork };
    };
    /** What the processes spent and read since `open` (each reading process's reads by its address). */
    const closeWindow = async (open: Awaited<ReturnType<typeof openWindow>>): Promise<{ from: number; to: number; readsByAddress: Record<string, number>; window: CpuWindow }> => {
      const to = Date.now();
      const counts = sample();
      tally = undefined;
      const redisCpu = monitor && open.redisCpu !== undefined ? (await redisCpuMs(monitor)) - open.redisCpu : undefined;
      const readsByAddress = readsOf(sandbox.counters().readLog, open.at, to);
      const window: CpuWindow = {
        windowMs: to - open.at,
        reads: Object.values(readsByAddress).reduce((a, b) => a + b, 0),
        processes: processes.map((p, i) => ({
          name: p.name, ...(p.address ? { reads: readsByAddress[p.address] ?? 0 } : {}),
          cpuMs: (counts[i]?.cpuMs ?? Number.NaN) - (open.counts[i]?.cpuMs ?? Number.NaN),
          wakes: (counts[i]?.wakes ?? Number.NaN) - (open.counts[i]?.wakes ?? Number.NaN),
          ioCalls: (counts[i]?.ioCalls ?? Number.NaN) - (open.counts[i]?.ioCalls ?? Number.NaN),
        })),
        redisCpuMs: redisCpu,
        telegram: open.telegramWork,
      };
      return { from: open.at, to, readsByAddress, window };
    };

    let startup: CpuWindow | undefined;
    let warmedSeconds = 0;
    if (spec.startupWindow) {
      const { afterSeconds, seconds } = spec.startupWindow;
      await sleep(afterSeconds * 1_000);
      const open = await openWindow();
      await sleep(seconds * 1_000);
      startup = (await closeWindow(open)).window;
      warmedSeconds = afterSeconds + seconds;
    }
    await sleep(Math.max(0, spec.warmupSeconds - warmedSeconds) * 1_000);

    const open = await openWindow();
    const commandsBefore = monitor ? await redisCommandStats(monitor) : undefined;
    const monitorMs = Number(process.env.BENCH_REDIS_MONITOR_MS ?? 0);
    if (redisServer && monitorMs > 0) await monitorSample(redisServer.url, monitorMs);
    await sleep(spec.seconds * 1_000 - (redisServer ? monitorMs : 0));
    const { from, to, readsByAddress, window: measured } = await closeWindow(open);
    stopCounting();
    const commandsAfter = monitor ? await redisCommandStats(monitor) : undefined;
    const redisCommands = commandsAfter && commandsBefore ? grown(commandsAfter.calls, commandsBefore.calls) : undefined;
    const redisCommandUs = commandsAfter && commandsBefore ? grown(commandsAfter.us, commandsBefore.us) : undefined;
    const stretches = await Promise.all(processes.map((p) => (p.address ? stretchOf(p.port) : Promise.resolve(undefined))));
    await sleep(spec.latencyTailSeconds * 1_000);
    stopRecording();

    const counters = sandbox.counters();

    worth.stop();
    const noArb = worth.losing();
    const latencies: number[] = [];
    const bornBy = to - spec.latencyTailSeconds * 1_000;
    const alerted = new Set<string>();
    for (const [key, at] of firstSends) {
      const id = key.slice(key.indexOf('|') + 1);
      const appeared = sandbox.world.appearedAt(id);
      if (appeared === undefined || appeared < from || appeared >= bornBy || noArb.has(id)) continue;
      latencies.push(at - Math.max(appeared, worth.worthFrom().get(id) ?? appeared));
      alerted.add(id);
    }
    latencies.sort((a, b) => a - b);
    const births = sandbox.world.changes(from).filter((c) => c.type === 'appeared' && c.at < bornBy && SERVICES.includes(c.service) && !noArb.has(c.id));
    const itemsBorn = spec.latencyTailSeconds > 0 ? births.length : 0;
    return {
      spec,
      ...(startup && { startup }),
      settledAfterMs,
      windowMs: measured.windowMs,
      reads: measured.reads,
      readsByAddress,
      breaches: counters.breaches,
      processes: measured.processes.map((p, i) => ({ ...p, ...(stretches[i] !== undefined ? { stretch: stretches[i] } : {}) })),
      redisCpuMs: measured.redisCpuMs,
      redisCommands,
      redisCommandUs,
      latencies,
      itemsBorn,
      itemsAlerted: alerted.size,
      telegram: measured.telegram,
    };
  } finally {
    worth.stop();
    for (const child of children) child.kill('SIGTERM');
    await waitUntil('the bot processes stopped', () => children.size === 0, 30_000).catch(() => {
      for (const child of children) child.kill('SIGKILL');
    });
    monitor?.disconnect();
    await telegram.close();
    await sandbox.close();
    await redisServer?.dispose();
    await data.remove();
  }
}
