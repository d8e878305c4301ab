/**
 * What a bench reads off Redis: its CPU (INFO cpu), each command's calls and time (INFO
 * commandstats), and a MONITOR sample of which commands hit which keys.
 */
import type { Redis } from 'ioredis';
import { monitorRedis } from '../../test/support/redis-monitor.js';
import { sleep } from './setup.js';

/** Redis's CPU so far (user + sys), ms. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const num = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (num('used_cpu_sys') + num('used_cpu_user')) * 1000;
}

/** Calls and µs inside each command so far (INFO commandstats). A script's time (evalsha) holds its inner commands', which are also counted under their own names. */
export async function redisCommandStats(redis: Redis): Promise<{ calls: Record<string, number>; us: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const us: Record<string, number> = {};
  for (const m of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    calls[m[1]!] = Number(m[2]);
    us[m[1]!] = Number(m[3]);
  }
  return { calls, us };
}

/** What grew between two snapshots of per-command counters. */
export const grown = (after: Record<string, number>, before: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).map(([c, n]) => [c, n - (before[c] ?? 0)]).filter(([, n]) => (n as number) > 0));

/**
 * BENCH_REDIS_MONITOR_MS: Redis's MONITOR for that long, its commands counted by command and key
 * (numbers and ids in the key folded to `#`), scripts' inner commands included; the top 25 printed.
 */
export async function monitorSample(url: string, ms: number): Promise<void> {
  const counts = new Map<string, number>();
  // A plain socket: ioredis's own monitor() fails on this version ("Command queue state error").
  const mon = await monitorRedis(url, ({ args }) => {
    const key = args[1] === undefined ? '' : args[1].replace(/[0-9a-f]{16,}|[0-9]+|k-[A-Za-z0-9_-]{32}/g, '#');
    const name = `${(args[0] ?? '').toLowerCase()} ${args[0]?.toLowerCase().startsWith('eval') ? '' : key}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  await sleep(ms);
  mon.close();
  const all = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(`  MONITOR ${ms} ms: ${all} commands; top: ${[...counts].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, n]) => `${k.trim()} ${n}`).join(', ')}`);
}
