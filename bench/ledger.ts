/**
 * The ledger at scale: one user with 10,000 settled legs (arbs of two legs, back/lay arbs at an
 * exchange with commission, valuebets with closing lines, over a year). Measures what /pnl does
 * before it answers: read the book from the store (embedded; Redis too when REDIS_URL is set),
 * the figures and their text (target < 200 ms), and the chart: the daily series, ECharts' SVG and
 * the PNG (target < 1 s). Each figure is the slowest of BENCH_LEDGER_RUNS runs (default 5) after
 * one warm-up.
 *
 *   npx tsx bench/ledger.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/logger.js';
import { chartPng } from '../src/ledger/chart.js';
import { makeLeg, positionSchema, type LedgerLeg, type Position } from '../src/ledger/model.js';
import { dailySeries, summarize } from '../src/ledger/summary.js';
import { translator } from '../src/locales/i18n.js';
import type { Store } from '../src/store/port.js';
import { openRedisStore } from '../src/store/redis-store.js';
import { openStore } from '../src/store/store.js';
import { pnlText } from '../src/bot/ui/ledger-text.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';

const LEGS = envInt('BENCH_LEDGER_LEGS', 10_000, 10, 1_000_000);
const RUNS = envInt('BENCH_LEDGER_RUNS', 5, 1, 100);
const USER = 1;
const START = Date.UTC(2025, 10, 1);

/** A deterministic year of positions with `legs` legs in all. */
export function positions(legs: number): Position[] {
  const out: Position[] = [];
  let n = 0;
  let made = 0;
  const rnd = (() => {
    let s = 42;
    return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  })();
  while (made < legs) {
    n += 1;
    const at = START + Math.floor((n / (legs / 2.2)) * 365 * 86_400_000);
    const kind = n % 3 === 0 ? 'valuebets' : 'arbs';
    let l: LedgerLeg[];
    if (kind === 'valuebets') {
      l = [{ ...makeLeg({ outcome: 0, bookmaker: `Book ${n % 12}`, odds: 1.5 + rnd() * 3, stake: 10 + Math.round(rnd() * 90) }), result: rnd() < 0.45 ? 'won' : 'lost' }];
    } else {
      const lay = n % 5 === 0;
      const first = makeLeg({ outcome: 0, bookmaker: `Book ${n % 12}`, odds: 2.1, stake: 495 });
      const second = lay ? makeLeg({ outcome: 1, bookmaker: 'Betfair', odds: 2.1, stake: 105.77, lay: true, commission: 0.02 }) : makeLeg({ outcome: 1, bookmaker: `Book ${(n + 5) % 12}`, odds: 2.05, stake: 505 });
      const win = rnd() < 0.5;
      l = [{ ...first, result: win ? 'won' : 'lost' }, { ...second, result: win ? 'lost' : 'won' }];
    }
    made += l.length;
    out.push(positionSchema.parse({ id: n.toString(36), kind, service: kind === 'arbs' ? 'arbs_prematch' : 'valuebets_prematch', itemId: `i${n}`, eventId: `e${n}`, sport: ['Football', 'Tennis', 'Basketball'][n % 3], event: `Team ${n} – Team ${n + 1}`, eventStart: at, placedAt: at, settledAt: at + 3 * 3_600_000, currency: 'EUR', legs: l }));
  }
  return out;
}

async function slowest(fn: () => Promise<unknown> | unknown): Promise<number> {
  await fn();
  let worst = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    worst = Math.max(worst, performance.now() - t);
  }
  return worst;
}

async function measure(store: Store, name: string): Promise<BenchResult['figures']> {
  const t = translator('en');
  const pnl = await slowest(async () => {
    const book = await store.ledger.book(USER);
    return pnlText(summarize(book, -Infinity, Infinity), { kind: 'all' }, book.settings.devig, 'EUR', t, (s) => s);
  });
  const chart = await slowest(async () => {
    const book = await store.ledger.book(USER);
    return chartPng(dailySeries(book, -Infinity, Infinity), { title: 'Cumulative P&L', pnl: 'P&L', turnover: 'Turnover', clv: 'CLV %' }, 'EUR');
  });
  return [
    { metric: `/pnl figures, ${LEGS} settled legs (${name}: read + figures + text)`, value: `${pnl.toFixed(1)} ms`, target: '< 200 ms', pass: pnl < 200 },
    { metric: `/pnl chart, ${LEGS} settled legs (${name}: read + series + SVG + PNG)`, value: `${chart.toFixed(0)} ms`, target: '< 1000 ms', pass: chart < 1000 },
  ];
}

export async function runLedgerBench(): Promise<BenchResult> {
  const all = positions(LEGS);
  const figures: BenchResult['figures'] = [];
  const dir = await mkdtemp(join(tmpdir(), 'bench-ledger-'));
  const store = await openStore({ dataDir: dir, logger: silentLogger });
  try {
    for (const p of all) await store.ledger.put(USER, p);
    await store.flush();
    figures.push(...(await measure(store, 'embedded')));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  if (process.env.REDIS_URL) {
    const prefix = `bench-ledger:${process.pid}:`;
    const redis = await openRedisStore({ url: process.env.REDIS_URL, prefix, logger: silentLogger });
    try {
      for (const p of all) await redis.ledger.put(USER, p);
      figures.push(...(await measure(redis, 'Redis')));
      await redis.ledger.deleteUser(USER);
    } finally {
      await redis.close();
    }
  }
  return { bench: 'ledger', setup: `${all.length} positions, ${LEGS} settled legs over a year, slowest of ${RUNS} runs`, figures };
}

if (isEntryPoint(import.meta.url)) await report([await runLedgerBench()]);
