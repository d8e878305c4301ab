/**
 * What one alert costs on the cluster's alert stream (RemoteOutbox → a Redis Stream entry per tick →
 * the front's consumer group → answer back on the worker's pub/sub channel) on a private
 * redis-server, with an outbox that answers at once, so only the transport is measured: one at a
 * time (an entry per alert, the worst case) and many at once (one tick's alerts share an entry).
 *
 * Each phase runs twice: once under MONITOR to count the commands (those clients sent and those run
 * inside Lua scripts), once without it for the CPU (Redis's from INFO, this Node process's from
 * process.cpuUsage: producer and consumer together) and the time.
 *
 *   npx tsx bench/alert-stream.ts
 *   BENCH_JOBS=500 BENCH_BURST=5000 npx tsx bench/alert-stream.ts
 */
import { Redis } from 'ioredis';
import { startAlertConsumer } from '../src/cluster/alert-consumer.js';
import { createRemoteOutbox } from '../src/cluster/remote-outbox.js';
import { startPrivateRedis } from '../src/cluster/redis-server.js';
import type { SendingOutboxPort } from '../src/outbox/port.js';
import { envInt, isEntryPoint, report, type BenchResult, type Figure } from './lib/result.js';
import { benchLogger, sleep } from './lib/setup.js';
import { redisCpuMs } from './lib/redis-stats.js';
import { count } from './lib/stats.js';

/** The reference workload of the design: a read every 2 s per subscription. */
const READ_EVERY_S = 2;
const REFERENCE_SUBSCRIPTIONS = 10_000;

interface Phase {
  name: string;
  jobs: number;
  /** All at once (true) or one after another. */
  burst: boolean;
  keyed: boolean;
}

interface Measured {
  clientCommands: number;
  luaCommands: number;
  byCommand: Map<string, number>;
  redisCpuMs: number;
  nodeCpuMs: number;
  wallMs: number;
}

/** Runs the benchmark and returns its figures. */
export async function runAlertStreamBench(opts: { jobs: number; burst: number }): Promise<BenchResult> {
  const server = await startPrivateRedis();
  const connection = { url: server.url };
  const prefix = 'bench:';
  const logger = benchLogger();
  let nextId = 0;
  const instant: SendingOutboxPort = { send: async () => ++nextId, edit: async () => true };
  const consumer = startAlertConsumer({ connection, prefix, outbox: instant, logger });
  const remote = createRemoteOutbox({ connection, prefix, logger });
  const admin = new Redis(server.url);
  const watcher = new Redis(server.url);
  let run = 0;
  const tally = { client: 0, lua: 0, byCommand: new Map<string, number>() };
  /** Counts every command Redis runs until the returned function is called (ioredis opens a connection for MONITOR). */
  const watch = async (): Promise<() => Promise<void>> => {
    tally.client = 0;
    tally.lua = 0;
    tally.byCommand.clear();
    const monitor = await watcher.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      const name = `${(args[0] ?? '?').toLowerCase()}${source === 'lua' ? ' (in Lua)' : ''}`;
      if (source === 'lua') tally.lua += 1;
      else tally.client += 1;
      tally.byCommand.set(name, (tally.byCommand.get(name) ?? 0) + 1);
    });
    await sleep(200);
    return async () => {
      // MONITOR's lines arrive a little after the commands.
      await sleep(200);
      monitor.disconnect();
    };
  };
  try {

    const once = async (phase: Phase): Promise<void> => {
      run += 1;
      const call = (i: number) => remote.send(1000 + (i % 500), `alert ${i}`, phase.keyed ? { kind: 'alert', idempotencyKey: `${run}:${i}` } : { kind: 'alert' });
      if (phase.burst) {
        await Promise.all(Array.from({ length: phase.jobs }, (_, i) => call(i)));
      } else {
        for (let i = 0; i < phase.jobs; i++) await call(i);
      }
    };

    const measure = async (phase: Phase): Promise<Measured> => {
      // Commands, under MONITOR.
      const stop = await watch();
      await once(phase);
      await stop();
      const counted = { clientCommands: tally.client, luaCommands: tally.lua, byCommand: new Map(tally.byCommand) };
      // CPU and time, without it.
      await sleep(200);
      const redisBefore = await redisCpuMs(admin);
      const nodeBefore = process.cpuUsage();
      const started = performance.now();
      await once(phase);
      const wallMs = performance.now() - started;
      const node = process.cpuUsage(nodeBefore);
      const redisCpu = (await redisCpuMs(admin)) - redisBefore;
      return { ...counted, redisCpuMs: redisCpu, nodeCpuMs: (node.user + node.system) / 1000, wallMs };
    };

    const phases: Phase[] = [
      { name: 'one at a time, keyed (claim)', jobs: opts.jobs, burst: false, keyed: true },
      { name: 'one at a time, no key', jobs: opts.jobs, burst: false, keyed: false },
      { name: `${count(opts.burst)} at once, keyed`, jobs: opts.burst, burst: true, keyed: true },
    ];
    // A warm-up, so the first phase does not pay for connecting and loading the scripts.
    await once({ name: 'warm-up', jobs: 50, burst: false, keyed: true });
    const figures: Figure[] = [];
    let reference: { phase: Phase; m: Measured } | undefined;
    for (const phase of phases) {
      const m = await measure(phase);
      // The cheapest way an alert goes (many at once, one entry).
      if (phase.burst) reference = { phase, m };
      const per = (n: number) => n / phase.jobs;
      // Many alerts share an entry: their share of its commands is a small fraction.
      const fix = (x: number) => x.toFixed(x >= 1 || x === 0 ? 1 : 3);
      const top = [...m.byCommand.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([name, n]) => `${name} ${fix(per(n))}`)
        .join(', ');
      figures.push(
        { metric: `${phase.name}: Redis commands per alert, sent by clients / run in Lua`, value: `${fix(per(m.clientCommands))} / ${fix(per(m.luaCommands))}` },
        { metric: `${phase.name}: most sent per alert`, value: top },
        { metric: `${phase.name}: CPU per alert, Redis / Node (producer + consumer)`, value: `${(per(m.redisCpuMs) * 1000).toFixed(0)} µs / ${(per(m.nodeCpuMs) * 1000).toFixed(0)} µs` },
        { metric: `${phase.name}: alerts a second`, value: count(phase.jobs / (m.wallMs / 1000)) },
      );
    }
    // Idle: what the blocking read and the look for entries to take over cost with nothing to do.
    const stopIdle = await watch();
    await sleep(5000);
    await stopIdle();
    figures.push({ metric: 'idle (one producer, one consumer): Redis commands a second', value: ((tally.client + tally.lua) / 5).toFixed(1) });

    if (reference) {
      const { phase, m } = reference;
      const jobsPerSecond = REFERENCE_SUBSCRIPTIONS / READ_EVERY_S;
      const perJob = (m.clientCommands + m.luaCommands) / phase.jobs;
      const redisCores = (jobsPerSecond * m.redisCpuMs) / phase.jobs / 1000;
      const nodeCores = (jobsPerSecond * m.nodeCpuMs) / phase.jobs / 1000;
      figures.push({
        metric: `one alert per read, ${count(REFERENCE_SUBSCRIPTIONS)} subscriptions read every ${READ_EVERY_S} s, at the many-at-once cost`,
        value:
          `${count(jobsPerSecond)} alerts/s ≈ ${count(jobsPerSecond * perJob)} Redis commands/s, ` +
          `${redisCores.toFixed(2)} Redis cores (Redis has one) and ${nodeCores.toFixed(2)} Node cores for the transport alone`,
      });
    }
    return {
      bench: 'Alert stream: the cost of one alert',
      setup: `RemoteOutbox → Redis Stream → consumer group → instant outbox → answer on the worker's channel, private redis-server, one producer and one consumer in one process; ${count(opts.jobs)} alerts one at a time, ${count(opts.burst)} at once`,
      figures,
    };
  } finally {
    await remote.close();
    await consumer.close();
    watcher.disconnect();
    await admin.quit();
    await server.dispose();
    logger.flush();
  }
}

if (isEntryPoint(import.meta.url)) {
  const result = await runAlertStreamBench({ jobs: envInt('BENCH_JOBS', 300, 10, 100_000), burst: envInt('BENCH_BURST', 2000, 10, 100_000) });
  await report([result]);
}
