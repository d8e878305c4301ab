/**
 * The scheduler's figures for /health and the metrics: counters since start, the last minute's
 * reads and errors, and the lag sampler — how late subscriptions were taken from the due queue,
 * over the last 1,024, of which the 99th percentile is reported. The loop records; `snapshot`
 * adds what only the loop knows (subscriptions, reads in flight, load factor, last tick).
 */
import { MinuteCounter } from './minute-counter.js';

export interface SchedulerStats {
  subscriptions: number;
  /** Successful reads since start. */
  reads: number;
  /** Failed reads since start (local refusals excluded: nothing was sent). */
  errors: number;
  readsLastMinute: number;
  errorsLastMinute: number;
  /** Reads that the client's limiter refused locally (each means a plan was off; expected 0). */
  deferred: number;
  /** Token requests the scheduler's reads made. */
  tokenRequests: number;
  /** 99th percentile of how late subscriptions were taken from the queue, over the last 1,024. */
  lagMsP99: number;
  inFlight: number;
  /** How much every poll interval is stretched because the process cannot keep up; 1 when it can. */
  loadFactor: number;
  /** When the loop last ran (ms); 0 before start. */
  lastTickAt: number;
}

/** The last `size` lags in a ring; the percentile is computed only when asked. */
export interface LagSampler {
  record(ms: number): void;
  /** 99th percentile of the samples kept; 0 before the first. */
  p99(): number;
}

export function createLagSampler(size = 1024): LagSampler {
  const lags = new Float64Array(size);
  let count = 0;
  return {
    record(ms) {
      lags[count % size] = ms;
      count += 1;
    },
    p99() {
      const n = Math.min(count, size);
      if (n === 0) return 0;
      const sorted = Array.from(lags.subarray(0, n)).sort((a, b) => a - b);
      return sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)]!;
    },
  };
}

/** What only the loop knows at snapshot time. */
export interface LoopFigures {
  subscriptions: number;
  inFlight: number;
  loadFactor: number;
  lastTickAt: number;
}

export interface SchedulerCounters {
  readonly lag: LagSampler;
  /** A read answered. */
  read(now: number): void;
  /** A read failed at the service (local refusals are `deferred`). */
  failed(now: number): void;
  deferred(): void;
  /** `delta` token requests made (-1: one taken back, it was never sent). */
  tokenRequests(delta: number): void;
  snapshot(now: number, loop: LoopFigures): SchedulerStats;
}

export function createSchedulerCounters(): SchedulerCounters {
  const counts = { reads: 0, errors: 0, deferred: 0, tokenRequests: 0 };
  const readsMinute = new MinuteCounter();
  const errorsMinute = new MinuteCounter();
  const lag = createLagSampler();
  return {
    lag,
    read(now) {
      counts.reads += 1;
      readsMinute.add(now);
    },
    failed(now) {
      counts.errors += 1;
      errorsMinute.add(now);
    },
    deferred() {
      counts.deferred += 1;
    },
    tokenRequests(delta) {
      counts.tokenRequests += delta;
    },
    snapshot(now, loop) {
      return {
        subscriptions: loop.subscriptions,
        reads: counts.reads,
        errors: counts.errors,
        readsLastMinute: readsMinute.total(now),
        errorsLastMinute: errorsMinute.total(now),
        deferred: counts.deferred,
        tokenRequests: counts.tokenRequests,
        lagMsP99: lag.p99(),
        inFlight: loop.inFlight,
        loadFactor: loop.loadFactor,
        lastTickAt: loop.lastTickAt,
      };
    },
  };
}
