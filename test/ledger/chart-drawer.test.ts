/**
 * /pnl's chart is drawn off the bot's thread: loading ECharts and resvg and drawing take a few
 * hundred ms that would otherwise stop every user's alerts at a bot's first chart. Measured from a
 * fresh thread each time (test/support/chart-stop-probe.ts), whose module cache is as empty as a
 * new bot's: drawn in its own thread, the first chart stops it 190–500 ms here; through the
 * drawer, about 10 ms.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { DayPoint } from '../../src/ledger/summary.js';

const BOUND_MS = 100;

function days(n: number): DayPoint[] {
  let cumulative = 0;
  return Array.from({ length: n }, (_, i) => {
    const pnl = ((i * 37) % 21) - 9;
    cumulative += pnl;
    const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    return { day, pnl, cumulative, turnover: 500 + (i % 7) * 100, clvPct: i % 3 === 0 ? null : (i % 5) - 2 };
  });
}

function probe(): Promise<{ stopMs: number; png: string }> {
  const entry = new URL('../support/chart-stop-probe.ts', import.meta.url).href;
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  const worker = new Worker(code, { eval: true, workerData: { days: days(730) } });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (exitCode) => reject(new Error(`the probe exited (${exitCode}) before it answered`)));
  });
}

describe('the chart drawer', () => {
  it(`draws a first chart while the bot's thread never stops ${BOUND_MS} ms`, async () => {
    // The monitor reads wall time: another process taking the core for a moment reads as a stop
    // that does not come back, where the module load comes back in every fresh thread. So the
    // lowest of up to three probes counts.
    let lowest = Infinity;
    for (let run = 1; run <= 3 && lowest >= BOUND_MS; run++) {
      const { stopMs, png } = await probe();
      expect(png).toBe('PNG');
      lowest = Math.min(lowest, stopMs);
    }
    expect(lowest).toBeLessThan(BOUND_MS);
  }, 60_000);
});
