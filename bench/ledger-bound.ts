/**
 * The ledger at its bound (LEDGER_MAX_POSITIONS, 20,000 positions of one user) against the event
 * loop: what /pnl (the book read, the figures and series in slices, the chart in its worker
 * thread), /export all (the book read and the CSV made in slices) and one placement (the bound's
 * size check, the put and, embedded, the file written) do, each measured by the longest stop of
 * the event loop while it runs (perf_hooks' monitorEventLoopDelay, 10 ms resolution; target
 * < 200 ms) and its time. In the embedded store, and in Redis (REDIS_URL, else a private
 * redis-server when one is on the PATH). The slowest of BENCH_LEDGER_BOUND_RUNS runs (default 3)
 * after one warm-up.
 *
 *   npx tsx bench/ledger-bound.ts
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createChartDrawer } from '../src/ledger/chart-drawer.js';
import { ledgerCsvChunks } from '../src/ledger/csv.js';
import { makeLeg, positionSchema, type Position } from '../src/ledger/model.js';
import { ledgerFigures } from '../src/ledger/summary.js';
import type { Store } from '../src/store/port.js';
import { onEachLedgerStore } from './lib/ledger-stores.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';

const POSITIONS = envInt('BENCH_LEDGER_BOUND_POSITIONS', 20_000, 10, 1_000_000);
const RUNS = envInt('BENCH_LEDGER_BOUND_RUNS', 3, 1, 100);
const USER = 1;
const START = Date.UTC(2026, 0, 1);
const BOUND_MS = 200;

/** Two-leg arbs, one every 30 minutes, settled two hours after they were placed. */
export function position(n: number): Position {
  const at = START + n * 1_800_000;
  const win = n % 2 === 0;
  return positionSchema.parse({
    id: n.toString(36), kind: 'arbs', service: 'arbs_prematch', itemId: `i${n}`, eventId: `e${n}`, sport: 'Tennis', league: 'ATP Doha', event: `Team ${n} – Team ${n + 1}`,
    eventStart: at + 3_600_000, placedAt: at, settledAt: at + 7_200_000, currency: 'EUR',
    legs: [
      { ...makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'AH1(-1.5)', odds: 2.1, stake: 495 }), result: win ? 'won' : 'lost' },
      { ...makeLeg({ outcome: 1, bookmaker: 'Bwin', market: 'AH2(+1.5)', odds: 2.05, stake: 505 }), result: win ? 'lost' : 'won' },
    ],
  });
}

/** The longest event-loop stop and the time of the slowest of RUNS runs (after a warm-up). */
async function measure(fn: (run: number) => Promise<unknown>): Promise<{ stopMs: number; ms: number }> {
  await fn(0);
  let stopMs = 0;
  let ms = 0;
  for (let run = 1; run <= RUNS; run++) {
    const monitor = monitorEventLoopDelay({ resolution: 10 });
    monitor.enable();
    const t = performance.now();
    await fn(run);
    ms = Math.max(ms, performance.now() - t);
    monitor.disable();
    stopMs = Math.max(stopMs, monitor.max / 1e6);
  }
  return { stopMs, ms };
}

async function figures(store: Store, name: string): Promise<BenchResult['figures']> {
  const charts = createChartDrawer();
  const labels = { title: 'Cumulative P&L', pnl: 'P&L', turnover: 'Turnover', clv: 'CLV %' };
  try {
    const pnl = await measure(async () => {
      const book = await store.ledger.book(USER);
      const [, days] = await ledgerFigures(book, -Infinity, Infinity);
      return charts.draw(days, labels, 'EUR');
    });
    const csv = await measure(async () => {
      const book = await store.ledger.book(USER);
      let bytes = 0;
      for await (const piece of ledgerCsvChunks(book, book.positions)) bytes += piece.length;
      return bytes;
    });
    const place = await measure(async (run) => {
      const p = { ...position(POSITIONS + 1 + run), id: `z${run}` };
      await store.ledger.size(USER, p.id);
      await store.ledger.put(USER, p);
      await store.flush();
    });
    const row = (what: string, m: { stopMs: number; ms: number }) => ({
      metric: `${what} at ${POSITIONS} positions (${name}): longest event-loop stop · time`,
      value: `${m.stopMs.toFixed(0)} ms · ${m.ms.toFixed(0)} ms`,
      target: `< ${BOUND_MS} ms stop`,
      pass: m.stopMs < BOUND_MS,
    });
    return [row('/pnl (figures + chart)', pnl), row('/export all (CSV)', csv), row('a placement', place)];
  } finally {
    await charts.close();
  }
}

export async function runLedgerBoundBench(): Promise<BenchResult> {
  const all = Array.from({ length: POSITIONS }, (_, i) => position(i + 1));
  const out = await onEachLedgerStore('ledger-bound', USER, all, figures);
  return { bench: 'ledger-bound', setup: `${POSITIONS} settled two-leg arbs of one user, slowest of ${RUNS} runs after a warm-up`, figures: out };
}

if (isEntryPoint(import.meta.url)) await report([await runLedgerBoundBench()]);
