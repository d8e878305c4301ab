/**
 * The scheduler's own due-time queue with a stopwatch on it: every time the loop takes an entry,
 * how late it is against its due time is recorded. That is exactly the lag the scheduler tracks
 * for `stats().lagMsP99`, but all samples are kept (with when they were taken), so the benchmark
 * can give p50, p99 and max over the whole run rather than over the last 1,024.
 */
import { HeapScheduleQueue, type ScheduleQueue } from '../../src/scheduler/queue.js';

/** A `HeapScheduleQueue` that records, on every `pop`, how late the entry was. */
export class LagRecordingQueue implements ScheduleQueue {
  private readonly inner = new HeapScheduleQueue();
  /** When each entry was taken (ms) and how late it was (ms); two flat arrays keep the bench's own memory small. */
  private readonly takenAt: number[] = [];
  private readonly lags: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.inner.size;
  }
  push(id: string, dueAt: number): void {
    this.inner.push(id, dueAt);
  }
  remove(id: string): boolean {
    return this.inner.remove(id);
  }
  peek(): { id: string; dueAt: number } | undefined {
    return this.inner.peek();
  }
  pop(): { id: string; dueAt: number } | undefined {
    const entry = this.inner.pop();
    if (entry) {
      const now = this.now();
      this.takenAt.push(now);
      this.lags.push(Math.max(0, now - entry.dueAt));
    }
    return entry;
  }
  dueAt(id: string): number | undefined {
    return this.inner.dueAt(id);
  }
  has(id: string): boolean {
    return this.inner.has(id);
  }

  /** Lags of the samples taken at or after `since` (ms). */
  lagsSince(since: number): number[] {
    return this.lags.filter((_, i) => this.takenAt[i]! >= since);
  }
}
