/**
 * The rhythm of a background writer, shared by the Redis store's users and its alert state: a
 * change asks for a pass within some delay (an armed timer fires no later than the soonest ask, so
 * changes made together go together), one pass runs at a time and passes repeat while anything is
 * pending, `flush()` waits until nothing is, and a failed pass is retried with the bot's backoff
 * while `healthy()` says false (the health check reads it).
 */
import { backoffMs, type BackoffPolicy } from '../lib/backoff.js';
import type { Logger } from '../logger.js';

export interface WriteRoundsOptions {
  /** One pass: writes (part of) what is pending; rejects when it could not. */
  pass: () => Promise<void>;
  /** Whether anything waits for a pass. */
  pending: () => boolean;
  /** Waits after failures. */
  retry: BackoffPolicy;
  log: Logger;
  /** Says what failed in the log line of a failed background pass. */
  what: string;
}

export class WriteRounds {
  private timer: NodeJS.Timeout | undefined;
  private due = Number.POSITIVE_INFINITY;
  private running: Promise<void> | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly opts: WriteRoundsOptions) {}

  /** True unless the latest pass failed (it is being retried). */
  healthy(): boolean {
    return this.failures === 0;
  }

  /** Asks for a pass within `delayMs`. */
  request(delayMs: number): void {
    if (this.stopped) return;
    const at = performance.now() + delayMs;
    if (this.timer) {
      if (at >= this.due) return;
      clearTimeout(this.timer);
    }
    this.due = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due = Number.POSITIVE_INFINITY;
      this.run().catch((err: unknown) => {
        this.opts.log.warn({ err, failures: this.failures }, `${this.opts.what} failed; will retry`);
      });
    }, delayMs);
  }

  /** Runs passes until nothing is pending; rejects with the first failure (a background retry follows). */
  async flush(): Promise<void> {
    while (this.opts.pending() || this.running) await this.run();
  }

  /** No more background passes (a last `flush` still writes). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): Promise<void> {
    if (this.running) return this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = Number.POSITIVE_INFINITY;
    this.running = (async () => {
      while (this.opts.pending()) await this.opts.pass();
    })().then(
      () => {
        this.running = null;
        this.failures = 0;
        // Asked for between the last check and now.
        if (this.opts.pending()) this.request(0);
      },
      (err: unknown) => {
        this.running = null;
        this.failures += 1;
        this.request(backoffMs(this.opts.retry, this.failures, Math.random));
        throw err;
      },
    );
    return this.running;
  }
}
