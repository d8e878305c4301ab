/**
 * The workers' outbox: `OutboxPort` over the cluster's alert queue (BullMQ, `{prefix}alerts`).
 * A worker reads the service and runs the notifier but never talks to Telegram; its notifier's
 * sends and edits become jobs that the front's consumer (alert-consumer.ts) hands to the one
 * outbox that does. `send` resolves with the message id the front got (the job's return value,
 * on its own pub/sub channel), `edit` with whether it was applied — as the in-process outbox does, so
 * the notifier keeps message ids and stops editing a vanished message the same way.
 *
 * The answer comes back on this outbox's own pub/sub channel (`{prefix}alert-answers:<replyTo>`,
 * named in the job's name: `send|<replyTo>`), published by the front's consumer when the job ends,
 * not through BullMQ's QueueEvents: those read the queue's whole event stream (several events a
 * job) in every worker, so each worker added raised the cost of every alert of the cluster. An
 * answer missed (a reconnect of the channel, a repeat of a job another worker enqueued) is found
 * by reading the job itself after `answerPollMs` (30 s), and every `answerPollMs` after that.
 *
 * A call named by an idempotency key gets a fixed job id, so the same alert enqueued twice is one
 * job, and the second caller waits for the first job's answer (found by reading the job, when the
 * first caller was another worker). Completed jobs are kept for an hour for such callers; after
 * that the front's claim answers a repeat (claims.ts).
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
import { randomBytes } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { OutboxEditOptions, OutboxPort, OutboxSendOptions } from '../outbox/port.js';
import { ALERT_QUEUE, answerChannel, answerSchema, bullPrefix, editJob, editResultSchema, idempotencyId, jobName, sendJob, sendResultSchema, type AlertJob } from './alert-jobs.js';
import type { RedisConnection } from './claims.js';
import type { JobGuard } from './job-guard.js';

/**
 * How long a call waits for its answer on the channel before reading the job itself, and again as
 * often. Long: an edit may wait for its chat's turn in the front's outbox for many seconds, and
 * with 5 s every such wait cost a read of the job (4.6 HGETALL a service read in the cluster-scale
 * benchmark); a missed answer is rare (the channel reconnecting, a repeat of another worker's job).
 */
export const ANSWER_POLL_MS = 30_000;

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
  /** How long a call waits for its answer on the channel before it reads the job itself, and again as often (default ANSWER_POLL_MS). */
  answerPollMs?: number;
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
  /** The answers' channel: subscribed once, for every call of this outbox. */
  private readonly answers: Redis;
  private readonly subscribed: Promise<unknown>;
  private readonly replyTo = randomBytes(9).toString('base64url');
  private readonly answerPollMs: number;
  /** Calls waiting, by job id (a repeat of a key in this process waits beside the first). */
  private readonly waiters = new Map<string, Set<(outcome: Outcome<unknown>) => void>>();
  /** Answers that came before their job's `add` returned (seldom): kept a minute. */
  private readonly early = new Map<string, { outcome: Outcome<unknown>; at: number }>();
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
    this.answerPollMs = opts.answerPollMs ?? ANSWER_POLL_MS;
    this.queue = new Queue(ALERT_QUEUE, { connection: { url: opts.connection.url, connectionName: 'bb-alerts-producer' }, prefix });
    const onError = (err: unknown) => this.logger.warn({ err }, 'alert queue: Redis connection trouble (retrying)');
    this.queue.on('error', onError);
    this.answers = new Redis(opts.connection.url, { connectionName: 'bb-alerts-answers', maxRetriesPerRequest: null });
    this.answers.on('error', onError);
    this.answers.on('message', (_channel: string, message: string) => this.onAnswer(message));
    this.subscribed = this.answers.subscribe(answerChannel(opts.prefix, this.replyTo)).catch((err: unknown) => onError(err));
  }

  private onAnswer(message: string): void {
    let parsed;
    try {
      parsed = answerSchema.parse(JSON.parse(message));
    } catch {
      this.logger.warn('alert queue: an answer on this worker\'s channel is not an answer');
      return;
    }
    const outcome: Outcome<unknown> = parsed.ok ? { kind: 'answer', value: parsed.value } : { kind: 'failed', err: new Error(parsed.error ?? 'the job failed') };
    this.resolve(parsed.id, outcome);
  }

  private resolve(id: string, outcome: Outcome<unknown>): void {
    const waiting = this.waiters.get(id);
    if (waiting) {
      this.waiters.delete(id);
      for (const resolve of waiting) resolve(outcome);
      return;
    }
    const now = Date.now();
    for (const [k, v] of this.early) if (now - v.at > 60_000) this.early.delete(k);
    if (this.early.size < 10_000) this.early.set(id, { outcome, at: now });
  }

  /** The job's answer, from the channel, or from the job itself when none came in `answerPollMs`; undefined: not finished. */
  private async readJob(id: string): Promise<Outcome<unknown> | undefined> {
    const job = await Job.fromId(this.queue, id);
    if (!job?.finishedOn) return undefined;
    return job.failedReason && job.returnvalue === null ? { kind: 'failed', err: new Error(job.failedReason) } : { kind: 'answer', value: job.returnvalue };
  }

  private answerOf(id: string, stop: AbortSignal): Promise<Outcome<unknown>> {
    const early = this.early.get(id);
    if (early) {
      this.early.delete(id);
      return Promise.resolve(early.outcome);
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: Outcome<unknown>) => {
        clearTimeout(timer);
        const set = this.waiters.get(id);
        set?.delete(finish);
        if (set?.size === 0) this.waiters.delete(id);
        resolve(outcome);
      };
      const set = this.waiters.get(id) ?? new Set();
      set.add(finish);
      this.waiters.set(id, set);
      const poll = () => {
        timer = setTimeout(() => {
          this.readJob(id).then(
            (outcome) => (outcome ? finish(outcome) : stop.aborted ? undefined : poll()),
            () => (stop.aborted ? undefined : poll()),
          );
        }, this.answerPollMs);
        timer.unref();
      };
      poll();
      stop.addEventListener('abort', () => {
        clearTimeout(timer);
        const s = this.waiters.get(id);
        s?.delete(finish);
        if (s?.size === 0) this.waiters.delete(id);
      }, { once: true });
    });
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
      await Promise.allSettled([this.answers.quit().catch(() => this.answers.disconnect()), this.queue.close()]);
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
        await this.subscribed;
        const job: Job = await this.queue.add(jobName(payload.type, this.replyTo), payload, {
          ...(jobId !== undefined ? { jobId } : {}),
          ...(payload.type === 'edit' ? { priority: EDIT_PRIORITY } : {}),
          attempts: JOB_ATTEMPTS,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: this.keepCompletedS, count: 10_000 },
          removeOnFail: { age: 24 * 3600, count: 10_000 },
        });
        this.counters.enqueued += 1;
        return await this.answerOf(String(job.id), stop);
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
