/**
 * The cluster's scaling benchmark (issue 13): the real bot, as the embedded single process (ROLE=all,
 * no Redis) and as one front with 1, 2 and 3 workers on a private redis-server, each worker sending
 * from its own loopback address (127.0.0.2–4), in the same run (the embedded process is the baseline
 * of every ratio). Two phases, each a fresh sandbox, bot and Redis per size (bench/lib/cluster-bench-run.ts):
 *
 * - limits: LIMIT_SCOPE=address with the service's real limits (30 reads a minute per host and
 *   address), 60 users with one subscription each (30 per host). Reads a minute per host, in all and
 *   per address (3 addresses ⇒ 3× one process's budget), requests over a limit, and alert latency
 *   (an item's appearance → its first sendMessage to each chat) against the embedded process.
 * - cpu: LIMIT_SCOPE=key (each key its own 30 reads a minute per host), 240 users: 120 reads a
 *   second in all, enough that the processes are busy and CPU per read is the cost of a read, not
 *   of idling. CPU per read of each worker (and the embedded process), of the front, and of Redis.
 * - idle: no users (not in the default phases). CPU a minute of each process and of Redis, and
 *   Redis's commands a minute: what a cluster costs while it has nothing to read.
 *
 * Every size waits for the steady state first: the leases settled (all workers live, the 64
 * buckets held and loaded within fair shares, nothing moved for two rounds), then a warm-up. The
 * limits phase warms up longer: users seeded afresh have no plan stored yet (odds masked or not,
 * src/scheduler/plan-tier.ts), so each reads alone once before its read group may serve it — 30
 * users on a host at one read every 2 s, a round of turns shared with the groups already formed.
 *
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/cluster-scale.js
 *
 * Settings: BENCH_CLUSTER_PHASES (default limits,cpu), BENCH_CLUSTER_SIZES (default 0,1,2,3; 0 is the
 * embedded process), BENCH_CLUSTER_SECONDS (the limits window, default 90: latency counts items born
 * in its first 55 s, sends recorded until 35 s after it), BENCH_CLUSTER_CPU_SECONDS (default 60),
 * BENCH_CLUSTER_WARMUP_SECONDS (default 20), BENCH_CLUSTER_CPU_WARMUP_SECONDS (the cpu phase's, default 180: its
 * window is the steady state; a start-up window of the same length after the shorter warm-up is
 * printed beside it when it fits), BENCH_CLUSTER_CPU_ROUNDS (the cpu phase's sizes in turns, default 1; more
 * rounds print each size's median ratio), BENCH_CLUSTER_PLAN_SECONDS (the limits phase's extra warm-up
 * while the members' plans are learnt, default 70), BENCH_CLUSTER_USERS (60), BENCH_CLUSTER_CPU_USERS (240).
 */
import { loadavg } from 'node:os';
import { runOnce, SERVICES, type CpuWindow, type RunResult } from './lib/cluster-bench-run.js';
import { percentile } from './lib/stats.js';

const num = (name: string, fallback: number) => {
  const raw = process.env[name]?.trim();
  const n = raw ? Number(raw) : fallback;
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, not ${raw}`);
  return n;
};
const phases = (process.env.BENCH_CLUSTER_PHASES ?? 'limits,cpu').split(',').map((s) => s.trim());
const sizes = (process.env.BENCH_CLUSTER_SIZES ?? '0,1,2,3').split(',').map((s) => Number(s.trim()));
const SECONDS = num('BENCH_CLUSTER_SECONDS', 90);
const CPU_SECONDS = num('BENCH_CLUSTER_CPU_SECONDS', 60);
const WARMUP = num('BENCH_CLUSTER_WARMUP_SECONDS', 20);
/**
 * The cpu phase's window starts this long after settling: a process lives for days, and V8 is still
 * compiling its hot code in the first minutes (a worker among three, seeing a third of the calls,
 * gets there three times later than one alone), while the front takes in the first backlog. What
 * they spend in those minutes is measured too, in a start-up window WARMUP after settling.
 */
const CPU_WARMUP = num('BENCH_CLUSTER_CPU_WARMUP_SECONDS', 180);
const LIMITS_WARMUP = WARMUP + num('BENCH_CLUSTER_PLAN_SECONDS', 70);
const USERS = num('BENCH_CLUSTER_USERS', 60);
const CPU_USERS = num('BENCH_CLUSTER_CPU_USERS', 240);
/** The cpu phase's sizes run in turns this many times: one run's ratio moved by ± 0.3 on this shared machine. */
const CPU_ROUNDS = Math.max(1, Math.round(num('BENCH_CLUSTER_CPU_ROUNDS', 1)));
const LATENCY_TAIL = 35;

const label = (workers: number) => (workers === 0 ? 'embedded (one process, no Redis)' : `${workers} worker${workers > 1 ? 's' : ''} + front`);
const perMinutePerHost = (reads: number, windowMs: number) => reads / (windowMs / 60_000) / SERVICES.length;
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

async function phase(name: string, run: (workers: number) => Promise<RunResult>): Promise<RunResult[]> {
  const out: RunResult[] = [];
  for (const workers of sizes) {
    console.log(`[${name}] ${label(workers)}… (load average ${load()})`);
    const r = await run(workers);
    console.log(`  settled after ${f1(r.settledAfterMs / 1000)} s; ${r.reads} reads in ${f1(r.windowMs / 1000)} s; ${JSON.stringify(r.readsByAddress)}; breaches ${r.breaches}`);
    out.push(r);
  }
  return out;
}

function limitsTable(rows: RunResult[]): void {
  const base = rows.find((r) => r.spec.workers === 0) ?? rows[0]!;
  const baseReads = perMinutePerHost(base.reads, base.windowMs);
  const baseP50 = percentile(base.latencies, 50);
  console.log(`\nLIMIT_SCOPE=address, ${USERS} users (one subscription each, ${USERS / SERVICES.length} per host), window ${SECONDS} s after settling + ${LIMITS_WARMUP} s warm-up`);
  console.log('| bot | settled after | reads a minute per host | per address | × embedded | over a limit | alert latency p50 / p95 | p50 × embedded | items alerted / born (alerts) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const reads = perMinutePerHost(r.reads, r.windowMs);
    const perAddress = Object.keys(r.readsByAddress).sort().map((a) => f1(perMinutePerHost(r.readsByAddress[a] ?? 0, r.windowMs))).join(' / ');
    const p50 = percentile(r.latencies, 50);
    console.log(
      `| ${label(r.spec.workers)} | ${f1(r.settledAfterMs / 1000)} s | ${f1(reads)} | ${perAddress} | × ${f2(reads / baseReads)} | ${r.breaches} | ` +
        `${f1(p50 / 1000)} / ${f1(percentile(r.latencies, 95) / 1000)} s | × ${f2(p50 / baseP50)} | ${r.itemsAlerted} / ${r.itemsBorn} (${r.latencies.length}) |`,
    );
  }
}

const perRead = (cpu: number, reads: number) => (reads > 0 ? cpu / reads : Number.NaN);
type Window = Pick<CpuWindow, 'processes' | 'redisCpuMs' | 'reads'>;
/** CPU of every process of the bot and of Redis in the window, ms. */
const totalCpu = (r: Window) => r.processes.reduce((s, p) => s + p.cpuMs, 0) + (r.redisCpuMs ?? 0);
/** CPU per read of all processes together (ms). */
const allPerRead = (r: Window) => perRead(totalCpu(r), r.reads);
/** The run's steady window, or its start-up one. */
type WindowOf = (r: RunResult) => Window | undefined;
const steady: WindowOf = (r) => r;
const startup: WindowOf = (r) => r.startup;
const median = (xs: number[]) => percentile(xs, 50);

/** Each size's ratio to the embedded process of its own round, and the median over the rounds. */
function cpuMedians(rounds: RunResult[][], pick: WindowOf, what: string): void {
  console.log(`\nCPU per read, all processes, ${what}, over ${rounds.length} round${rounds.length > 1 ? 's' : ''} (each ratio against the embedded process of its round):`);
  console.log('| bot | per round | median | × embedded per round | median × embedded |');
  console.log('|---|---|---|---|---|');
  for (const workers of sizes) {
    const perRound = rounds.map((rows) => {
      const found = rows.find((x) => x.spec.workers === workers);
      const r = found && pick(found);
      const baseRun = rows.find((x) => x.spec.workers === 0);
      const base = baseRun && pick(baseRun);
      const all = r ? allPerRead(r) : Number.NaN;
      return { all, ratio: base ? all / allPerRead(base) : Number.NaN };
    });
    const alls = perRound.map((x) => x.all);
    const ratios = perRound.map((x) => x.ratio);
    console.log(`| ${label(workers)} | ${alls.map((x) => `${f2(x)} ms`).join(', ')} | ${f2(median(alls))} ms | ${ratios.map((x) => `× ${f2(x)}`).join(', ')} | × ${f2(median(ratios))} |`);
  }
}

function cpuTable(rows: RunResult[]): void {
  const readers = (r: RunResult) => r.processes.filter((p) => p.reads !== undefined);
  const base = rows.find((r) => r.spec.workers === 0) ?? rows[0]!;
  const basePerRead = allPerRead(base);
  console.log(`\nLIMIT_SCOPE=key, ${CPU_USERS} users (one subscription each), window ${CPU_SECONDS} s after settling + ${CPU_WARMUP} s warm-up`);
  console.log('| bot | reads a second | CPU per read of each reader | front | Redis | all processes | × embedded | interval stretch | over a limit |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const each = readers(r).map((p) => `${f2(perRead(p.cpuMs, p.reads ?? 0))} ms`).join(' / ');
    const front = r.processes.find((p) => p.name === 'front');
    const all = allPerRead(r);
    console.log(
      `| ${label(r.spec.workers)} | ${f1(r.reads / (r.windowMs / 1000))} | ${each} | ${front ? `${f2(perRead(front.cpuMs, r.reads))} ms` : '–'} | ` +
        `${r.redisCpuMs === undefined ? '–' : `${f2(perRead(r.redisCpuMs, r.reads))} ms`} | ${f2(all)} ms | × ${f2(all / basePerRead)} | ${readers(r).map((p) => f2(p.stretch ?? Number.NaN)).join(' / ')} | ${r.breaches} |`,
    );
  }
  // Wakes and system calls are counts, not times: they show what a change batches even when the machine's noise hides its CPU.
  for (const r of rows) {
    const each = (key: 'wakes' | 'ioCalls') => r.processes.map((p) => `${p.name} ${f2(perRead(p[key], p.reads ?? r.reads))}`).join(', ');
    console.log(`${label(r.spec.workers)}: event loop wakes a read ${each('wakes')}; read and write system calls a read ${each('ioCalls')}`);
  }
  // The same reads should bring the same Bot API work: a cluster sending more would cost more for that alone.
  for (const r of rows) console.log(`${label(r.spec.workers)}: Bot API messages a read ${f2(perRead(r.telegram.sent, r.reads))} sent, ${f2(perRead(r.telegram.edited, r.reads))} edited`);
  for (const r of rows) {
    if (!r.redisCommands) continue;
    const calls = Object.entries(r.redisCommands).sort((a, b) => b[1] - a[1]);
    const sum = calls.reduce((s, [, n]) => s + n, 0);
    console.log(`${label(r.spec.workers)}: Redis commands a read ${f2(perRead(sum, r.reads))} (${calls.slice(0, 8).map(([c, n]) => `${c} ${f2(perRead(n, r.reads))}`).join(', ')})`);
    // Time inside commands against Redis's whole CPU (the rest is its event loop, the sockets' reads and writes, its timers).
    // A script's time (evalsha) holds its inner commands', which are also counted under their own names.
    const us = Object.entries(r.redisCommandUs ?? {}).sort((a, b) => b[1] - a[1]);
    const cpu = r.redisCpuMs === undefined ? '–' : `${f1((r.redisCpuMs * 1000) / r.reads)} µs`;
    console.log(`${label(r.spec.workers)}: Redis CPU a read ${cpu}; inside commands, µs a read: ${us.slice(0, 10).map(([c, n]) => `${c} ${f1(perRead(n, r.reads))}`).join(', ')}`);
  }
}

function idleTable(rows: RunResult[]): void {
  console.log(`\nNo users, window ${CPU_SECONDS} s after settling + ${WARMUP} s warm-up: CPU a minute`);
  console.log('| bot | each process | Redis | Redis commands a minute |');
  console.log('|---|---|---|---|');
  for (const r of rows) {
    const perMinute = (n: number) => n / (r.windowMs / 60_000);
    const each = r.processes.map((p) => `${p.name} ${f2(perMinute(p.cpuMs) / 1000)} s`).join(', ');
    const commands = r.redisCommands ? Object.values(r.redisCommands).reduce((a, b) => a + b, 0) : undefined;
    console.log(`| ${label(r.spec.workers)} | ${each} | ${r.redisCpuMs === undefined ? '–' : `${f2(perMinute(r.redisCpuMs) / 1000)} s`} | ${commands === undefined ? '–' : f1(perMinute(commands))} |`);
  }
}

console.log(`cluster-scale: phases ${phases.join(', ')}; sizes ${sizes.join(', ')} (load average ${load()})`);
const results: Record<string, RunResult[]> = {};
if (phases.includes('limits')) {
  results.limits = await phase('limits', (workers) =>
    runOnce({ workers, scope: 'address', users: USERS, seconds: SECONDS, warmupSeconds: LIMITS_WARMUP, latencyTailSeconds: LATENCY_TAIL }));
}
const cpuRounds: RunResult[][] = [];
if (phases.includes('cpu')) {
  for (let round = 1; round <= CPU_ROUNDS; round++) {
    cpuRounds.push(await phase(CPU_ROUNDS > 1 ? `cpu, round ${round} of ${CPU_ROUNDS}` : 'cpu', (workers) =>
      runOnce({
        workers, scope: 'key', users: CPU_USERS, seconds: CPU_SECONDS, warmupSeconds: CPU_WARMUP, latencyTailSeconds: 0,
        ...(WARMUP + CPU_SECONDS <= CPU_WARMUP && { startupWindow: { afterSeconds: WARMUP, seconds: CPU_SECONDS } }),
      })));
  }
  results.cpu = cpuRounds.flat();
}
if (phases.includes('idle')) {
  results.idle = await phase('idle', (workers) => runOnce({ workers, scope: 'key', users: 0, seconds: CPU_SECONDS, warmupSeconds: WARMUP, latencyTailSeconds: 0 }));
}
if (results.limits) limitsTable(results.limits);
if (results.idle) idleTable(results.idle);
for (const rows of cpuRounds) cpuTable(rows);
if (cpuRounds.length > 0) {
  cpuMedians(cpuRounds, steady, `the steady state (${CPU_WARMUP} s after settling)`);
  if (cpuRounds.every((rows) => rows.every((r) => r.startup))) cpuMedians(cpuRounds, startup, `the start-up (${WARMUP} s after settling)`);
}
console.log(`\n(load average at the end ${load()})`);
console.log(JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, rows]) => [k, rows.map((r) => ({ ...r, latencies: undefined, p50: percentile(r.latencies, 50), p95: percentile(r.latencies, 95) }))]))));
