/**
 * The workers' outbox: `OutboxPort` over the cluster's alert stream (alert-jobs.ts). A worker reads
 * the service and runs the notifier but never talks to Telegram; its notifier's sends and edits are
 * added to the stream, and the front's consumer (alert-consumer.ts) hands them to the one outbox
 * that does. `send` resolves with the message id the front got, `edit` with whether it was applied
 * — as the in-process outbox does, so the notifier keeps message ids and stops editing a vanished
 * message the same way.
 *
 * Every send and edit made within `lingerMs` (50 ms) of the first one waiting goes out as one
 * stream entry per stream: one XADD, one JSON, one signature, and one entry for the front to read,
 * check and acknowledge. A worker among three rarely ends two reads in one turn of its event loop,
 * so batching by turn makes 0.40 entries a read where gathering for 50 ms makes 0.11 (at
 * 40 reads a second), for at most 50 ms of an alert's time against reads 2 s apart. A BullMQ job per
 * alert cost 25–30 Redis commands, a lock renewed while the front held it and a JSON and an HMAC of
 * its own; the batch costs one command whatever its size (docs/benchmarks.md, "Cluster scale").
 * Sends go to the `new` stream and edits to the `edit` stream, so a front holding its bound of
 * alerts takes new alerts first.
 *
 * The answers come back on this outbox's own pub/sub channel (`{prefix}alert-answers:<replyTo>`,
 * named in each batch), published by the front when the alerts end, several in one message. An
 * answer missed (the channel reconnecting) is found for a send named by an idempotency key in its
 * claim (claims.ts): every `answerPollMs` (30 s) the sends still waiting that long read their
 * claims, all in one MGET.
 *
 * A call waits at most `resultTimeoutMs` (a minute): the front sends at Telegram's pace, so a flood
 * of alerts can queue for many minutes, and a call held that long in every worker is memory that
 * grows with the front's backlog. A send that got no answer by then resolves undefined and its
 * message id is read from its claim when it is needed (`messageIdOf`: told by `onNoAnswer`, the
 * notifier keeps the key in the alert's entry, which also serves a worker that takes the alert over); an edit
 * resolves undefined, not known to have failed, so the message is edited again at the next move.
 *
 * The same alert added twice (a send repeated by the notifier, or by a second worker after a lease
 * moved) is two items on the stream; the front's claim sends it once and answers the second with
 * the first's message id. Edits of one message are not coalesced here: the front's outbox coalesces
 * queued edits of one message (only the latest text is sent, every caller gets its outcome), and
 * the diff already spaces edits of one alert 10 s apart.
 *
 * Nothing here rejects: a failure to add, a refusal, no answer within `resultTimeoutMs`, or
 * `close()` resolve undefined or false, logged and counted.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { NO_AUTO_RESUBSCRIBE, resubscribing } from '../lib/redis-resubscribe.js';
import type { Logger } from '../logger.js';
import type { OutboxEditOptions, OutboxPort, OutboxSendOptions } from '../outbox/port.js';
import { alertStreams, answerChannel, answersSchema, editPayload, editResultSchema, MAX_BATCH, sendPayload, sendResultSchema, WIRE_VERSION, type AlertPayload } from './alert-jobs.js';
import { claimKey, parseClaim, peekClaim, type RedisConnection } from './claims.js';
import type { JobGuard } from './job-guard.js';
import { ANSWER_WAIT_MS, noThrow, TimeoutLog } from './answer-wait.js';

/**
 * How long a keyed send waits for its answer on the channel before it reads its claim, and again as
 * often. Long: an alert may wait for its chat's turn in the front's outbox for many seconds, and a
 * missed answer is rare (the channel reconnecting).
 */
export const ANSWER_POLL_MS = 30_000;

/**
 * Entries older than this are trimmed from the streams as new ones are added (XADD MINID ~). A
 * front refuses a batch signed over an hour ago anyway (job-guard.ts); two hours leave room for
 * clocks that disagree, and bound the streams while no front reads them.
 */
export const STREAM_KEEP_MS = 2 * 60 * 60_000;

/** How long the first alert waiting for a batch waits for others before the batch is added. */
export const ALERT_LINGER_MS = 50;

export interface RemoteOutboxOptions {
  connection: RedisConnection;
  /** The cluster's key prefix (config.REDIS_PREFIX). */
  prefix: string;
  logger: Logger;
  /** How long a call waits for the front's answer before it resolves undefined (default ANSWER_WAIT_MS). */
  resultTimeoutMs?: number;
  /** Signs each batch (job-guard.ts), so a front that checks signatures takes it; without it batches go unsigned. */
  guard?: Pick<JobGuard, 'sign'>;
  /** How long a keyed send waits for its answer on the channel before it reads its claim, and again as often (default ANSWER_POLL_MS). */
  answerPollMs?: number;
  /** How long the first call of a batch waits for others (default ALERT_LINGER_MS; 0: the batch is the event loop's turn). */
  lingerMs?: number;
}

export interface RemoteOutboxStats {
  /** Sends and edits added to the stream. */
  enqueued: number;
  /** Stream entries added (each a batch of the sends or the edits of one tick). */
  batches: number;
  /** Calls answered by the front (or by their claim). */
  answered: number;
  /** Calls that got no answer in time (undefined or false). */
  timedOut: number;
  /** Calls that could not be added, that the front refused or gave up, or whose answer was not understood. */
  failed: number;
  /** Calls cut short by `close()`. */
  abandoned: number;
}

/** What a call's outcome is logged with. */
type Where = Pick<AlertPayload, 'type' | 'chatId'>;

type Outcome = { kind: 'answer'; value: unknown } | { kind: 'failed'; why: string } | { kind: 'timeout' } | { kind: 'closed' };

/** What a call resolves with when the front's answer is not there: a failure, or not known. */
interface Fallback<T> {
  failed: T;
  unknown: T;
}

interface Waiting {
  /** The claim to read when the answer is late (keyed sends only). */
  claim?: string;
  since: number;
  finish(outcome: Outcome): void;
}

export class RemoteOutbox implements OutboxPort {
  private readonly redis: Redis;
  /** The answers' channel: subscribed once, for every call of this outbox. */
  private readonly answers: Redis;
  private readonly subscribed: Promise<unknown>;
  private readonly replyTo = randomBytes(9).toString('base64url');
  /**
   * Batch nonces: a random prefix of this outbox and a counter. The consumer needs each unique, not
   * unpredictable (the signature covers it); a random draw per batch cost a syscall each.
   */
  private readonly noncePrefix = randomBytes(12).toString('base64url');
  private nonces = 0;
  private readonly streams: { new: string; edit: string };
  private readonly waiting = new Map<number, Waiting>();
  /** Items waiting for their batch, added together when the first has waited `lingerMs`. */
  private buffer: (AlertPayload & { i: number })[] = [];
  /** Cancels the flush scheduled for the items waiting; undefined when none is. */
  private cancelScheduled: (() => void) | undefined;
  private readonly lingerMs: number;
  /** Batches being added (their XADD not yet answered). */
  private readonly adding = new Set<Promise<void>>();
  private nextId = 0;
  private readonly poll: NodeJS.Timeout;
  private readonly logger: Logger;
  private readonly resultTimeoutMs: number;
  private readonly answerPollMs: number;
  private readonly counters: RemoteOutboxStats = { enqueued: 0, batches: 0, answered: 0, timedOut: 0, failed: 0, abandoned: 0 };
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly timeouts: TimeoutLog;

  constructor(private readonly opts: RemoteOutboxOptions) {
    this.logger = opts.logger.child({ module: 'remote-outbox' });
    this.resultTimeoutMs = opts.resultTimeoutMs ?? ANSWER_WAIT_MS;
    this.answerPollMs = opts.answerPollMs ?? ANSWER_POLL_MS;
    this.timeouts = new TimeoutLog(this.logger, this.resultTimeoutMs);
    this.lingerMs = Math.max(0, opts.lingerMs ?? ALERT_LINGER_MS);
    this.streams = alertStreams(opts.prefix);
    const onError = (err: unknown) => this.logger.warn({ err }, 'alert stream: Redis connection trouble (retrying)');
    // An XADD waits for Redis while it is away (restarted), as the notifier's call waits for its answer anyway.
    this.redis = new Redis(opts.connection.url, { connectionName: 'bb-alerts-producer', maxRetriesPerRequest: null, enableAutoPipelining: true });
    this.redis.on('error', onError);
    this.answers = new Redis(opts.connection.url, { connectionName: 'bb-alerts-answers', maxRetriesPerRequest: null, ...NO_AUTO_RESUBSCRIBE });
    this.answers.on('error', onError);
    this.answers.on('message', (_channel: string, message: string) => this.onAnswers(message));
    this.subscribed = resubscribing(this.answers, onError)(answerChannel(opts.prefix, this.replyTo)).catch((err: unknown) => onError(err));
    this.poll = setInterval(() => void this.readClaims(), Math.max(10, Math.round(this.answerPollMs / 2)));
    this.poll.unref();
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
    return this.call(sendPayload(chatId, text, opts), (v) => sendResultSchema.parse(v) ?? undefined, { failed: undefined, unknown: undefined }, opts.onNoAnswer);
  }

  /** False when the front says the edit failed; undefined when no answer came in time or this outbox closed first (it may still be applied). */
  edit(chatId: number, messageId: number, text: string, opts: OutboxEditOptions = {}): Promise<boolean | undefined> {
    return this.call(editPayload(chatId, messageId, text, opts), (v) => editResultSchema.parse(v), { failed: false, unknown: undefined });
  }

  /** What the claim of the send named `idempotencyKey` says: its message id, 'none' (sent as no message of its own), or undefined (not sent yet, or Redis away). */
  async messageIdOf(idempotencyKey: string): Promise<number | 'none' | undefined> {
    if (this.closing) return undefined;
    try {
      // The outbox's own connection: a worker opens no claims connection for this.
      const claim = await peekClaim(this.redis, this.opts.prefix, idempotencyKey);
      if (claim?.kind !== 'sent') return undefined;
      return claim.messageId ?? 'none';
    } catch {
      return undefined;
    }
  }

  /** Resolves every call still waiting (undefined or false) and closes the connections. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      clearInterval(this.poll);
      this.cancelFlush();
      for (const w of [...this.waiting.values()]) w.finish({ kind: 'closed' });
      this.buffer = [];
      await Promise.allSettled([this.answers.quit().catch(() => this.answers.disconnect()), this.redis.quit().catch(() => this.redis.disconnect())]);
    })();
    return this.closed;
  }

  private call<T>(payload: AlertPayload, read: (value: unknown) => T, fallback: Fallback<T>, onNoAnswer?: () => void): Promise<T> {
    if (this.closing) {
      this.counters.abandoned += 1;
      return Promise.resolve(fallback.unknown);
    }
    const i = this.nextId++;
    const key = payload.opts.idempotencyKey;
    const claim = payload.type === 'send' && key !== undefined ? claimKey(this.opts.prefix, key) : undefined;
    const answer = this.answerOf(i, { type: payload.type, chatId: payload.chatId }, claim, read, fallback, onNoAnswer);
    this.buffer.push({ ...payload, i });
    if (this.buffer.length >= MAX_BATCH) {
      // A full entry has nothing to wait for.
      this.addNow();
    } else if (this.cancelScheduled === undefined) {
      if (this.lingerMs > 0) {
        const timer = setTimeout(() => this.addNow(), this.lingerMs);
        this.cancelScheduled = () => clearTimeout(timer);
      } else {
        const immediate = setImmediate(() => this.addNow());
        this.cancelScheduled = () => clearImmediate(immediate);
      }
    }
    return answer;
  }

  /**
   * Adds what waits now, without its linger, and resolves once every batch added so far is in the
   * stream (or failed). A worker's alert state is written after it (worker-role.ts): an item the
   * state says was alerted is then on the stream, even if this process is killed next.
   */
  async added(): Promise<void> {
    if (this.buffer.length > 0) this.addNow();
    await Promise.all([...this.adding]);
  }

  private addNow(): void {
    this.cancelFlush();
    const adding = this.flush().catch((err: unknown) => this.logger.warn({ err }, 'alert stream: could not add a batch (its calls time out)'));
    this.adding.add(adding);
    void adding.then(() => this.adding.delete(adding));
  }

  private cancelFlush(): void {
    this.cancelScheduled?.();
    this.cancelScheduled = undefined;
  }

  /**
   * Call `i`'s answer. Its own method, so that no closure holds the payload: its text and buttons
   * leave with the batch instead of staying for as long as the front's backlog makes the call wait
   * (they are in the stream and in the front meanwhile).
   */
  private answerOf<T>(i: number, where: Where, claim: string | undefined, read: (value: unknown) => T, fallback: Fallback<T>, onNoAnswer?: () => void): Promise<T> {
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => waiting.finish({ kind: 'timeout' }), this.resultTimeoutMs);
      const waiting: Waiting = {
        ...(claim !== undefined && { claim }),
        since: Date.now(),
        finish: (outcome) => {
          if (this.waiting.get(i) !== waiting) return;
          this.waiting.delete(i);
          clearTimeout(timer);
          // The call stopped waiting while the message may still go out: the caller keeps its key (a send's `onNoAnswer`).
          if ((outcome.kind === 'timeout' || outcome.kind === 'closed') && onNoAnswer) noThrow(onNoAnswer);
          resolve(this.settle(outcome, where, read, fallback));
        },
      };
      this.waiting.set(i, waiting);
    });
  }

  /** Adds the items waiting: one entry for their sends, one for their edits (more past MAX_BATCH). */
  private async flush(): Promise<void> {
    const items = this.buffer;
    this.buffer = [];
    if (items.length === 0 || this.closing) return;
    // Subscribed first, so that no answer can come before anyone listens.
    await this.subscribed;
    const sends = items.filter((p) => p.type === 'send');
    const edits = items.filter((p) => p.type === 'edit');
    const minId = `${Math.max(0, Date.now() - STREAM_KEEP_MS)}-0`;
    await Promise.all(
      [
        ...chunks(sends, MAX_BATCH).map((c) => [this.streams.new, c] as const),
        ...chunks(edits, MAX_BATCH).map((c) => [this.streams.edit, c] as const),
      ].map(async ([stream, batch]) => {
        const body = JSON.stringify({ v: WIRE_VERSION, from: this.replyTo, at: Date.now(), nonce: `${this.noncePrefix}${(this.nonces++).toString(36)}`, items: batch });
        const sig = this.opts.guard?.sign(body);
        try {
          await this.redis.xadd(stream, 'MINID', '~', minId, '*', 'b', body, ...(sig === undefined ? [] : ['s', sig]));
          this.counters.enqueued += batch.length;
          this.counters.batches += 1;
        } catch (err) {
          const why = `could not add to the alert stream: ${err instanceof Error ? err.message : String(err)}`;
          for (const item of batch) this.waiting.get(item.i)?.finish({ kind: 'failed', why });
        }
      }),
    );
  }

  private onAnswers(message: string): void {
    let answers;
    try {
      answers = answersSchema.parse(JSON.parse(message));
    } catch {
      this.logger.warn("alert stream: a message on this worker's answer channel is not an answer");
      return;
    }
    for (const [i, ok, value] of answers) this.waiting.get(i)?.finish(ok ? { kind: 'answer', value } : { kind: 'failed', why: value });
  }

  /** Keyed sends that waited `answerPollMs` for their answer: their claims, in one MGET. */
  private async readClaims(): Promise<void> {
    const now = Date.now();
    const late = [...this.waiting.values()].filter((w) => w.claim !== undefined && now - w.since >= this.answerPollMs);
    if (late.length === 0 || this.closing) return;
    try {
      const values = await this.redis.mget(late.map((w) => w.claim!));
      values.forEach((value, n) => {
        const claim = value === null ? undefined : parseClaim(value);
        if (claim?.kind === 'sent') late[n]!.finish({ kind: 'answer', value: claim.messageId ?? null });
        else late[n]!.since = now;
      });
    } catch {
      // Redis away: the next round asks again.
    }
  }

  private settle<T>(outcome: Outcome, where: Where, read: (value: unknown) => T, fallback: Fallback<T>): T {
    switch (outcome.kind) {
      case 'answer':
        try {
          const value = read(outcome.value);
          this.counters.answered += 1;
          return value;
        } catch {
          this.counters.failed += 1;
          this.logger.warn(where, 'alert stream: the front answered something that is not an answer');
          return fallback.failed;
        }
      case 'failed':
        this.counters.failed += 1;
        this.logger.warn({ ...where, error: outcome.why }, 'alert stream: the alert failed');
        return fallback.failed;
      case 'timeout':
        this.counters.timedOut += 1;
        this.timeouts.add(where);
        return fallback.unknown;
      case 'closed':
        this.counters.abandoned += 1;
        this.logger.debug(where, 'alert stream: closed while waiting for the front');
        return fallback.unknown;
    }
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let n = 0; n < items.length; n += size) out.push(items.slice(n, n + size));
  return out;
}

/** The worker side's factory: an `OutboxPort` for the notifier; `close()` it at shutdown after the notifier is idle. */
export function createRemoteOutbox(opts: RemoteOutboxOptions): RemoteOutbox {
  return new RemoteOutbox(opts);
}
