/**
 * The embedded store of a bot a week old: what each alert printed (src/ledger/prints.ts), kept a
 * week for its ✅ Placed, for BENCH_STORE_PRINTS puts (default 100,000: 300 users' alerts, each
 * item printed again 1 to 6 times as it moved, the last four versions held), against the same
 * store with no prints, side by side in one run, at the store's shipped settings. For each: the
 * CPU of a put (an alert's print), the time to open the store and the heap it then holds (after a
 * full collection), then a busy minute squeezed into
 * 60 rounds (25 new prints, a read's status and a user's change each, then the write that change
 * waits for): the CPU a round, the longest event-loop stop, and the files' sizes.
 *
 *   npx tsx bench/store-prints.ts
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { silentLogger } from '../src/logger.js';
import type { AlertPrint } from '../src/ledger/prints.js';
import { openStore } from '../src/store/store.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';

const PUTS = envInt('BENCH_STORE_PRINTS', 100_000, 0, 2_000_000);
const USERS = 300;
const ROUNDS = 60;
const PRINTS_A_ROUND = 25;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** The heap in use after a full collection. */
const heapUsed = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** A two-leg arb's print as the notifier makes it (about 460 bytes of JSON). */
function print(n: number, version: number, now: number): AlertPrint {
  return {
    id: `${n.toString(36)}v${version}`, kind: 'arbs', service: 'arbs_live', itemId: `item-${n}`, eventId: `event-${n}`,
    sport: 'Tennis', league: 'ATP Doha', event: `Player ${n} – Player ${n + 1}`, eventStart: now + 3_600_000, profitPct: 1.5 + (version % 7) / 10, sentAt: now,
    legs: [
      { outcome: 0, bookmakerId: 1, bookmaker: 'Pinnacle', market: 'Match winner: 1', odds: 2.1 + version / 100, stake: 495, commission: 0, lay: false },
      { outcome: 1, bookmakerId: 2, bookmaker: 'Bwin', market: 'Match winner: 2', odds: 2.05, stake: 505, commission: 0, lay: false },
    ],
  };
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1_000;
};

async function filesOf(dir: string): Promise<string> {
  const sizes = await Promise.all((await readdir(dir)).filter((n) => !n.startsWith('.') && n !== 'bot.lock').map(async (n) => `${n} ${((await stat(join(dir, n))).size / 1e6).toFixed(2)} MB`));
  return sizes.sort().join(', ');
}

interface Side {
  putUs: number;
  openMs: number;
  heapMb: number;
  roundMs: number;
  stopMs: number;
  files: string;
}

async function measure(puts: number): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-prints-'));
  try {
    // Filled by a store of its own, closed and out of reach before the heap is measured.
    const { next, putUs } = await fill(dataDir, puts);
    return { putUs, ...(await busyMinute(dataDir, next)), files: await filesOf(dataDir) };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `puts` prints of USERS users, each item printed 1 to 6 times; the next item number and the CPU of a put. */
async function fill(dataDir: string, puts: number): Promise<{ next: number; putUs: number }> {
  const store = await openStore({ dataDir, logger: silentLogger });
  for (let u = 1; u <= USERS; u++) store.updateUser(u, () => undefined, { chatId: u });
  let n = 0;
  let made = 0;
  const now = Date.now();
  const started = process.cpuUsage();
  while (made < puts) {
    const versions = Math.min(1 + (n % 6), puts - made);
    for (let v = 0; v < versions; v++) store.prints.put(1 + (n % USERS), print(n, v, now));
    made += versions;
    n += 1;
  }
  const putUs = puts === 0 ? 0 : (cpuMs(started) * 1_000) / puts;
  await store.close();
  return { next: n, putUs };
}

/** Opens the filled folder (timed, its heap measured), then the busy minute's rounds. */
async function busyMinute(dataDir: string, next: number): Promise<Omit<Side, 'putUs' | 'files'>> {
  let n = next;
  const heapBefore = heapUsed();
  const opening = performance.now();
  const store = await openStore({ dataDir, logger: silentLogger });
  const openMs = performance.now() - opening;
  const heapMb = (heapUsed() - heapBefore) / 1e6;
  const monitor = monitorEventLoopDelay({ resolution: 10 });
  monitor.enable();
  const busy = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    const user = 1 + (r % USERS);
    for (let i = 0; i < PRINTS_A_ROUND; i++) store.prints.put(user, print(n++, 0, Date.now()));
    store.updateStatus(user, 'arbs_live', { lastGoodReadAt: Date.now() });
    store.updateUser(user, (u) => {
      u.bankroll = 1_000 + r;
    });
    await store.flush();
  }
  const roundMs = cpuMs(busy) / ROUNDS;
  monitor.disable();
  await store.close();
  return { openMs, heapMb, roundMs, stopMs: monitor.max / 1e6 };
}

export async function runStorePrintsBench(): Promise<BenchResult> {
  const none = await measure(0);
  const week = await measure(PUTS);
  const ratio = week.roundMs / none.roundMs;
  return {
    bench: 'store-prints',
    setup: `embedded store, ${USERS} users; ${PUTS} prints put (1–6 versions an item) against none; ${ROUNDS} rounds of ${PRINTS_A_ROUND} prints + a status + a user's change, each written`,
    figures: [
      { metric: 'a round (prints, a status, a change and its db.json write): CPU, a week of prints · none', value: `${week.roundMs.toFixed(1)} ms · ${none.roundMs.toFixed(1)} ms (× ${ratio.toFixed(2)})`, target: '× ≤ 1.5', pass: ratio <= 1.5 },
      { metric: 'longest event-loop stop in the busy minute: a week of prints · none', value: `${week.stopMs.toFixed(0)} ms · ${none.stopMs.toFixed(0)} ms`, target: '< 50 ms', pass: week.stopMs < 50 },
      { metric: 'a put (an alert\'s print, with the rewrites it causes): CPU', value: `${week.putUs.toFixed(1)} µs`, target: '—', pass: true },
      { metric: 'opening the store with a week of prints · none', value: `${week.openMs.toFixed(0)} ms · ${none.openMs.toFixed(0)} ms`, target: '—', pass: true },
      { metric: 'heap the opened store holds: a week of prints · none', value: `${week.heapMb.toFixed(1)} MB · ${none.heapMb.toFixed(1)} MB`, target: '< 32 MB (an eighth of the shipped heap)', pass: week.heapMb < 32 },
      { metric: 'files after the busy minute: a week of prints', value: week.files, target: '—', pass: true },
    ],
  };
}

if (isEntryPoint(import.meta.url)) await report([await runStorePrintsBench()]);
