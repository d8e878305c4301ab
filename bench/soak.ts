/**
 * The cluster's soak (issue 33): the real bot as one front and three workers (each sending from its
 * own loopback address) on a private redis-server (AOF on, as in production), 10,000 users with one
 * subscription each against the sandbox under LIMIT_SCOPE=address, for 30 minutes; a worker is
 * killed (SIGKILL) and started again every 5 minutes, round the three, and Redis is restarted once
 * (SIGTERM, replaying its AOF) halfway. Before it, the embedded process (ROLE=all, no Redis) reads the
 * same workload for a shorter window, the baseline of the CPU-per-read ratio.
 *
 * Reported: requests the sandbox refused over a limit (0), duplicate alerts (an item sent twice to one
 * chat in the fake Bot API's log: 0), each process's RSS sampled every 10 s (growth from the 5th
 * minute to the end < 10 %), CPU per read of all processes together (bot processes and Redis, each
 * incarnation of a worker counted to its last sample before the kill) beside the embedded process's,
 * reads a minute per host, and alert latency (an item's appearance → its first sendMessage to a chat).
 *
 * Time scaled: the sandbox's tokens live an hour (not 5 minutes), so the 10,000 keys do not each
 * take a token every 5 minutes (33 token requests a second, far above the two cores' means); the
 * read limit windows stay real (30 reads a minute per host and address). Users are seeded with their
 * plan learnt (as after a first read), so they join their read group at once; the world is slow (2
 * items per service living 20 minutes) so each birth's 5,000 alerts fit Telegram's 30 a second.
 *
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/soak.js
 *   BENCH_SOAK_MINUTES=3 BENCH_SOAK_KILL_MINUTES=1 node .bench-build/bench/soak.js   # a short run
 *
 * Settings: BENCH_SOAK_MINUTES (30), BENCH_SOAK_KILL_MINUTES (5), BENCH_SOAK_USERS (10000),
 * BENCH_SOAK_EMBEDDED_MINUTES (the baseline's window, 3; 0 skips it), BENCH_SOAK_SETTLE_MINUTES
 * (measured from, and memory's baseline; default 5, or a third of a shorter run).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateRedis } from '../src/cluster/redis-server.js';
import { startFakeTelegram } from '../src/fake-telegram/server.js';
import { startSandbox } from '../src/sandbox/index.js';
import type { Service } from '../src/service/services.js';
import { roleHealth, seedUsers, sleep, startBotProcess, waitUntil } from '../test/support/cluster.js';
import { freePorts } from '../test/support/ports.js';
import { ADDRESSES, SERVICES, leasesSettled, metricOf, recordSends, runOnce } from './lib/cluster-bench-run.js';
import { cpuMs, rssBytes } from './lib/proc.js';
import { botEnv, botMainArgs, envInt, experimentFlags, isEntryPoint, report, type BenchResult, type Figure } from './lib/result.js';
import { tempDataDir } from './lib/setup.js';
import { percentile } from './lib/stats.js';

const WORLD = { itemsPerService: 2, meanLifetimeMs: 20 * 60_000, moveEveryMs: 60_000 };
const TOKEN_TTL_MS = 3_600_000;
const SAMPLE_MS = 10_000;
const WORKERS = 3;
/**
 * The heap this workload's processes are given, after `npm start`'s 256 MB: 10,000 subscriptions are
 * beyond what the shipped ceiling holds (each worker keeps every user's record, and the first reads'
 * flood fills the outbox), and docs/operating.md tells a larger bot's operator to give it more. With
 * 256 MB the embedded process read nothing in 3 minutes and a worker died of it.
 */
const HEAP_FLAGS = ['--max-old-space-size=1024'];

interface Slot {
  name: string;
  port: number;
  env: NodeJS.ProcessEnv;
  child?: ChildProcess;
  /** CPU of the incarnations that ended, ms, and the current one's at its last sample. */
  cpuDoneMs: number;
  cpuLastMs: number;
  restarts: number;
  /** When its current life began, ms since the soak's start. */
  lifeStartAt: number;
  /** RSS samples: [ms since start, bytes]. */
  rss: [number, number][];
  /** A worker's buckets held (its /healthz), sampled with the RSS: [ms since start, leases]. */
  held: [number, number][];
  /** V8's used heap (its /metrics), sampled with the RSS: [ms since start, bytes]. */
  heap: [number, number][];
  /** A worker's calls waiting for the front's answer (its /healthz): [ms since start, calls]. */
  awaiting: [number, number][];
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

export async function runSoak(opts: { minutes: number; killMinutes: number; users: number; embeddedMinutes: number; settleMinutes: number }): Promise<BenchResult> {
  const loadStart = load();
  let embeddedPerRead = Number.NaN;
  let embeddedReads = 0;
  if (opts.embeddedMinutes > 0) {
    console.log(`[soak] the embedded process, ${opts.users} users, ${opts.embeddedMinutes} min (load average ${load()})`);
    const e = await runOnce({
      workers: 0, scope: 'address', users: opts.users, seconds: opts.embeddedMinutes * 60, warmupSeconds: 60, latencyTailSeconds: 0,
      world: WORLD, tokenTtlMs: TOKEN_TTL_MS, plan: 'full', nodeFlags: HEAP_FLAGS,
    });
    embeddedReads = e.reads;
    embeddedPerRead = e.processes.reduce((s, p) => s + p.cpuMs, 0) / e.reads;
    console.log(`  ${e.reads} reads in ${f1(e.windowMs / 1000)} s, ${f2(embeddedPerRead)} ms CPU a read, breaches ${e.breaches}`);
  }

  console.log(`[soak] 1 front + ${WORKERS} workers, ${opts.users} users, ${opts.minutes} min, a worker killed every ${opts.killMinutes} min (load average ${load()})`);
  const redis = await startPrivateRedis();
  const sandbox = await startSandbox({
    keys: Array.from({ length: opts.users }, (_, i) => ({ accessKey: `scale-key-${i + 1}`, secret: `scale-secret-${i + 1}` })),
    limits: { scope: 'address', tokenScope: 'key' },
    world: WORLD,
    tokenTtlMs: TOKEN_TTL_MS,
    seed: 7,
  });
  const telegram = await startFakeTelegram({});
  const data = await tempDataDir('soak');
  const children = new Set<ChildProcess>();
  const slots: Slot[] = [];
  const redisSlot: Slot = { name: 'redis', port: 0, env: {}, cpuDoneMs: 0, cpuLastMs: 0, restarts: 0, lifeStartAt: 0, rss: [], held: [], heap: [], awaiting: [] };
  try {
    const encryptionKey = randomBytes(32).toString('hex');
    const prefix = 'bb:';
    const users = Array.from({ length: opts.users }, (_, n) => ({
      id: 2001 + n, accessKey: `scale-key-${n + 1}`, secret: `scale-secret-${n + 1}`, service: SERVICES[n % SERVICES.length] as Service,
    }));
    await seedUsers({ url: redis.url, prefix, encryptionKey, users, plan: 'full' });
    const basePort = await freePorts(1 + WORKERS);
    const common: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, ...botEnv(), ...sandbox.urls, BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot,
      ENCRYPTION_KEY: encryptionKey, LIMIT_SCOPE: 'address', LOG_LEVEL: 'warn', LOG_FORMAT: 'json', REDIS_URL: redis.url, REDIS_PREFIX: prefix,
    };
    slots.push({ name: 'front', port: basePort, env: { ROLE: 'front', HTTP_PORT: String(basePort), DATA_DIR: `${data.dir}/front` }, cpuDoneMs: 0, cpuLastMs: 0, restarts: 0, lifeStartAt: 0, rss: [], held: [], heap: [], awaiting: [] });
    for (let i = 0; i < WORKERS; i++) {
      const port = basePort + 1 + i;
      slots.push({
        name: `worker-${i + 1}`, port, cpuDoneMs: 0, cpuLastMs: 0, restarts: 0, lifeStartAt: 0, rss: [], held: [], heap: [], awaiting: [],
        env: { ROLE: 'worker', BB_LOCAL_ADDRESS: ADDRESSES[i], HTTP_PORT: String(port), DATA_DIR: `${data.dir}/worker-${i + 1}` },
      });
    }
    // The front's log (warnings and worse) kept beside the data: how it stopped, when it did not stop cleanly.
    const frontLogPath = join(tmpdir(), `soak-front-${process.pid}.log`);
    const frontLog = openSync(frontLogPath, 'a');
    console.log(`  the front's log: ${frontLogPath}`);
    const start = (slot: Slot) => {
      slot.child = startBotProcess({ ...common, ...slot.env }, slot.name, children, { args: botMainArgs([...HEAP_FLAGS, ...experimentFlags()]), ...(slot.name === 'front' && { logFd: frontLog }) });
      slot.cpuLastMs = 0;
    };
    const sends = recordSends(telegram);
    for (const slot of slots) start(slot);
    const workerPorts = slots.slice(1).map((s) => s.port);
    await leasesSettled(workerPorts, 300_000);
    const t0 = Date.now();
    console.log(`  settled; the soak runs from now (load average ${load()})`);

    const sample = () => {
      const at = Date.now() - t0;
      for (const slot of slots) {
        const pid = slot.child?.pid;
        if (pid === undefined || slot.child?.exitCode !== null || slot.child?.signalCode !== null) continue;
        const cpu = cpuMs(pid);
        if (Number.isFinite(cpu)) slot.cpuLastMs = cpu;
        slot.rss.push([at, rssBytes(pid)]);
      }
      const rpid = redis.pid();
      if (rpid !== undefined) {
        const cpu = cpuMs(rpid);
        if (Number.isFinite(cpu)) redisSlot.cpuLastMs = cpu;
        redisSlot.rss.push([at, rssBytes(rpid)]);
      }
    };
    // What a worker's memory holds follows the users it reads (a worker takes over a killed one's
    // buckets) and the alerts it waits on; the used heap tells live objects from what V8 keeps around them.
    const sampleHeld = async () => {
      const at = Date.now() - t0;
      for (const slot of slots) {
        const heap = await metricOf(slot.port, 'bot_heap_used_bytes');
        if (heap !== undefined) slot.heap.push([at, heap]);
        const worker = (await roleHealth(slot.port))?.details?.worker;
        if (worker?.leasesHeld !== undefined) slot.held.push([at, worker.leasesHeld]);
        if (worker?.alertsAwaitingFront !== undefined) slot.awaiting.push([at, worker.alertsAwaitingFront]);
      }
      if (at % 60_000 < SAMPLE_MS) {
        const last = <T>(xs: [number, T][]) => xs.at(-1)?.[1];
        console.log(`  ${f1(at / 60_000)} min: ` + slots.map((x) => `${x.name} rss ${mib(last(x.rss) ?? Number.NaN)} heap ${mib(last(x.heap) ?? Number.NaN)}${x.awaiting.length > 0 ? ` awaiting ${last(x.awaiting)}` : ''}`).join('; '));
      }
    };
    const cpuBase = () => slots.concat(redisSlot).reduce((s, x) => s + x.cpuDoneMs + x.cpuLastMs, 0);
    const settleMs = opts.settleMinutes * 60_000;
    const endMs = opts.minutes * 60_000;
    const killMs = opts.killMinutes * 60_000;
    const redisRestartMs = Math.round(endMs / 2 / killMs) * killMs + killMs / 2;
    let nextKill = killMs;
    let killed = 0;
    let redisRestarted = false;
    let cpuAtSettle: number | undefined;
    let fromRead = 0;
    const events: string[] = [];
    sample();
    while (Date.now() - t0 < endMs) {
      await sleep(Math.max(0, Math.min(SAMPLE_MS - ((Date.now() - t0) % SAMPLE_MS), endMs - (Date.now() - t0))));
      sample();
      await sampleHeld();
      const now = Date.now() - t0;
      if (cpuAtSettle === undefined && now >= settleMs) {
        cpuAtSettle = cpuBase();
        fromRead = Date.now();
      }
      if (now >= nextKill && now < endMs - 5_000) {
        const slot = slots[1 + (killed % WORKERS)]!;
        slot.cpuDoneMs += slot.cpuLastMs;
        slot.cpuLastMs = 0;
        const exited = new Promise<void>((resolve) => slot.child?.once('exit', () => resolve()));
        slot.child?.kill('SIGKILL');
        await exited;
        start(slot);
        slot.restarts++;
        slot.lifeStartAt = now;
        killed++;
        nextKill += killMs;
        events.push(`${f1(now / 60_000)} min: ${slot.name} killed and restarted`);
        console.log(`  ${events[events.length - 1]} (load average ${load()})`);
      }
      if (!redisRestarted && now >= redisRestartMs) {
        redisSlot.cpuDoneMs += redisSlot.cpuLastMs;
        redisSlot.cpuLastMs = 0;
        await redis.restart();
        redisRestarted = true;
        redisSlot.lifeStartAt = now;
        events.push(`${f1(now / 60_000)} min: Redis restarted`);
        console.log(`  ${events[events.length - 1]} (load average ${load()})`);
      }
    }
    sample();
    const to = Date.now();
    const cpuTotal = cpuBase() - (cpuAtSettle ?? 0);
    sends.stop();
    const loadEnd = load();

    const counters = sandbox.counters();
    const inWindow = counters.readLog.filter((r) => r.at >= fromRead && r.at < to);
    const windowMin = (to - fromRead) / 60_000;
    const readsPerHost = inWindow.length / windowMin / SERVICES.length;
    const byAddressHost: Record<string, number> = {};
    for (const r of inWindow) byAddressHost[`${r.address} ${r.base}`] = (byAddressHost[`${r.address} ${r.base}`] ?? 0) + 1;
    const perRead = cpuTotal / inWindow.length;

    let duplicates = 0;
    const dupExamples: string[] = [];
    for (const [key, n] of sends.sendCounts) {
      if (n > 1) {
        duplicates += n - 1;
        if (dupExamples.length < 5) dupExamples.push(`${key}×${n}`);
      }
    }
    const latencies: number[] = [];
    const bornBy = to - 60_000;
    // Each birth's reach: how many chats its alert reached by the end, and how late (the front's backlog shows here).
    const byItem = new Map<string, { born: number; waits: number[] }>();
    for (const [key, at] of sends.firstSends) {
      const id = key.slice(key.indexOf('|') + 1);
      const born = sandbox.world.appearedAt(id);
      if (born === undefined || born < t0 + settleMs || born >= bornBy) continue;
      latencies.push(at - born);
      const item = byItem.get(id) ?? { born, waits: [] };
      item.waits.push(at - born);
      byItem.set(id, item);
    }
    const births = [...byItem.values()].sort((a, b) => a.born - b.born).map((b) => `${f1((b.born - t0) / 60_000)}: ${b.waits.length}, ${f1(percentile(b.waits, 50) / 1000)} s`);

    // Memory: each process's RSS at the end (mean of the last three samples) against its first
    // sample the settling minutes into its current life (a restarted worker, Redis after its restart).
    const memRows: { name: string; from: number; to: number; growth: number; note: string }[] = [];
    const heldAt = (slot: Slot, at: number) => slot.held.findLast(([t]) => t <= at)?.[1];
    for (const slot of slots.concat(redisSlot)) {
      const tail = slot.rss.slice(-3).map(([, b]) => b);
      const last = tail.reduce((a, b) => a + b, 0) / tail.length;
      const fromIdx = slot.rss.findIndex(([at]) => at >= slot.lifeStartAt + settleMs);
      const base = fromIdx >= 0 ? slot.rss[fromIdx]![1] : Number.NaN;
      const [fromAt = 0] = fromIdx >= 0 ? slot.rss[fromIdx]! : [];
      const b0 = heldAt(slot, fromAt);
      const b1 = heldAt(slot, Number.POSITIVE_INFINITY);
      const note =
        fromIdx < 0
          ? ` (restarted at minute ${f1(slot.lifeStartAt / 60_000)}: no baseline ${opts.settleMinutes} min into its life)`
          : b0 !== undefined && b1 !== undefined
            ? ` (${b0}→${b1} buckets${slot.restarts > 0 ? `, life from minute ${f1(slot.lifeStartAt / 60_000)}` : ''})`
            : '';
      const heapFrom = slot.heap.find(([at]) => at >= fromAt)?.[1];
      const heapTail = slot.heap.slice(-3).map(([, b]) => b);
      const heapTo = heapTail.length > 0 ? heapTail.reduce((a, b) => a + b, 0) / heapTail.length : undefined;
      const heapNote = fromIdx >= 0 && heapFrom !== undefined && heapTo !== undefined ? `; heap ${mib(heapFrom)}→${mib(heapTo)}` : '';
      memRows.push({ name: slot.name, from: base, to: last, growth: (last - base) / base, note: note + heapNote });
    }
    const worstGrowth = Math.max(...memRows.filter((r) => Number.isFinite(r.growth)).map((r) => r.growth));

    const figures: Figure[] = [
      { metric: 'requests over a limit (the sandbox refused)', value: String(counters.breaches), target: '0', pass: counters.breaches === 0 },
      { metric: 'duplicate alerts (same item, same chat)', value: `${duplicates}${dupExamples.length ? ` (${dupExamples.join(', ')})` : ''}`, target: '0', pass: duplicates === 0 },
      {
        metric: 'RSS growth from minute ' + String(opts.settleMinutes) + ' to the end, worst process',
        value: `${(worstGrowth * 100).toFixed(1)} % (${memRows.map((r) => `${r.name} ${Number.isFinite(r.from) ? mib(r.from) + '→' : ''}${mib(r.to)}${r.note}`).join(', ')})`,
        target: '< 10 %',
        pass: worstGrowth < 0.1,
      },
      {
        metric: 'CPU per read, all processes (front, 3 workers, Redis)',
        value: `${f2(perRead)} ms; embedded ${f2(embeddedPerRead)} ms (${embeddedReads} reads, ${opts.embeddedMinutes} min) → × ${f2(perRead / embeddedPerRead)}`,
        target: '≤ × 1.5',
        pass: perRead / embeddedPerRead <= 1.5,
      },
      { metric: 'reads a minute per host (all addresses)', value: `${f1(readsPerHost)} (${Object.entries(byAddressHost).sort().map(([k, n]) => `${k} ${f1(n / windowMin)}`).join('; ')})` },
      { metric: 'alert latency p50 / p95', value: `${f1(percentile(latencies, 50) / 1000)} / ${f1(percentile(latencies, 95) / 1000)} s (${latencies.length} alerts of items born after minute ${opts.settleMinutes})` },
      { metric: 'messages sent / chats alerted / edits', value: `${telegram.sendTimes().length} / ${new Set([...sends.firstSends.keys()].map((k) => k.slice(0, k.indexOf('|')))).size} / ${telegram.calls('editMessageText').length}` },
      { metric: 'items born after minute ' + String(opts.settleMinutes) + ': born at (min), chats reached, latency p50', value: births.join('; ') || 'none' },
      { metric: 'load average start / end', value: `${loadStart} / ${loadEnd}` },
    ];
    const setup = `${opts.users} users (one subscription each, two hosts), LIMIT_SCOPE=address, 1 front + ${WORKERS} workers on a private redis-server (AOF), ` +
      `${opts.minutes} min measured from minute ${opts.settleMinutes}; ${events.join('; ')}; sandbox tokens live 1 h, world 2 items per service living 20 min`;
    return { bench: 'soak', setup, figures };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await waitUntil('the bot processes stopped', () => children.size === 0, 30_000).catch(() => {
      for (const child of children) child.kill('SIGKILL');
    });
    await telegram.close();
    await sandbox.close();
    await redis.dispose();
    await data.remove();
  }
}

if (isEntryPoint(import.meta.url)) {
  const minutes = envInt('BENCH_SOAK_MINUTES', 30, 1, 600);
  await report([
    await runSoak({
      minutes,
      killMinutes: envInt('BENCH_SOAK_KILL_MINUTES', 5, 1, 600),
      users: envInt('BENCH_SOAK_USERS', 10_000, 2, 100_000),
      embeddedMinutes: envInt('BENCH_SOAK_EMBEDDED_MINUTES', 3, 0, 60),
      settleMinutes: envInt('BENCH_SOAK_SETTLE_MINUTES', Math.min(5, Math.floor(minutes / 3)), 0, 600),
    }),
  ]);
}
