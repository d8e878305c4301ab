/**
 * Draws /pnl charts off the main thread: one worker (`chart-worker.ts`), started at the first
 * chart and stopped after IDLE_MS without one, so a bot nobody asks for a chart never loads
 * ECharts and resvg (about 50 MB), and one that does never stops its event loop to draw. A worker
 * that fails or hangs fails its charts (the /pnl text is already sent) and the next chart starts a
 * new one. Under the tests (TypeScript sources) the worker runs through tsx; built, it is plain JS.
 */
import { Worker } from 'node:worker_threads';
import type { ChartLabels } from './chart.js';
import type { DayPoint } from './summary.js';

/** A worker left without charts this long is stopped (its memory given back). */
const IDLE_MS = 60_000;
/** A chart not back after this long fails (a stuck worker is replaced). */
const CHART_TIMEOUT_MS = 30_000;

type Reply = { id: number; png: Uint8Array } | { id: number; error: string };

export interface ChartDrawer {
  draw(days: readonly DayPoint[], labels: ChartLabels, currency: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** The worker from the TypeScript source (tests, the playground): tsx's loader registered inside it first. */
function sourceWorker(): Worker {
  const entry = new URL('./chart-worker.ts', import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`, { eval: true });
}

export function createChartDrawer(): ChartDrawer {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (png: Buffer) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();

  const failAll = (err: Error) => {
    for (const [, w] of waiting) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    waiting.clear();
  };
  const stop = () => {
    const w = worker;
    worker = undefined;
    if (idle) clearTimeout(idle);
    return w ? w.terminate().then(() => undefined) : Promise.resolve();
  };
  const start = (): Worker => {
    const w = import.meta.url.endsWith('.ts') ? sourceWorker() : new Worker(new URL('./chart-worker.js', import.meta.url));
    w.unref();
    w.on('message', (reply: Reply) => {
      const job = waiting.get(reply.id);
      if (!job) return;
      waiting.delete(reply.id);
      clearTimeout(job.timer);
      if ('error' in reply) job.reject(new Error(`the chart could not be drawn: ${reply.error}`));
      else job.resolve(Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength));
      if (waiting.size === 0) {
        idle = setTimeout(() => void stop(), IDLE_MS);
        idle.unref();
      }
    });
    w.on('error', (err) => {
      if (worker === w) worker = undefined;
      failAll(err);
    });
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      failAll(new Error('the chart worker stopped'));
    });
    return w;
  };

  return {
    draw(days, labels, currency) {
      if (idle) clearTimeout(idle);
      worker ??= start();
      const w = worker;
      const id = nextId++;
      return new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the chart took too long'));
          if (worker === w) void stop();
        }, CHART_TIMEOUT_MS);
        timer.unref();
        waiting.set(id, { resolve, reject, timer });
        w.postMessage({ id, days, labels, currency });
      });
    },
    async close() {
      failAll(new Error('the chart drawer was closed'));
      await stop();
    },
  };
}
