/**
 * The embedded store's debounced writer: changes mark it dirty, and one write of the whole file
 * follows at most once per `debounceMs`, however many changes came in (longer apart for a very
 * large file: see `writeDelay`). The bot's own bookkeeping (alert state, read statuses), which
 * changes many times a second while polling, waits longer (`lazyMs`): each write of the whole file
 * is a string of megabytes at a thousand users, and writing it twice a second was most of the
 * process's garbage. A user's change brings the write forward again. One write runs at a time; changes made meanwhile ride the next
 * one. A failed write is retried in the background with a growing delay, and `writable()` is
 * false until one succeeds again (the health check reads it).
 */
import type { Logger } from '../logger.js';

/** Longest wait between retries of a failing background write. */
const MAX_RETRY_DELAY_MS = 60_000;

/** Serializing holds the event loop; a write waits at least this many times as long as the last one blocked. */
const BLOCKING_SPACING_FACTOR = 10;
/** ... but never longer than this, so a change reaches the disk within half a minute. */
const MAX_WRITE_DELAY_MS = 30_000;

/**
 * How long a change waits for its write: `debounceMs`, stretched for a large file so that turning
 * it into JSON (which blocks the event loop: about 0.5 s for 5,000 users with 100,000 alert entries)
 * takes at most a tenth of the time.
 */
export function writeDelay(debounceMs: number, lastBlockedMs: number): number {
  return Math.max(debounceMs, Math.min(lastBlockedMs * BLOCKING_SPACING_FACTOR, MAX_WRITE_DELAY_MS));
}

/** How long the bot's own bookkeeping waits for its write by default (a crash loses at most this much of it). */
export const DEFAULT_LAZY_WRITE_MS = 5_000;

export interface DebouncedWriterOptions {
  /** Starts one write: everything before its first await is the snapshot (it blocks the event loop, and is timed). */
  write: () => Promise<void>;
  debounceMs: number;
  /** The wait of `markDirtyLater` changes; default DEFAULT_LAZY_WRITE_MS (never shorter than `debounceMs`). */
  lazyMs?: number;
  log: Logger;
  /** Named in the log line of a failed background write. */
  file: string;
}

export class DebouncedWriter {
  private dirty = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (performance.now()). */
  private timerAt = Number.POSITIVE_INFINITY;
  private writing: Promise<void> | null = null;
  private failures = 0;
  private lastBlockedMs = 0;

  constructor(private readonly opts: DebouncedWriterOptions) {}

  /** True while the latest write attempt has not failed. */
  healthy(): boolean {
    return this.failures === 0;
  }

  /** A change someone is waiting for (a user's): written within `debounceMs` (see `writeDelay`). */
  markDirty(): void {
    this.dirty = true;
    this.schedule(writeDelay(this.opts.debounceMs, this.lastBlockedMs));
  }

  /** A change of the bot's own bookkeeping: written within `lazyMs`, or sooner with anything else. */
  markDirtyLater(): void {
    this.dirty = true;
    this.schedule(writeDelay(Math.max(this.opts.debounceMs, this.opts.lazyMs ?? DEFAULT_LAZY_WRITE_MS), this.lastBlockedMs));
  }

  /** No more background writes (a last `flush` still writes). */
  stop(): void {
    this.stopped = true;
  }

  /** Writes now if anything changed; `force` writes even when nothing did (a migrated file differs from what is on disk). */
  async flush(force = false): Promise<void> {
    if (force) this.dirty = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
    }
    // One write at a time; changes made meanwhile are picked up by the next round.
    while (this.writing) await this.writing.catch(() => undefined);
    if (!this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    // Everything up to the first await is synchronous: the snapshot and JSON.stringify.
    const run = this.opts.write();
    this.lastBlockedMs = performance.now() - started;
    this.writing = run;
    try {
      await run;
      this.failures = 0;
    } catch (e) {
      this.dirty = true;
      this.failures += 1;
      this.schedule(Math.min(this.opts.debounceMs * 2 ** this.failures, MAX_RETRY_DELAY_MS));
      throw e;
    } finally {
      this.writing = null;
    }
  }

  /**
   * Arms the write timer for `ms` from now unless one armed sooner: changes ride along, so the wait
   * never grows past `ms`; a timer armed later (a lazy change) is brought forward.
   */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = performance.now() + ms;
    if (this.timer) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.flush().catch((err: unknown) => {
        this.opts.log.error({ err, file: this.opts.file, failures: this.failures }, 'writing the database failed; will retry');
      });
    }, ms);
  }
}
