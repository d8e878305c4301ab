/**
 * The /pnl chart drawn in a worker thread (`chart-drawer.ts` starts it): ECharts' SVG and resvg's
 * raster take 0.1–0.3 s per chart and loading them about 0.6 s, all of which would otherwise stop
 * the bot's event loop (every user's alerts) for as long. This file is the worker's entry point:
 * starting it is its purpose, so it listens as soon as it is loaded (unlike the other modules).
 */
import { parentPort } from 'node:worker_threads';
import { chartPngAsync, type ChartLabels } from './chart.js';
import type { DayPoint } from './summary.js';

interface Job {
  id: number;
  days: DayPoint[];
  labels: ChartLabels;
  currency: string;
}

parentPort?.on('message', (job: Job) => {
  chartPngAsync(job.days, job.labels, job.currency).then(
    (png) => {
      const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength).slice();
      parentPort?.postMessage({ id: job.id, png: bytes }, [bytes.buffer]);
    },
    (err: unknown) => parentPort?.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
