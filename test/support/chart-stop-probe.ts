/**
 * Run in a fresh worker thread by test/ledger/chart-drawer.test.ts: a thread of its own has its own
 * module cache, so each run meets the chart's modules unloaded, as a bot's first /pnl does. Draws
 * one chart through the drawer and posts the longest stop of this thread's event loop, in ms.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { createChartDrawer } from '../../src/ledger/chart-drawer.js';
import type { DayPoint } from '../../src/ledger/summary.js';

const { days } = workerData as { days: DayPoint[] };
const drawer = createChartDrawer();
const monitor = monitorEventLoopDelay({ resolution: 10 });
monitor.enable();
const png = await drawer.draw(days, { title: 'P&L', pnl: 'P&L', turnover: 'Turnover', clv: 'CLV' }, 'EUR');
monitor.disable();
await drawer.close();
parentPort?.postMessage({ stopMs: monitor.max / 1e6, png: png.subarray(1, 4).toString('latin1') });
