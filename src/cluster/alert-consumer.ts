/**
 * The front's end of the alert queue: a BullMQ Worker that takes the workers' sends and edits off
 * `{prefix}alerts` and hands them to the front's outbox — the one in-process `Outbox` that talks to
 * Telegram and paces per chat and for the bot. The consumer only hands jobs over and waits for
 * their outcome (the job's return value: the message id, or whether the edit was applied), so it
 * runs many jobs at once; pacing, retries, digests and quiet hours stay the outbox's.
 *
 * No alert twice: a send named by an idempotency key is claimed in Redis (claims.ts) in its chat's
 * turn, right before the outbox calls `sendMessage` (the outbox's `beforeFirstSend`), not when the
 * job is taken: an alert still waiting in the outbox is not claimed, and the BullMQ job is answered
 * only with the outcome, so a front killed meanwhile loses nothing — BullMQ's stalled-job check
 * hands its active jobs to a live front, which claims and sends them. A second delivery of a key
 * that was claimed — a job replayed after a front crashed, a repeat enqueue whose first job was
 * already removed, a second worker that took over a lease and saw the item again — is not sent: it
 * resolves to the message id recorded in the claim. A claim left pending by a sender that stopped
 * between the claim and Telegram's answer resolves to at most once: not sent again, logged and
 * counted (`unsure`); that window is one Telegram call. A graceful `close()` lets the outbox answer
 * the jobs in hand first. Edits are not claimed: applying an edit twice is harmless (Telegram
 * answers "not modified", a success).
 *
 * A payload that is not an alert (zod) is discarded with a log line and fails its job (no retry);
 * the consumer never throws on one. So is a job the guard refuses (job-guard.ts): unsigned, forged,
 * or to a chat the store does not list for its user. A chat that blocked the bot answers undefined or false, as the
 * outbox does.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { SendingOutboxPort } from '../outbox/port.js';
import { ALERT_QUEUE, alertJobSchema, answerChannel, bullPrefix, replyToOf, type SendAlertJob } from './alert-jobs.js';
import { createClaims, type ClaimOutcome, type Claims, type RedisConnection } from './claims.js';
import { MAX_JOB_AGE_MS, MAX_JOB_SKEW_MS, type JobGuard } from './job-guard.js';
import type { DestinationConfirmer } from './destination-confirm.js';

export interface AlertConsumerOptions {
  connection: RedisConnection;
  /** The cluster's key prefix (config.REDIS_PREFIX). */
  prefix: string;
  /** The front's outbox (started): it asks for the claim in the alert's turn. */
  outbox: SendingOutboxPort;
  /** The claims to use; without it the consumer opens its own and closes them with itself. */
  claims?: Claims;
  logger: Logger;
  /**
   * Jobs in hand at once (default 2048): the outbox does the pacing, and it can fold a newer edit
   * of a message into a queued one only when both are in hand. With 256 a busy front stayed full of
   * edits that Telegram's pace let out at about 17 a second, while the queue behind grew; with 2048
   * the outbox folds them and keeps up (its depth held at 300–600 where it had been pinned at 256).
   */
  concurrency?: number;
  /**
   * BullMQ's job lock (default CONSUMER_LOCK_MS): how long a dead front's jobs stay active before
   * another consumer replays them. Renewed for every job in hand, each at most every
   * CONSUMER_LOCK_RENEW_MS: with a busy front's 2,048 jobs in hand, a 30 s lock renewed each
   * 7.5–15 s was a third of the cluster's Redis commands (GET, SET and SREM for every job).
   */
  lockDurationMs?: number;
  /** How often BullMQ looks for jobs whose lock lapsed (default 30 s). */
  stalledIntervalMs?: number;
  /** How long a pending claim of another sender is watched for its answer before it counts as unsure (default 3 s). */
  pendingWaitMs?: number;
  /** How long `close()` waits for the outbox to answer the jobs in hand (default 10 s). */
  closeTimeoutMs?: number;
  /** Refuses jobs not signed by a worker of this cluster, or to a chat the store does not list for the user (job-guard.ts). */
  guard?: Pick<JobGuard, 'check' | 'groupDestination'>;
  /** Whether the user is an admin of a group or channel a job goes to, as Telegram says (destination-confirm.ts). */
  confirmDestination?: DestinationConfirmer;
}

export interface AlertConsumerStats {
  /** Jobs taken off the queue. */
  received: number;
  /** Sends made: claimed in their turn (or named by no key) and handed to Telegram. */
  sent: number;
  /** Edits handed to the outbox. */
  edited: number;
  /** Sends not made because their key was sent before: answered with the recorded message id. */
  repeats: number;
  /** Sends not made because a sender claimed the key and never recorded Telegram's answer (at most once). */
  unsure: number;
  /** Payloads discarded as not alerts. */
  invalid: number;
  /** Jobs refused by the guard: unsigned, forged, or to a chat the store does not list for the user. */
  refused: number;
  /** Claims that could not be taken (Redis trouble): the job is retried by BullMQ. */
  claimErrors: number;
}

export interface AlertConsumer {
  /** This consumer's name in the claims it holds. */
  readonly holder: string;
  stats(): AlertConsumerStats;
  /**
   * Stops taking jobs, waits up to `closeTimeoutMs` for the outbox to answer the jobs in hand
   * (close it before draining the outbox), then closes its connections. Safe to call twice.
   */
  close(): Promise<void>;
}

const CLAIM_POLL_MS = 100;
/** The job lock of a consumer: how long a dead front's jobs wait before another front replays them. */
export const CONSUMER_LOCK_MS = 60_000;
/** How often the lock of each job in hand is renewed at most (BullMQ looks every half of it): a third of the lock left at worst. */
export const CONSUMER_LOCK_RENEW_MS = 40_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The front side's factory: starts consuming at once. */
export function startAlertConsumer(opts: AlertConsumerOptions): AlertConsumer {
  const { outbox } = opts;
  const log = opts.logger.child({ module: 'alert-consumer' });
  const ownClaims = opts.claims === undefined;
  const claims = opts.claims ?? createClaims({ connection: opts.connection, prefix: opts.prefix });
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const pendingWaitMs = opts.pendingWaitMs ?? 3000;
  const counts: AlertConsumerStats = { received: 0, sent: 0, edited: 0, repeats: 0, unsure: 0, invalid: 0, refused: 0, claimErrors: 0 };
  /** Sends of this consumer between claim and answer, by key: a second delivery here joins the first. */
  const sending = new Map<string, Promise<number | undefined>>();
  const inHand = new Set<Promise<unknown>>();
  // The answers go back on the asking worker's channel (remote-outbox.ts): one PUBLISH a job.
  const answers = new Redis(opts.connection.url, { connectionName: 'bb-alerts-answers', maxRetriesPerRequest: 3 });
  answers.on('error', () => undefined);
  const answer = (job: Job, message: { ok: true; value: unknown } | { ok: false; error: string }) => {
    const replyTo = replyToOf(job.name);
    if (replyTo === undefined || job.id === undefined) return;
    answers.publish(answerChannel(opts.prefix, replyTo), JSON.stringify({ id: job.id, ...message })).catch((err: unknown) =>
      log.warn({ err, jobId: job.id }, 'alert queue: could not send the answer to its worker (it reads the job instead)'),
    );
  };

  /** A claim someone else holds: wait a little for their answer; none means they stopped mid-send. */
  const answerOfHeld = async (key: string, jobId: string | undefined, heldBy: string): Promise<number | undefined> => {
    const until = Date.now() + pendingWaitMs;
    for (;;) {
      const now = await claims.peek(key);
      if (now?.kind === 'sent') {
        counts.repeats += 1;
        return now.messageId;
      }
      if (now === undefined || Date.now() >= until) break;
      await sleep(CLAIM_POLL_MS);
    }
    counts.unsure += 1;
    log.warn(
      { jobId, heldBy },
      'alert queue: this alert was claimed by a sender that never recorded Telegram’s answer (it stopped mid-send?); not sent again, so it reached the chat at most once',
    );
    return undefined;
  };

  const sendOnce = async (job: SendAlertJob, key: string, jobId: string | undefined): Promise<number | undefined> => {
    // Asked by the outbox in the alert's turn, right before its sendMessage.
    let claim: ClaimOutcome | undefined;
    let claimError: unknown;
    const claimInTurn = async (): Promise<boolean> => {
      try {
        claim = await claims.claim(key, holder);
      } catch (err) {
        claimError = err;
        return false;
      }
      return claim.kind === 'claimed';
    };
    const messageId = await outbox.send(job.chatId, job.text, job.opts, claimInTurn);
    if (claimError !== undefined) {
      counts.claimErrors += 1;
      // Nothing was sent: BullMQ may safely try the job again.
      throw new Error(`could not claim the alert: ${claimError instanceof Error ? claimError.message : String(claimError)}`);
    }
    // Never asked: dropped before its turn (a blocked chat, a drain), nothing sent and nothing claimed.
    if (claim === undefined) return messageId;
    if (claim.kind === 'sent') {
      counts.repeats += 1;
      log.info({ jobId }, 'alert queue: this alert was sent before; answered with its message id');
      return claim.messageId;
    }
    if (claim.kind === 'pending') return answerOfHeld(key, jobId, claim.holder);
    counts.sent += 1;
    try {
      await claims.settle(key, holder, messageId);
    } catch (err) {
      // Sent, but the claim still says pending: a later repeat of this key counts as unsure (not sent again).
      log.warn({ jobId, err }, 'alert queue: sent, but the answer could not be recorded in the claim');
    }
    return messageId;
  };

  const handle = async (job: Job): Promise<number | boolean | null> => {
    counts.received += 1;
    const parsed = alertJobSchema.safeParse(job.data);
    if (!parsed.success) {
      counts.invalid += 1;
      const fields = parsed.error.issues.slice(0, 5).map((i) => i.path.join('.') || '(payload)');
      log.warn({ jobId: job.id, name: job.name, fields }, 'alert queue: discarded a job that is not an alert');
      throw new UnrecoverableError('not an alert job');
    }
    const data = parsed.data;
    const refusal = opts.guard?.check(data);
    if (refusal !== undefined) {
      counts.refused += 1;
      // Neither text nor chat is logged: whoever wrote the job chose them.
      log.warn({ jobId: job.id, type: data.type, refusal }, 'alert queue: refused a job not signed by this cluster or to a chat no user of it chose; not sent');
      throw new UnrecoverableError(`alert job refused: ${refusal}`);
    }
    // A group or channel only when Telegram says the user is an admin there, whatever the record says.
    const group = opts.guard?.groupDestination(data);
    if (group && opts.confirmDestination && !(await opts.confirmDestination(group.chatId, group.userId))) {
      counts.refused += 1;
      log.warn({ jobId: job.id, type: data.type, refusal: 'destination', user_id: group.userId }, 'alert queue: refused a job to a chat where Telegram says its user is no admin; not sent');
      throw new UnrecoverableError('alert job refused: destination');
    }
    // Each signed job once: the same signed data queued again as another job is a replay.
    if (opts.guard && data.nonce !== undefined && !(await claims.takeNonce(data.nonce, String(job.id), MAX_JOB_AGE_MS + MAX_JOB_SKEW_MS))) {
      counts.refused += 1;
      log.warn({ jobId: job.id, type: data.type, refusal: 'replayed' }, 'alert queue: refused a signed job queued again (its nonce was used); not sent');
      throw new UnrecoverableError('alert job refused: replayed');
    }
    if (data.type === 'edit') {
      counts.edited += 1;
      return outbox.edit(data.chatId, data.messageId, data.text, data.opts);
    }
    const key = data.opts.idempotencyKey;
    if (key === undefined) {
      counts.sent += 1;
      return (await outbox.send(data.chatId, data.text, data.opts)) ?? null;
    }
    const already = sending.get(key);
    if (already) {
      counts.repeats += 1;
      return (await already) ?? null;
    }
    const once = sendOnce(data, key, job.id);
    sending.set(key, once);
    try {
      return (await once) ?? null;
    } finally {
      sending.delete(key);
    }
  };

  const worker = new Worker(
    ALERT_QUEUE,
    (job: Job) => {
      const run = handle(job).then((value) => {
        answer(job, { ok: true, value });
        return value;
      });
      inHand.add(run);
      void run.then(
        () => inHand.delete(run),
        () => inHand.delete(run),
      );
      return run;
    },
    {
      connection: { url: opts.connection.url, connectionName: 'bb-alerts-consumer', maxRetriesPerRequest: null },
      prefix: bullPrefix(opts.prefix),
      concurrency: opts.concurrency ?? 2048,
      lockDuration: opts.lockDurationMs ?? CONSUMER_LOCK_MS,
      lockRenewTime: Math.round(((opts.lockDurationMs ?? CONSUMER_LOCK_MS) * CONSUMER_LOCK_RENEW_MS) / CONSUMER_LOCK_MS),
      stalledInterval: opts.stalledIntervalMs ?? 30_000,
      // A job replayed after a front died more than this often is given up (its caller gets undefined).
      maxStalledCount: 3,
    },
  );
  worker.on('error', (err) => log.warn({ err }, 'alert queue: Redis connection trouble (retrying)'));
  worker.on('failed', (job, err) => {
    // Only a failure for good is an answer: a job BullMQ retries answers later.
    if (job && (err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) answer(job, { ok: false, error: err.message });
  });

  let closed: Promise<void> | undefined;
  return {
    holder,
    stats: () => ({ ...counts }),
    close() {
      closed ??= (async () => {
        await worker.pause(true);
        let timer: NodeJS.Timeout | undefined;
        const inTime = await Promise.race([
          Promise.allSettled([...inHand]).then(() => true),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), opts.closeTimeoutMs ?? 10_000))),
        ]);
        clearTimeout(timer);
        if (!inTime) log.warn({ left: inHand.size }, 'alert queue: closing with jobs the outbox has not answered; they will be replayed (and claimed ones counted unsure)');
        await worker.close(!inTime);
        await answers.quit().catch(() => answers.disconnect());
        if (ownClaims) await claims.close();
      })();
      return closed;
    },
  };
}
