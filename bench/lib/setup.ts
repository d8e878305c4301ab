/** Shared set-up pieces: a temporary data folder, the benchmarks' logger, real-time sleeps. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createLogger, type Logger } from '../../src/logger.js';

/** A fresh folder for DATA_DIR, and its removal. */
export async function tempDataDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `bb-bench-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The bot's logger during a benchmark: warnings and worse on stderr (BENCH_LOG_LEVEL changes the
 * level), so trouble shows without info lines costing CPU in the figures.
 */
export function benchLogger(): Logger {
  const level = process.env.BENCH_LOG_LEVEL?.trim() || 'warn';
  return createLogger(level, pino.destination({ dest: 2, sync: false }));
}

/** Waits `msToWait` of real time. */
export const sleep = (msToWait: number) => new Promise<void>((resolve) => setTimeout(resolve, msToWait));

/** Polls `check` every `everyMs` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number, everyMs = 20): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
