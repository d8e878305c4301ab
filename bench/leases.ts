/**
 * What the cluster's bucket leases cost and how fast they move, on a private redis-server:
 *
 * - one lease round (heartbeat, renewals, takes: one Lua script) in Redis commands, Redis CPU and
 *   round-trip time, with three workers holding their share — the whole price of dividing the
 *   users between workers, paid once every 3 s per worker whatever the number of subscriptions
 *   (compare bench/alert-stream.ts: a stream entry or queue job per read would be paid every 2 s per
 *   subscription);
 * - with the shipped timings (TTL 10 s, a round every 3 s): how long until the buckets are shared
 *   fairly when a worker joins, and the longest time any bucket was held by nobody when a worker
 *   joins, stops cleanly, or stops renewing (a SIGSTOPped process: its buckets wait for the TTL).
 *
 *   npx tsx bench/leases.ts
 *   BENCH_LEASE_ROUNDS=2000 npx tsx bench/leases.ts
 */
import { Redis } from 'ioredis';
import { LEASE_BUCKETS } from '../src/cluster/buckets.js';
import { createLeases, DEFAULT_LEASE_TIMINGS, type Leases } from '../src/cluster/leases.js';
import { silentLogger } from '../src/logger.js';
import { startPrivateRedis } from '../src/cluster/redis-server.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { benchLogger, sleep } from './lib/setup.js';
import { redisCommandStats, redisCpuMs } from './lib/redis-stats.js';
import { percentile } from './lib/stats.js';

/** Commands Redis ran so far, INFO itself left out. */
async function commandCalls(admin: Redis): Promise<number> {
  const { calls } = await redisCommandStats(admin);
  return Object.entries(calls).reduce((sum, [name, n]) => (name === 'info' ? sum : sum + n), 0);
}

/** Watches who holds each bucket every `everyMs` and keeps the longest stretch a bucket was held by nobody. */
function watchGaps(workers: () => Leases[], everyMs = 10) {
  const since = new Map<number, number>();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    for (let b = 0; b < LEASE_BUCKETS; b++) {
      const held = workers().some((w) => w.holds(b));
      const start = since.get(b);
      if (!held && start === undefined) since.set(b, now);
      if (held && start !== undefined) {
        longest = Math.max(longest, now - start);
        since.delete(b);
      }
    }
  }, everyMs);
  return {
    /** The longest gap so far, and resets. */
    take(): number {
      const value = longest;
      longest = 0;
      return value;
    },
    stop: () => clearInterval(timer),
  };
}

/** How long until `what` holds; then waits a few samples more, so the gap watch has seen the last hand-over. */
async function until(what: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!what()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms`);
    await sleep(10);
  }
  const took = performance.now() - started;
  await sleep(50);
  return took;
}

const fair = (ws: Leases[]) => {
  const sizes = ws.map((w) => w.held().size);
  const share = Math.ceil(LEASE_BUCKETS / ws.length);
  return sizes.reduce((a, b) => a + b, 0) === LEASE_BUCKETS && sizes.every((n) => n <= share);
};

export async function runLeasesBench(opts: { rounds: number }): Promise<BenchResult> {
  const server = await startPrivateRedis();
  const logger = benchLogger();
  const conns = [0, 1, 2, 3].map(() => new Redis(server.url));
  const [admin, ...links] = conns as [Redis, Redis, Redis, Redis];
  try {
    // ---- the cost of a round, three workers at their share ---------------------------------
    const manual = links.map((redis, i) => createLeases({ redis, prefix: 'cost:', logger, workerId: `w${i}` }));
    for (let i = 0; i < 8; i++) for (const w of manual) await w.round();
    if (!fair(manual)) throw new Error('the three workers did not settle on their shares');
    const calls0 = await commandCalls(admin);
    const cpu0 = await redisCpuMs(admin);
    const node0 = process.cpuUsage();
    const rtts: number[] = [];
    for (let i = 0; i < opts.rounds; i++) {
      const w = manual[i % manual.length]!;
      const t0 = performance.now();
      await w.round();
      rtts.push(performance.now() - t0);
    }
    const node = process.cpuUsage(node0);
    const perRound = {
      // Each `commandCalls` itself runs INFO (not counted) once; the rounds are all that ran in between.
      commands: ((await commandCalls(admin)) - calls0) / opts.rounds,
      redisCpuUs: (((await redisCpuMs(admin)) - cpu0) * 1000) / opts.rounds,
      nodeCpuUs: (node.user + node.system) / opts.rounds,
    };
    for (const w of manual) await w.stop();

    // ---- hand-overs with the shipped timings -------------------------------------------------
    let live: Leases[] = [];
    const gaps = watchGaps(() => live);
    // The worker made silent below warns, as it should; that is expected here.
    const start = (i: number) => {
      const w = createLeases({ redis: links[i]!, prefix: 'move:', logger: i === 1 ? silentLogger : logger, workerId: `m${i}` });
      w.start();
      live = [...live, w];
      return w;
    };
    const a = start(0);
    await until(() => a.held().size === LEASE_BUCKETS, 10_000);
    start(1);
    const joinTwoMs = await until(() => fair(live), 60_000);
    const c = start(2);
    const joinThreeMs = await until(() => fair(live), 60_000);
    const joinGapMs = gaps.take();
    await c.stop();
    live = live.filter((w) => w !== c);
    const cleanStopMs = await until(() => fair(live), 60_000);
    const cleanGapMs = gaps.take();
    // A worker that stops renewing: its connection drops every command, like a stopped process.
    const silent = live[1]!;
    links[1]!.disconnect();
    live = live.filter((w) => w !== silent);
    const lapseMs = await until(() => fair(live), 60_000);
    const lapseGapMs = gaps.take();
    gaps.stop();
    for (const w of live) await w.stop();
    await silent.stop().catch(() => undefined);

    const t = DEFAULT_LEASE_TIMINGS;
    const ms = (v: number) => `${Math.round(v)} ms`;
    return {
      bench: 'leases',
      setup: `${opts.rounds} rounds by 3 workers holding their share of ${LEASE_BUCKETS} buckets; hand-overs with TTL ${t.ttlMs / 1000} s, a round every ${t.renewEveryMs / 1000} s, margin ${t.marginMs / 1000} s`,
      figures: [
        { metric: 'Redis commands per lease round (one EVALSHA; the rest inside its script)', value: perRound.commands.toFixed(1) },
        { metric: 'Redis CPU per lease round', value: `${perRound.redisCpuUs.toFixed(0)} µs` },
        { metric: 'Node CPU per lease round (the worker)', value: `${perRound.nodeCpuUs.toFixed(0)} µs` },
        { metric: 'lease round trip p50 / p99', value: `${percentile(rtts, 50).toFixed(2)} / ${percentile(rtts, 99).toFixed(2)} ms` },
        { metric: 'Redis load of the leases per worker (a round every 3 s)', value: `${(perRound.commands / (t.renewEveryMs / 1000)).toFixed(0)} commands/s, ${(perRound.redisCpuUs / (t.renewEveryMs / 1000) / 1000).toFixed(3)} ms CPU/s` },
        { metric: 'fair shares after a 2nd / 3rd worker joined', value: `${ms(joinTwoMs)} / ${ms(joinThreeMs)}` },
        { metric: 'longest any bucket was unheld: a worker joins', value: ms(joinGapMs) },
        { metric: 'a worker stops cleanly (its leases released; the others see it at their next round)', value: `${ms(cleanGapMs)} (fair again after ${ms(cleanStopMs)})`, target: `≤ a round = ${ms(t.renewEveryMs)} + a round trip`, pass: cleanGapMs <= t.renewEveryMs + 100 },
        { metric: 'a worker stops renewing (lapse after the TTL)', value: `${ms(lapseGapMs)} (fair again after ${ms(lapseMs)})`, target: `≤ TTL + a round = ${ms(t.ttlMs + t.renewEveryMs)}`, pass: lapseGapMs <= t.ttlMs + t.renewEveryMs },
      ],
    };
  } finally {
    for (const c of conns) c.disconnect();
    await server.dispose();
    logger.flush();
  }
}

if (isEntryPoint(import.meta.url)) {
  await report([await runLeasesBench({ rounds: envInt('BENCH_LEASE_ROUNDS', 600, 10, 100_000) })]);
}
