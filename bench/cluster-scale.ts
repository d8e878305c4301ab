/**
 * The cluster's scaling benchmark (issue 13): the real bot as one front and 1, 2 or 3 workers on a
 * private redis-server, each worker sending from its own loopback address (127.0.0.2–4) to a sandbox
 * that counts the read limit per address (LIMIT_SCOPE=address, the service's real limits: 30 reads a
 * minute per host and address), 60 users with one subscription each seeded into Redis, in a world
 * where items appear, move and go. For each size: reads a minute per host in all and per address
 * (they should grow with the addresses: 3 addresses ⇒ 3× one process's budget), requests over a limit,
 * the workers' CPU per read, Redis's CPU per read, and alert latency (an item's appearance → its
 * first sendMessage, for items born during the run). One worker is the single process's budget: the
 * baseline the ratios are taken against, in the same run.
 *
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/cluster-scale.js
 *   (BENCH_CLUSTER_SECONDS=90 to measure longer; default 60 after warm-up)
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/cluster/redis-server.js';
import { startFakeTelegram } from '../src/fake-telegram/server.js';
import { startSandbox } from '../src/sandbox/index.js';
import type { Service } from '../src/service/services.js';
import { leasesHeld, seedUsers, sleep, startBotProcess, waitUntil } from '../test/support/cluster.js';
import { freePort } from '../test/support/ports.js';
import { cpuMs } from './lib/proc.js';
import { tempDataDir } from './lib/setup.js';
import { percentile } from './lib/stats.js';

const USERS = 60;
const SERVICES: Service[] = ['arbs_live', 'arbs_prematch'];
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 60);
const ITEM_ID = /\b[0-9a-f]{16}\b/g;

interface Row {
  workers: number;
  readsPerMinute: number;
  perAddress: Record<string, number>;
  breaches: number;
  cpuPerReadMs: number;
  redisCpuPerReadMs: number;
  latencyP50: number;
  latencyP95: number;
  alerts: number;
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const num = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (num('used_cpu_sys') + num('used_cpu_user')) * 1000;
}

async function runSize(workers: number): Promise<Row> {
  const redisServer = await startPrivateRedis();
  const sandbox = await startSandbox({
    keys: Array.from({ length: USERS }, (_, i) => ({ accessKey: `scale-key-${i + 1}`, secret: `scale-secret-${i + 1}` })),
    limits: { scope: 'address', tokenScope: 'key' },
    world: { itemsPerService: 6, meanLifetimeMs: 90_000, moveEveryMs: 30_000 },
    seed: 7,
  });
  const telegram = await startFakeTelegram({});
  const children = new Set<ChildProcess>();
  const data = await tempDataDir('cluster');
  const monitor = new Redis(redisServer.url);
  try {
    const encryptionKey = randomBytes(32).toString('hex');
    const prefix = 'bb:';
    await seedUsers({
      url: redisServer.url,
      prefix,
      encryptionKey,
      users: Array.from({ length: USERS }, (_, n) => ({ id: 2001 + n, accessKey: `scale-key-${n + 1}`, secret: `scale-secret-${n + 1}`, service: SERVICES[n % 2] as Service })),
    });
    const basePort = await freePort();
    const common: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...sandbox.urls,
      BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      ENCRYPTION_KEY: encryptionKey,
      REDIS_URL: redisServer.url,
      REDIS_PREFIX: prefix,
      LIMIT_SCOPE: 'address',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    };
    const firstSends = new Map<string, number>();
    const stopRecording = telegram.onActivity((e) => {
      if (e.kind !== 'sent' || !e.message) return;
      const text = `${e.message.text} ${JSON.stringify(e.message.reply_markup ?? null)}`;
      for (const id of new Set(text.match(ITEM_ID) ?? [])) {
        const key = `${e.message.chat_id}|${id}`;
        if (!firstSends.has(key)) firstSends.set(key, Date.now());
      }
    });
    startBotProcess({ ...common, ROLE: 'front', HTTP_PORT: String(basePort), DATA_DIR: `${data.dir}/front` }, 'front', children);
    const workerPids: number[] = [];
    for (let i = 0; i < workers; i++) {
      const child = startBotProcess(
        { ...common, ROLE: 'worker', BB_LOCAL_ADDRESS: ADDRESSES[i], HTTP_PORT: String(basePort + 1 + i), DATA_DIR: `${data.dir}/worker-${i + 1}` },
        `worker-${i + 1}`,
        children,
      );
      if (child.pid !== undefined) workerPids.push(child.pid);
    }
    const ports = Array.from({ length: workers }, (_, i) => basePort + 1 + i);
    await waitUntil('the workers sharing the 64 buckets', async () => (await leasesHeld(ports)).reduce((a, b) => a + b, 0) === 64, 120_000);
    await sleep(15_000); // every subscription's token and first read

    const from = Date.now();
    const cpuBefore = workerPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const redisBefore = await redisCpuMs(monitor);
    await sleep(SECONDS * 1_000);
    const to = Date.now();
    const cpu = workerPids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore;
    const redisCpu = (await redisCpuMs(monitor)) - redisBefore;
    await sleep(3_000);
    stopRecording();

    const counters = sandbox.counters();
    const reads = counters.readLog.filter((r) => r.at >= from && r.at < to);
    const perAddress: Record<string, number> = {};
    for (const r of reads) perAddress[r.address] = (perAddress[r.address] ?? 0) + 1;
    const minutes = (to - from) / 60_000;
    for (const a of Object.keys(perAddress)) perAddress[a] = Math.round(((perAddress[a] ?? 0) / minutes / SERVICES.length) * 10) / 10;

    // Latency of items born during the measured window: appearance → first send to each chat.
    const latencies: number[] = [];
    for (const [key, at] of firstSends) {
      const id = key.slice(key.indexOf('|') + 1);
      const born = sandbox.world.appearedAt(id);
      if (born !== undefined && born >= from && born < to) latencies.push(at - born);
    }
    latencies.sort((a, b) => a - b);
    return {
      workers,
      readsPerMinute: Math.round((reads.length / minutes / SERVICES.length) * 10) / 10,
      perAddress,
      breaches: counters.breaches,
      cpuPerReadMs: cpu / Math.max(1, reads.length),
      redisCpuPerReadMs: redisCpu / Math.max(1, reads.length),
      latencyP50: percentile(latencies, 50),
      latencyP95: percentile(latencies, 95),
      alerts: latencies.length,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await waitUntil('the bot processes stopped', () => children.size === 0, 30_000).catch(() => {
      for (const child of children) child.kill('SIGKILL');
    });
    monitor.disconnect();
    await telegram.close();
    await sandbox.close();
    await redisServer.dispose();
    await data.remove();
  }
}

const rows: Row[] = [];
for (const workers of [1, 2, 3]) {
  console.log(`running ${workers} worker(s) for ${SECONDS} s…`);
  rows.push(await runSize(workers));
}
const base = rows[0] as Row;
console.log('\n| workers (addresses) | reads a minute per host | per address | × one process | over a limit | worker CPU per read | Redis CPU per read | alert latency p50 / p95 (alerts) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.workers} | ${r.readsPerMinute} | ${Object.values(r.perAddress).join(' / ')} | × ${(r.readsPerMinute / base.readsPerMinute).toFixed(2)} | ${r.breaches} | ` +
      `${r.cpuPerReadMs.toFixed(2)} ms | ${r.redisCpuPerReadMs.toFixed(2)} ms | ${(r.latencyP50 / 1000).toFixed(2)} / ${(r.latencyP95 / 1000).toFixed(2)} s (${r.alerts}) |`,
  );
}
