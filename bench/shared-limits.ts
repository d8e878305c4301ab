/**
 * What the limits shared through Redis cost per send (issue 13): Redis commands and the round
 * trips a caller waits for, the bot's CPU against the in-process limits alone, Redis's own CPU,
 * the latency of an admission, and how many admissions one connection carries when many callers
 * ask at once. The sends go to many scopes (a thousand keys, each well inside its 30 a minute),
 * as in a busy bot, so each window holds a few dozen sends at most; nothing is sent anywhere:
 * this measures the limiter alone.
 *
 *   npx tsx bench/shared-limits.ts
 *   BENCH_SENDS=50000 BENCH_SCOPES=2000 npx tsx bench/shared-limits.ts
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/shared-limits.ts   # an existing Redis (keys under a fresh prefix, removed after)
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { systemClock } from '../src/clock.js';
import { createLimitWindows } from '../src/cluster/limit-window.js';
import { redisServerAvailable, startPrivateRedis, type PrivateRedis } from '../src/cluster/redis-server.js';
import { sharedLimits } from '../src/cluster/shared-limits.js';
import { createLimits, type LimitScope, type Limits } from '../src/service/limits.js';
import { redisCommandStats, redisCpuMs } from './lib/redis-stats.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { count, median, percentile } from './lib/stats.js';

const ORIGIN = 'http://127.0.0.1:9';
const CONFIG = {
  BB_AUTH_URL: `${ORIGIN}/auth`,
  BB_DICTS_URL: `${ORIGIN}/dicts`,
  BB_ARBS_PREMATCH_URL: `${ORIGIN}/arbs-prematch`,
  BB_ARBS_LIVE_URL: `${ORIGIN}/arbs-live`,
  BB_MIDDLES_PREMATCH_URL: `${ORIGIN}/middles-prematch`,
  BB_MIDDLES_LIVE_URL: `${ORIGIN}/middles-live`,
  BB_VALUEBETS_PREMATCH_URL: `${ORIGIN}/valuebets-prematch`,
  BB_VALUEBETS_LIVE_URL: `${ORIGIN}/valuebets-live`,
  BB_PATH_FORM: 'A',
  BB_ACCOUNT_PREFIX: 'bb-',
  LIMIT_TOKENS_PER_HOUR: 20,
  LIMIT_FILTERS_PER_HOUR: 20,
  LIMIT_ITEMS_PER_MINUTE: 30,
  LIMIT_DICTS_PER_DAY: 24,
  LIMIT_SCOPE: 'key',
} as const;

/** Redis's counters: commands sent by clients (scripts), commands run in all (inside scripts too), CPU used. */
async function redisCounters(redis: Redis): Promise<{ sent: number; run: number; cpuMs: number }> {
  const { calls } = await redisCommandStats(redis);
  let sent = 0;
  let run = 0;
  for (const [name, n] of Object.entries(calls)) {
    if (name === 'info' || name === 'ping') continue;
    run += n;
    if (name === 'evalsha' || name === 'eval' || name === 'zrem') sent += n;
  }
  return { sent, run, cpuMs: await redisCpuMs(redis) };
}

/** Counters before and after `work`, per send (the last releases, not waited for, have landed). */
async function perSend(redis: Redis, sends: number, work: () => Promise<void>): Promise<{ sent: number; run: number; cpuUs: number }> {
  const before = await redisCounters(redis);
  await work();
  await redis.ping();
  const after = await redisCounters(redis);
  return { sent: (after.sent - before.sent) / sends, run: (after.run - before.run) / sends, cpuUs: ((after.cpuMs - before.cpuMs) * 1000) / sends };
}

const microseconds = (value: number) => `${value.toFixed(1)} µs`;

interface Phase {
  cpuUsPerSend: number;
  wallMs: number;
  latencies: number[];
}

/** `sends` admissions and releases, `concurrency` callers at a time, spread over `scopes` keys of their own (named after the phase). */
async function drive(limits: Limits, phase: string, sends: number, scopes: number, concurrency: number): Promise<Phase> {
  const scopeOf = (i: number): LimitScope => ({ kind: 'items', accessKey: `${phase}-${i % scopes}`, service: 'arbs_live' });
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < sends; i = next++) {
      const t = performance.now();
      const permit = await limits.acquire(scopeOf(i), { wait: false, priority: 'poll' });
      latencies.push(performance.now() - t);
      permit.release();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuUsPerSend: (used.user + used.system) / sends, wallMs, latencies };
}

export async function runSharedLimits(opts: { sends: number; scopes: number; concurrency: number }): Promise<BenchResult> {
  const { sends, scopes, concurrency } = opts;
  if (sends / scopes > CONFIG.LIMIT_ITEMS_PER_MINUTE) throw new Error('BENCH_SENDS / BENCH_SCOPES must stay within 30 (every send admitted)');
  let server: PrivateRedis | undefined;
  let url = process.env.REDIS_URL;
  if (!url) {
    if (!redisServerAvailable()) {
      return { bench: 'shared limits (Redis)', setup: 'skipped: no redis-server on PATH and no REDIS_URL', figures: [] };
    }
    server = await startPrivateRedis();
    url = server.url;
  }
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  const prefix = `bbbench:${randomBytes(4).toString('hex')}:`;
  try {
    const windows = createLimitWindows(redis, { prefix });
    const fresh = () => createLimits({ config: CONFIG, clock: systemClock });
    // Warm-up: JIT, the scripts loaded, the connection busy.
    const warm = sharedLimits(fresh(), windows);
    await drive(warm, 'warm', 2_000, 2_000, 16);
    await warm.close();

    const local = fresh();
    const alone = await drive(local, 'alone', sends, scopes, 1);
    await local.close();

    let one: Phase | undefined;
    const oneCounts = await perSend(redis, sends, async () => {
      const shared = sharedLimits(fresh(), windows, { localAddress: '127.0.0.2' });
      one = await drive(shared, 'one', sends, scopes, 1);
      await shared.close();
    });
    // Answers slower than the release slack: each send is moved to its answer's time in Redis.
    let slow: Phase | undefined;
    const slowCounts = await perSend(redis, sends, async () => {
      const shared = sharedLimits(fresh(), windows, { releaseSlackMs: 0 });
      slow = await drive(shared, 'slow', sends, scopes, 1);
      await shared.close();
    });
    let busy: Phase | undefined;
    const busyCounts = await perSend(redis, sends, async () => {
      const many = sharedLimits(fresh(), windows, { localAddress: '127.0.0.3' });
      busy = await drive(many, 'many', sends, scopes, concurrency);
      await many.close();
    });

    // Refusals: one scope full, asked by fresh processes (a process refused once waits out its pause locally).
    const full = sharedLimits(fresh(), windows);
    for (let i = 0; i < CONFIG.LIMIT_ITEMS_PER_MINUTE; i++) (await full.acquire({ kind: 'items', accessKey: 'full', service: 'arbs_live' })).release();
    await full.close();
    const refusals = 1_000;
    const refusalCounts = await perSend(redis, refusals, async () => {
      for (let i = 0; i < refusals; i++) {
        const other = sharedLimits(fresh(), windows);
        await other.acquire({ kind: 'items', accessKey: 'full', service: 'arbs_live' }, { wait: false }).catch(() => undefined);
        await other.close();
      }
    });
    if (!one || !slow || !busy) throw new Error('a phase did not run');

    return {
      bench: 'shared limits (Redis)',
      setup: `${count(sends)} sends over ${count(scopes)} key scopes (30 a minute each), acquire + release, one connection, Redis on loopback${server ? ' (private redis-server)' : ''}`,
      figures: [
        { metric: 'round trips per send, answer within the slack (acquire)', value: oneCounts.sent.toFixed(2), target: '1', pass: Math.round(oneCounts.sent) === 1 },
        { metric: 'round trips per send, slower answer (acquire + release)', value: slowCounts.sent.toFixed(2), target: '2', pass: Math.round(slowCounts.sent) === 2 },
        { metric: 'round trips a caller waits for per send', value: '1', target: '1 (a release is not waited for)' },
        { metric: 'commands Redis runs per send, inside the scripts (fast / slow)', value: `${oneCounts.run.toFixed(1)} / ${slowCounts.run.toFixed(1)}` },
        { metric: 'round trips per refusal', value: refusalCounts.sent.toFixed(2) },
        { metric: 'bot CPU per send, in-process limits alone', value: microseconds(alone.cpuUsPerSend) },
        { metric: 'bot CPU per send, shared, one caller (fast / slow answers)', value: `${microseconds(one.cpuUsPerSend)} / ${microseconds(slow.cpuUsPerSend)}` },
        { metric: `bot CPU per send, shared, ${concurrency} callers at once`, value: microseconds(busy.cpuUsPerSend) },
        { metric: 'Redis CPU per send, one caller (fast / slow answers)', value: `${microseconds(oneCounts.cpuUs)} / ${microseconds(slowCounts.cpuUs)}` },
        { metric: `Redis CPU per send, ${concurrency} callers at once`, value: microseconds(busyCounts.cpuUs) },
        { metric: 'shared admission latency, one caller (p50 / p99)', value: `${median(one.latencies).toFixed(3)} / ${percentile(one.latencies, 99).toFixed(3)} ms` },
        { metric: `admissions a second, one caller / ${concurrency} at once`, value: `${count((sends / one.wallMs) * 1000)} / ${count((sends / busy.wallMs) * 1000)}` },
      ],
    };
  } finally {
    const keys = await redis.keys(`${prefix}*`).catch(() => []);
    if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
    redis.disconnect();
    await server?.dispose();
  }
}

if (isEntryPoint(import.meta.url)) {
  const result = await runSharedLimits({
    sends: envInt('BENCH_SENDS', 20_000, 100, 1_000_000),
    scopes: envInt('BENCH_SCOPES', 1_000, 1, 100_000),
    concurrency: envInt('BENCH_CONCURRENCY', 64, 1, 10_000),
  });
  await report([result]);
}
