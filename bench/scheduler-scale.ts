/**
 * Scheduler scale: the bot's polling side (store, vault, service client, scheduler, notifier and
 * outbox, wired as `src/app.ts` wires them) with 1,000 and with 5,000 subscriptions (users × 2
 * services, each user with their own sandbox key) on the real clock, against the sandbox and the
 * fake Bot API running in a separate process, so the CPU time and memory measured are the bot's.
 *
 *   node .bench-build/bench/scheduler-scale.js             # after `npx tsc -p tsconfig.bench.json`: as shipped
 *   npx tsx bench/scheduler-scale.ts                       # the same through tsx (about 40 MB more memory)
 *   BENCH_SECONDS=30 BENCH_SIZES=1000 npx tsx bench/scheduler-scale.ts
 *   BENCH_NOTIFIER=counting npx tsx bench/scheduler-scale.ts   # count diff events instead of sending
 *   BENCH_POLL_SECONDS=0 BENCH_WARMUP_SECONDS=10               # the defaults (0: no poll floor, as shipped)
 *   BENCH_HEAP_SNAPSHOT=/tmp/scale.heapsnapshot                # what is live at the end (after a full GC)
 *
 * Each size runs in a fresh process with the Node flags of `npm start` and the image's
 * MALLOC_ARENA_MAX. Targets (issue 4): scheduling lag p99 < 250 ms at 1,000 subscriptions;
 * resident memory < 300 MB at 5,000; no request over any limit (sandbox counters).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { Api } from 'grammy';
import { telegramFetch } from '../src/bot/telegram-fetch.js';
import { Outbox } from '../src/outbox/outbox.js';
import { systemClock } from '../src/clock.js';
import type { Logger } from '../src/logger.js';
import { loadConfig, type Config } from '../src/config.js';
import type { DiffEvent } from '../src/scheduler/diff.js';
import { createNotifier } from '../src/alerts/notifier.js';
import type { Notifier, NotifierStats, SubscriptionRef } from '../src/scheduler/port.js';
import { createScheduler } from '../src/scheduler/scheduler.js';
import { createServiceClient } from '../src/service/client.js';
import { SERVICES } from '../src/service/services.js';
import type { UserRecord } from '../src/store/schema.js';
import type { Store } from '../src/store/port.js';
import { openStore } from '../src/store/store.js';
import { Vault } from '../src/store/vault.js';
import { LagRecordingQueue } from './lib/lag-queue.js';
import { botEnv, botNodeFlags, envInt, envIntList, handOver, isEntryPoint, report, runBenchProcess, siblingUrl, type BenchResult } from './lib/result.js';
import { startBackend, type Backend } from './lib/scale-backend.js';
import { addUsers, writeFilters } from './lib/scale-users.js';
import { itemsEndpoint, tokenEndpoint } from '../src/service/paths.js';
import type { BareReadsOptions } from './bare-reads.js';
import { benchLogger, sleep, tempDataDir } from './lib/setup.js';
import { count, mb, ms, percentile } from './lib/stats.js';

/** The sandbox world: larger than its default, and calm enough that alerts are not a flood. */
const WORLD = { eventsPerService: 40, itemsPerService: 30, meanLifetimeMs: 10 * 60_000, moveEveryMs: 60_000 };

/** The process with every module loaded and nothing started: what the figures grow from. */
const RSS_AT_LOAD = process.memoryUsage().rss;

/**
 * Lag taken after the start-up burst (every subscription's first token, filter and read at once)
 * is reported separately: after BENCH_WARMUP_SECONDS (default 10, at most a third of the run).
 */
const WARMUP_MS = envInt('BENCH_WARMUP_SECONDS', 10, 0, 3600) * 1000;

export type NotifierChoice = 'outbox' | 'counting';

export interface SchedulerScaleOptions {
  /** Subscriptions; users = subscriptions / 2. */
  subscriptions: number;
  seconds: number;
  pollSeconds: number;
  notifier: NotifierChoice;
}

/** Counts what the scheduler hands over, and sends nothing. */
class CountingNotifier implements Notifier {
  private readonly counts: NotifierStats = { alerts: 0, edits: 0, skipped: 0, held: 0, notices: 0, failures: 0, alertsLastMinute: 0 };

  notify(_sub: SubscriptionRef, _user: Readonly<UserRecord>, events: readonly DiffEvent[]): void {
    for (const e of events) {
      if (e.type === 'new') this.counts.alerts += 1;
      else this.counts.edits += 1;
    }
  }
  notice(): void {
    this.counts.notices += 1;
  }
  stats(): NotifierStats {
    return { ...this.counts };
  }
  async idle(): Promise<void> {}
}

/** Runs one size and returns its figures. */
export async function runSchedulerScale(opts: SchedulerScaleOptions): Promise<BenchResult> {
  const users = Math.ceil(opts.subscriptions / 2);
  const backend = await startBackend({ keys: users, seed: 5, world: WORLD });
  const data = await tempDataDir('scale');
  const logger = benchLogger();
  try {
    return await measure(opts, users, backend, data.dir, logger);
  } finally {
    logger.flush();
    await backend.close().catch((err: unknown) => console.error(err));
    await data.remove();
  }
}

async function measure(opts: SchedulerScaleOptions, users: number, backend: Backend, dataDir: string, logger: Logger): Promise<BenchResult> {
  const config = loadConfig({
    ...backend.urls,
    BOT_TOKEN: backend.telegram.token,
    TELEGRAM_API_ROOT: backend.telegram.apiRoot,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // 0: not set, as shipped (every subscription read at the read limit's pace).
    ...(opts.pollSeconds > 0 ? { POLL_INTERVAL_SECONDS: String(opts.pollSeconds) } : {}),
  });
  const store = await openStore({ dataDir, logger });
  const vault = await Vault.open({ dataDir, envKey: config.ENCRYPTION_KEY, logger });
  const client = createServiceClient({ config, logger });
  const outbox =
    opts.notifier === 'outbox'
      ? new Outbox({ api: new Api(backend.telegram.token, { apiRoot: backend.telegram.apiRoot, timeoutSeconds: 30, fetch: telegramFetch() }), logger })
      : undefined;
  const notifier = outbox ? createNotifier({ store, client, outbox, logger, clock: systemClock }) : new CountingNotifier();
  const queue = new LagRecordingQueue();
  const scheduler = createScheduler({ config, logger, store, client, notifier, vault, queue, ledgerFile: join(dataDir, 'token-ledger.json') });

  try {
    const subscriptions = addUsers(store, vault, users, opts.subscriptions);
    await writeFilters(config, logger, store, vault);
    await client.dictionaries('en');
    await client.dictionaries('ru');
    await store.flush();

    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    let rssPeak = process.memoryUsage().rss;
    let heapPeak = process.memoryUsage().heapUsed;
    const sample = () => {
      const m = process.memoryUsage();
      rssPeak = Math.max(rssPeak, m.rss);
      heapPeak = Math.max(heapPeak, m.heapUsed);
    };
    const sampler = setInterval(sample, 1_000);
    const backendBefore = await backend.stats();
    const cpuBefore = process.cpuUsage();
    const startedAt = Date.now();
    loopDelay.enable();
    outbox?.start();
    scheduler.start();

    const warmupMs = Math.min(WARMUP_MS, Math.round((opts.seconds * 1000) / 3));
    /** CPU and reads when the warm-up ends: the steady state's CPU per read is counted from here. */
    let atWarm: { cpu: NodeJS.CpuUsage; reads: number; at: number } | undefined;
    for (let s = 1; s <= opts.seconds; s++) {
      await sleep(Math.max(0, startedAt + s * 1000 - Date.now()));
      if (!atWarm && s * 1000 >= warmupMs) atWarm = { cpu: process.cpuUsage(), reads: scheduler.stats().reads, at: Date.now() };
      if (s % 10 === 0 || s === opts.seconds) {
        const st = scheduler.stats();
        const m = process.memoryUsage();
        console.log(
          `  ${opts.subscriptions} subs, ${s}/${opts.seconds} s: reads ${st.reads}, in flight ${st.inFlight}, ` +
            `lag p99 (last 1,024) ${st.lagMsP99} ms, intervals × ${st.loadFactor.toFixed(2)}, outbox ${outbox?.depth ?? 0}, ` +
            `RSS ${mb(m.rss)} (heap ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, outside it ${mb(m.rss - m.heapTotal)}, buffers ${mb(m.arrayBuffers)}), sockets ${sockets()}`,
        );
      }
    }

    sample();
    const elapsedMs = Date.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    const steadyCpu = atWarm ? process.cpuUsage(atWarm.cpu) : undefined;
    const steadyMs = atWarm ? Date.now() - atWarm.at : 0;
    const steadyCpuMs = steadyCpu ? (steadyCpu.user + steadyCpu.system) / 1000 : 0;
    const st = scheduler.stats();
    const steadyReads = atWarm ? st.reads - atWarm.reads : 0;
    const load = loadavg()[0] ?? 0;
    loopDelay.disable();
    clearInterval(sampler);
    // What is still alive with everything running (the rest of the peak was garbage not yet
    // collected); needs --expose-gc, which the per-size processes get.
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const live = gc ? process.memoryUsage() : undefined;
    const snapshotFile = process.env.BENCH_HEAP_SNAPSHOT?.trim();
    if (snapshotFile) console.log(`  heap snapshot: ${writeHeapSnapshot(snapshotFile)}`);
    await scheduler.stop();
    const backendAfter = await backend.stats();
    // The floor: the same reads at the rate the bot kept, with nothing of the bot around them.
    const floor = atWarm && steadyReads > 0 && BARE_SECONDS > 0 ? await bareReads(config, store, vault, steadyReads / (steadyMs / 1000), dataDir) : undefined;
    const notes = notifier.stats();
    const outboxDepth = outbox?.depth ?? 0;

    const lags = queue.lagsSince(startedAt);
    const steady = queue.lagsSince(startedAt + warmupMs);
    const steadyP99 = percentile(steady, 99);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const backendCpuMs = (backendAfter.cpuUs - backendBefore.cpuUs) / 1000;
    const breaches = backendAfter.breaches - backendBefore.breaches;
    const answered429 = (backendAfter.status['429'] ?? 0) - (backendBefore.status['429'] ?? 0);
    const sentByTelegram = backendAfter.telegramSent - backendBefore.telegramSent;
    const editedByTelegram = backendAfter.telegramEdited - backendBefore.telegramEdited;
    const atThousand = opts.subscriptions === 1_000;
    const atFiveThousand = opts.subscriptions === 5_000;

    return {
      bench: `Scheduler scale: ${count(subscriptions)} subscriptions`,
      setup:
        `${count(users)} users × 2 services, own key each; ${Math.round(elapsedMs / 1000)} s real clock; ${opts.pollSeconds > 0 ? `POLL_INTERVAL_SECONDS=${opts.pollSeconds}` : 'POLL_INTERVAL_SECONDS unset (as shipped)'}, ` +
        `default limits (scope key); sandbox + fake Bot API in a separate process; notifier: ` +
        (opts.notifier === 'outbox' ? 'real notifier → Outbox → fake Bot API' : 'counting (no sends)') +
        `; load average at the end ${load.toFixed(1)} on ${availableParallelism()} cores`,
      figures: [
        { metric: 'reads done (per second)', value: `${count(st.reads)} (${(st.reads / (elapsedMs / 1000)).toFixed(0)}/s)` },
        { metric: 'read errors / local refusals', value: `${count(st.errors)} / ${count(st.deferred)}` },
        { metric: 'token requests', value: count(st.tokenRequests) },
        {
          metric: 'bot CPU time (share of one core; per read)',
          value: `${(cpuMs / 1000).toFixed(1)} s (${((cpuMs / elapsedMs) * 100).toFixed(0)} %; ${(cpuMs / Math.max(1, st.reads)).toFixed(1)} ms)`,
        },
        ...(atWarm && steadyReads > 0
          ? [
              {
                metric: `bot CPU after the first ${(warmupMs / 1000).toFixed(0)} s (reads per second; per read)`,
                value: `${((steadyCpuMs / steadyMs) * 100).toFixed(0)} % of a core (${(steadyReads / (steadyMs / 1000)).toFixed(0)}/s; ${(steadyCpuMs / steadyReads).toFixed(2)} ms)`,
                ...(atThousand ? { target: '≤ 0.5 ms a read', pass: steadyCpuMs / steadyReads <= 0.5 } : {}),
              },
            ]
          : []),
        ...(floor
          ? [
              { metric: 'the floor: bare undici reads at that rate (own process; per read)', value: `${floor.toFixed(2)} ms` },
              { metric: 'the bot per read ÷ the floor', value: `× ${(steadyCpuMs / steadyReads / floor).toFixed(2)}` },
            ]
          : []),
        {
          metric: 'resident memory peak',
          value: mb(rssPeak),
          ...(atFiveThousand ? { target: '< 300 MB', pass: rssPeak < 300 * 1024 * 1024 } : {}),
        },
        { metric: 'resident memory at load (modules, no users)', value: mb(RSS_AT_LOAD) },
        { metric: 'JS heap used peak', value: mb(heapPeak) },
        ...(live
          ? [{ metric: 'after a full GC at the end: RSS / heap held / heap live', value: `${mb(live.rss)} / ${mb(live.heapTotal)} / ${mb(live.heapUsed)}` }]
          : []),
        { metric: 'scheduling lag p50 / p99 (whole run)', value: `${ms(percentile(lags, 50))} / ${ms(percentile(lags, 99))}` },
        { metric: 'scheduling lag max (whole run)', value: ms(lags.length > 0 ? percentile(lags, 100) : 0) },
        {
          metric: `scheduling lag p50 / p99 (after the first ${(warmupMs / 1000).toFixed(0)} s)`,
          value: `${ms(percentile(steady, 50))} / ${ms(steadyP99)}`,
          ...(atThousand ? { target: 'p99 < 250 ms', pass: steadyP99 < 250 } : {}),
        },
        { metric: 'scheduler stats lagMsP99 (last 1,024)', value: ms(st.lagMsP99) },
        { metric: 'poll intervals stretched by (backpressure, at the end)', value: `× ${st.loadFactor.toFixed(2)}` },
        { metric: 'event-loop delay p99', value: ms(loopDelay.percentile(99) / 1e6) },
        {
          metric: outbox ? 'alerts / edits handed to the outbox' : 'diff events counted: new / other',
          value: `${count(notes.alerts)} / ${count(notes.edits)}`,
        },
        ...(outbox
          ? [{ metric: 'Bot API sends / edits (queued at end)', value: `${count(sentByTelegram)} / ${count(editedByTelegram)} (${count(outboxDepth)})` }]
          : []),
        {
          metric: 'sandbox limit breaches (429 answers)',
          value: `${count(breaches)} (${count(answered429)})`,
          target: '0',
          pass: breaches === 0 && answered429 === 0,
        },
        { metric: 'sandbox process CPU (share of one core)', value: `${((backendCpuMs / elapsedMs) * 100).toFixed(0)} %` },
      ],
    };
  } finally {
    await scheduler.stop();
    outbox?.stop();
    await client.close();
    await store.close();
  }
}

/** Seconds of the floor's run (bench/bare-reads.ts) after the bot's; 0 leaves it out. */
const BARE_SECONDS = envInt('BENCH_BARE_SECONDS', 20, 0, 3600);

/** CPU ms per read of bench/bare-reads.ts reading every subscription of the store as the bot does, at `readsPerSecond`. */
async function bareReads(config: Config, store: Store, vault: Vault, readsPerSecond: number, tempDir: string): Promise<number> {
  const polls = store.listUsers().flatMap((user) =>
    SERVICES.flatMap((service) => {
      if (!user.filters[service] || !user.key) return [];
      const { method, url } = itemsEndpoint(config, service, user.key.accessKey);
      const secret = vault.decrypt(user.key.secretEnc);
      return [{ secret, service, tokenUrl: tokenEndpoint(config, user.key.accessKey).url, method, url }];
    }),
  );
  const options: BareReadsOptions = { polls, readsPerSecond, seconds: BARE_SECONDS, warmupSeconds: 3 };
  // A file, not the environment: a thousand polls are more than one variable may hold.
  const file = join(tempDir, 'bare-reads.json');
  writeFileSync(file, JSON.stringify(options), { mode: 0o600 });
  const [result] = await runBenchProcess(siblingUrl('bare-reads', import.meta.url).href, { ...botEnv(), BENCH_BARE_FILE: file }, botNodeFlags());
  const perRead = result?.values?.cpuMsPerRead;
  if (perRead === undefined) throw new Error('the bare reads reported no CPU per read');
  return perRead;
}

/** Sockets open in this process, idle keep-alive ones included (Linux; 0 elsewhere). */
function sockets(): number {
  try {
    return readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
      } catch {
        return false;
      }
    }).length;
  } catch {
    return 0;
  }
}

function notifierChoice(): NotifierChoice {
  const raw = process.env.BENCH_NOTIFIER?.trim() || 'outbox';
  if (raw !== 'outbox' && raw !== 'counting') throw new Error('BENCH_NOTIFIER: expected outbox or counting');
  return raw;
}

if (isEntryPoint(import.meta.url)) {
  const seconds = envInt('BENCH_SECONDS', 60, 5, 3600);
  const pollSeconds = envInt('BENCH_POLL_SECONDS', 0, 0, 3600);
  const one = process.env.BENCH_SUBS;
  if (one !== undefined && one.trim() !== '') {
    await report([
      await runSchedulerScale({ subscriptions: envInt('BENCH_SUBS', 1_000, 2, 100_000), seconds, pollSeconds, notifier: notifierChoice() }),
    ]);
  } else {
    // Each size in a fresh process: one run's heap and sockets stay out of the next one's figures.
    const results: BenchResult[] = [];
    for (const size of envIntList('BENCH_SIZES', [1_000, 5_000], 2, 100_000)) {
      results.push(...(await runBenchProcess(import.meta.url, { ...botEnv(), BENCH_SUBS: String(size) }, ['--expose-gc', ...botNodeFlags()])));
    }
    await handOver(results);
  }
}
