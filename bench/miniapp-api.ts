/**
 * The Mini App's API at the ledger's bound (20,000 positions of one user; every 100th still open)
 * over real HTTP on the operator port: each endpoint's answer time, initData check included,
 * median and slowest of BENCH_MINIAPP_API_RUNS calls (default 20) after one warm-up. Target < 50 ms an
 * answer (the CSV download of every position, ~14 MB, is shown apart: it is /export's file). In
 * the embedded store, and in Redis (REDIS_URL, else a private redis-server when one is on the PATH).
 *
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/miniapp-api.js
 */
import { ManualClock } from '../src/clock.js';
import { startHealthServer } from '../src/health/server.js';
import type { Position } from '../src/ledger/model.js';
import { silentLogger } from '../src/logger.js';
import { createMiniAppApi } from '../src/miniapp/api.js';
import { signInitData } from '../src/miniapp/init-data.js';
import { notBuiltAssets } from '../src/miniapp/mount.js';
import { createMiniAppRoutes } from '../src/miniapp/server.js';
import type { Store } from '../src/store/port.js';
import { position } from './ledger-bound.js';
import { onEachLedgerStore } from './lib/ledger-stores.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { testReports } from '../test/support/miniapp-reports.js';

const POSITIONS = envInt('BENCH_MINIAPP_POSITIONS', 20_000, 10, 1_000_000);
const RUNS = envInt('BENCH_MINIAPP_API_RUNS', 20, 1, 1000);
const USER = 1;
const TOKEN = '1:bench-token';
const TARGET_MS = 50;

/** Every 100th position unsettled (the open list the page shows). */
const withOpen = (p: Position, n: number): Position => (n % 100 === 0 ? { ...p, settledAt: null, legs: p.legs.map((l) => ({ ...l, result: null })) } : p);

async function endpoints(store: Store, name: string): Promise<BenchResult['figures']> {
  // The clock of the last position, so the undo window and the initData age are as in use.
  const clock = new ManualClock(position(POSITIONS).placedAt + 3_600_000);
  store.updateUser(USER, () => {}, { chatId: USER, lang: 'en' });
  const api = createMiniAppApi({
    store, clock, reports: testReports(clock), logger: silentLogger, botToken: TOKEN, maxAgeSeconds: 3600,
    bookmakers: () => ({ '1': 'Pinnacle', '2': 'Bwin', '3': 'Betfair Exchange' }), sports: () => ({ '1': 'Tennis' }),
    filters: { save: async () => ({ kind: 'saved' }), coverage: () => ({}) },
  });
  const server = await startHealthServer({ port: 0, checks: [], metrics: { render: async () => '', contentType: 'text/plain' }, miniApp: createMiniAppRoutes(api, notBuiltAssets) });
  const base = `http://127.0.0.1:${server.port}`;
  const auth = () => `tma ${signInitData({ auth_date: String(Math.floor(clock.now() / 1000)), user: JSON.stringify({ id: USER }) }, TOKEN)}`;
  const call = async (path: string, method = 'GET', body?: unknown): Promise<number> => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth(), ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status}`);
    return res.status;
  };
  const openId = (POSITIONS - (POSITIONS % 100)).toString(36);
  const cases: [string, () => Promise<unknown>, boolean][] = [
    ['GET /me', () => call('/app/api/me'), true],
    ['GET /ledger (all time)', () => call('/app/api/ledger'), true],
    ['GET /ledger (30 days, one bookmaker)', () => call('/app/api/ledger?from=2027-02-01&to=2027-03-02&bookmaker=Pinnacle'), true],
    [
      'POST settle then undo (two answers)',
      async () => {
        const res = await fetch(`${base}/app/api/positions/${openId}/settle`, { method: 'POST', headers: { authorization: auth(), 'content-type': 'application/json' }, body: JSON.stringify({ result: 'void' }) });
        const { position: p } = (await res.json()) as { position: { undo: { n: number } } };
        return call(`/app/api/positions/${openId}/undo`, 'POST', { n: p.undo.n });
      },
      true,
    ],
    ['POST edit', () => call(`/app/api/positions/${openId}/edit`, 'POST', { leg: 0, odds: 2.1, stake: 495 }), true],
    ['GET /books', () => call('/app/api/books'), true],
    ['GET /filters', () => call('/app/api/filters'), true],
    // The chat's report cap (12 in 10 minutes) covers the CSV too: each call in a fresh window (outside the time taken).
    ['GET /ledger.csv (every position)', () => call('/app/api/ledger.csv'), false],
  ];
  const out: BenchResult['figures'] = [];
  try {
    for (const [what, fn, targeted] of cases) {
      // A fresh minute for each endpoint: the per-user cap (120 calls a minute) stays on, as shipped.
      await clock.advance(what.includes('.csv') ? 10 * 60_000 : 61_000);
      await fn();
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        if (what.includes('.csv')) await clock.advance(10 * 60_000);
        const t = performance.now();
        await fn();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      const max = times[times.length - 1]!;
      out.push({
        metric: `${what} at ${POSITIONS} positions (${name}): median · slowest`,
        value: `${median.toFixed(1)} ms · ${max.toFixed(1)} ms`,
        ...(targeted ? { target: `< ${TARGET_MS} ms`, pass: max < TARGET_MS } : {}),
      });
    }
  } finally {
    await server.close();
  }
  return out;
}

export async function runMiniAppApiBench(): Promise<BenchResult> {
  const all = Array.from({ length: POSITIONS }, (_, i) => withOpen(position(i + 1), i + 1));
  const out = await onEachLedgerStore('miniapp', USER, all, endpoints);
  return { bench: 'miniapp-api', setup: `${POSITIONS} two-leg arbs of one user (every 100th open), ${RUNS} calls each after a warm-up, over HTTP with initData`, figures: out };
}

if (isEntryPoint(import.meta.url)) await report([await runMiniAppApiBench()]);
