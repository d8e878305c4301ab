/**
 * The observation points other parts report timings through: a small port passed in (optional
 * everywhere), so the scheduler, the outbox and the notifier need no metrics library and tests
 * can pass nothing. Values are milliseconds; the metrics side turns them into seconds.
 */
export interface MetricsPort {
  /** One item read of one subscription took `ms` (success or failure). */
  readDuration(ms: number): void;
  /** A new message waited `ms` in the outbox between being queued and its first call to Telegram. */
  outboxWait(ms: number): void;
  /** An alert reached Telegram `ms` after the bot first saw its item. */
  alertLatency(ms: number): void;
}

/** A port that records nothing. */
export const noMetrics: MetricsPort = {
  readDuration: () => {},
  outboxWait: () => {},
  alertLatency: () => {},
};
