/**
 * The workers' outbox: `OutboxPort` over the cluster's alert queue (BullMQ, `{prefix}alerts`).
 * A worker reads the service and runs the notifier but never talks to Telegram; its notifier's
 * sends and edits become jobs that the front's consumer (alert-consumer.ts) hands to the one
 * outbox that does. `send` resolves with the message id the front got (the job's return value,
 * through QueueEvents), `edit` with whether it was applied — as the in-process outbox does, so
 * the notifier keeps message ids and stops editing a vanished message the same way.
 *
 * A call named by an idempotency key gets a fixed job id, so the same alert enqueued twice is one
 * job, and the second caller waits for the first job's answer. Completed jobs are kept for an hour
 * for such callers; after that the front's claim answers a repeat (claims.ts).
 *
 * Edits of one message are not coalesced here: BullMQ can replace a job's data only while it is
 * delayed, which would delay every edit and leave the replaced caller without an answer (and a
 * `false` stops the notifier editing that message). The front's outbox coalesces queued edits of
 * one message anyway (only the latest text is sent, every caller gets its outcome), and the diff
 * already spaces edits of one alert 10 s apart.
 *
 * New alerts go ahead of edits across the queue, as they do in the front's outbox: an edit is a
 * prioritized job (EDIT_PRIORITY) and a send is not (BullMQ takes jobs without a priority first).
 * Without it the consumer, which holds a bounded number of jobs at once, took a busy minute's edits
 * in arrival order and a new alert waited behind all of them: in the cluster-scale benchmark the
 * alert latency grew with the run's length (20 s after 2 minutes, 60 s after 4).
 *
 * Nothing here rejects: a failure to enqueue, a failed job, no answer within `resultTimeoutMs`, or
 * `close()` resolve undefined or false, logged and counted.
 */
import { Queue, QueueEvents, type Job } from 'bullmq';
import type { Logger } from '../logger.js';
import type { OutboxEditOptions, OutboxPort, OutboxSendOptions } from '../outbox/port.js';
import { ALERT_QUEUE, bullPrefix, editJob, editResultSchema, idempotencyId, sendJob, sendResultSchema, type AlertJob } from './alert-jobs.js';
import type { RedisConnection } from './claims.js';
import type { JobGuard } from './job-guard.js';

/** BullMQ priority of an edit: after every send (no priority), FIFO among edits. */
export const EDIT_PRIORITY = 10;

export interface RemoteOutboxOptions {
  connection: RedisConnection;
  /** The cluster's key prefix (config.REDIS_PREFIX). */
  prefix: string;
  logger: Logger;
  /** How long a call waits for the front's answer before it resolves undefined or false (default 10 minutes). */
  resultTimeoutMs?: number;
  /** How long a completed job (and so its answer to a repeat enqueue) is kept (default 1 hour). */
  keepCompletedMs?: number;
  /** Signs each job (job-guard.ts), so a front that checks signatures takes it; without it jobs go unsigned. */
  guard?: Pick<JobGuard, 'sign'>;
}

export interface RemoteOutboxStats {
  /** Sends and edits put on the queue (a repeat of a key whose job exists is one of them: BullMQ adds nothing). */
  enqueued: number;
  /** Calls answered by the front. */
  answered: number;
  /** Calls that got no answer in time (undefined or false). */
  timedOut: number;
  /** Calls that could not be enqueued, whose job failed, or whose answer was not understood. */
  failed: number;
  /** Calls cut short by `close()`. */
  abandoned: number;
}

/** Jobs a front consumer takes; the outbox behind it retries Telegram itself, so only a lost claim round trip is retried. */
const JOB_ATTEMPTS = 3;

type Outcome<T> = { kind: 'answer'; value: T } | { kind: 'failed'; err: unknown } | { kind: 'timeout' } | { kind: 'closed' };

export class RemoteOutbox implements OutboxPort {
  private readonly sign: (job: AlertJob) => AlertJob;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly logger: Logger;
  private readonly resultTimeoutMs: number;
  private readonly keepCompletedS: number;
  private readonly closing = new AbortController();
  private readonly waiting = new Set<Promise<unknown>>();
  private readonly counters: RemoteOutboxStats = { enqueued: 0, answered: 0, timedOut: 0, failed: 0, abandoned: 0 };
  private closed: Promise<void> | undefined;

  constructor(opts: RemoteOutboxOptions) {
    this.sign = opts.guard ? (job) => opts.guard!.sign(job) : (job) => job;
    this.logger = opts.logger.child({ module: 'remote-outbox' });
    this.resultTimeoutMs = opts.resultTimeoutMs ?? 10 * 60_000;
    this.keepCompletedS = Math.max(1, Math.ceil((opts.keepCompletedMs ?? 60 * 60_000) / 1000));
    const prefix = bullPrefix(opts.prefix);
    this.queue = new Queue(ALERT_QUEUE, { connection: { url: opts.connection.url, connectionName: 'bb-alerts-producer' }, prefix });
    // QueueEvents reads the queue's event stream with a blocking XREAD: BullMQ needs retries without a limit there.
    this.events = new QueueEvents(ALERT_QUEUE, {
      connection: { url: opts.connection.url, connectionName: 'bb-alerts-events', maxRetriesPerRequest: null },
      prefix,
    });
    // Every call waiting for its answer listens for the queue closing (BullMQ's waitUntilFinished): many at once is normal here.
    this.queue.setMaxListeners(0);
    const onError = (err: unknown) => this.logger.warn({ err }, 'alert queue: Redis connection trouble (retrying)');
    this.queue.on('error', onError);
    this.events.on('error', onError);
  }

  /** A copy of the counters. */
  get stats(): RemoteOutboxStats {
    return { ...this.counters };
  }

  /** Calls waiting for the front's answer. */
  get pending(): number {
    return this.waiting.size;
  }

  send(chatId: number, text: string, opts: OutboxSendOptions = {}): Promise<number | undefined> {
    return this.call(this.sign(sendJob(chatId, text, opts)), opts.idempotencyKey, (v) => sendResultSchema.parse(v) ?? undefined, undefined);
  }

  edit(chatId: number, messageId: number, text: string, opts: OutboxEditOptions = {}): Promise<boolean> {
    return this.call(this.sign(editJob(chatId, messageId, text, opts)), opts.idempotencyKey, (v) => editResultSchema.parse(v), false);
  }

  /** Resolves every call still waiting (undefined or false) and closes the connections. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort();
      await Promise.allSettled([...this.waiting]);
      await Promise.allSettled([this.events.close(), this.queue.close()]);
    })();
    return this.closed;
  }

  private call<T>(payload: AlertJob, key: string | undefined, read: (value: unknown) => T, fallback: T): Promise<T> {
    if (this.closing.signal.aborted) {
      this.counters.abandoned += 1;
      return Promise.resolve(fallback);
    }
    const jobId = key === undefined ? undefined : idempotencyId(key);
    const done = this.outcome(payload, jobId).then((outcome) => this.settle(outcome, payload, jobId, read, fallback));
    this.waiting.add(done);
    void done.finally(() => this.waiting.delete(done));
    return done;
  }

  /** Enqueues and waits for the answer, the deadline or `close()`, whichever comes first. */
  private async outcome(payload: AlertJob, jobId: string | undefined): Promise<Outcome<unknown>> {
    const local = new AbortController();
    const stop = AbortSignal.any([local.signal, this.closing.signal]);
    const deadline = new Promise<Outcome<unknown>>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'timeout' }), this.resultTimeoutMs);
      stop.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve({ kind: 'closed' });
      }, { once: true });
    });
    const answer = (async (): Promise<Outcome<unknown>> => {
      try {
        const job: Job = await this.queue.add(payload.type, payload, {
          ...(jobId !== undefined ? { jobId } : {}),
          ...(payload.type === 'edit' ? { priority: EDIT_PRIORITY } : {}),
          attempts: JOB_ATTEMPTS,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: this.keepCompletedS, count: 10_000 },
          removeOnFail: { age: 24 * 3600, count: 10_000 },
        });
        this.counters.enqueued += 1;
        // Its own time limit too, so that its listeners are dropped when the answer never comes.
        return { kind: 'answer', value: await job.waitUntilFinished(this.events, this.resultTimeoutMs) };
      } catch (err) {
        return { kind: 'failed', err };
      }
    })();
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      local.abort();
    }
  }

  private settle<T>(outcome: Outcome<unknown>, payload: AlertJob, jobId: string | undefined, read: (value: unknown) => T, fallback: T): T {
    const where = { type: payload.type, chatId: payload.chatId, jobId };
    switch (outcome.kind) {
      case 'answer':
        try {
          const value = read(outcome.value);
          this.counters.answered += 1;
          return value;
        } catch {
          this.counters.failed += 1;
          this.logger.warn(where, 'alert queue: the front answered something that is not an answer');
          return fallback;
        }
      case 'failed':
        this.counters.failed += 1;
        this.logger.warn({ ...where, error: outcome.err instanceof Error ? outcome.err.message : String(outcome.err) }, 'alert queue: the job failed');
        return fallback;
      case 'timeout':
        this.counters.timedOut += 1;
        this.logger.warn({ ...where, waitedMs: this.resultTimeoutMs }, 'alert queue: no answer from the front in time (is a front running?)');
        return fallback;
      case 'closed':
        this.counters.abandoned += 1;
        this.logger.debug(where, 'alert queue: closed while waiting for the front');
        return fallback;
    }
  }
}

/** The worker side's factory: an `OutboxPort` for the notifier; `close()` it at shutdown after the notifier is idle. */
export function createRemoteOutbox(opts: RemoteOutboxOptions): RemoteOutbox {
  return new RemoteOutbox(opts);
}
