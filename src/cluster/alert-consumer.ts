/**
 * The front's end of the alert stream: it takes the workers' batches of sends and edits off the
 * streams (alert-stream-reader.ts) and hands each alert to the front's outbox — the one in-process
 * `Outbox` that talks to Telegram and paces per chat and for the bot. The consumer only hands alerts
 * over and waits for their outcome (the message id, or whether the edit was applied), so it holds
 * many at once (`concurrency`); pacing, retries, digests and quiet hours stay the outbox's. An entry
 * is acknowledged (and deleted) once every alert in it was answered.
 *
 * No alert twice: a send named by an idempotency key is claimed in Redis (claims.ts) in its chat's
 * turn, right before the outbox calls `sendMessage` (the outbox's `beforeFirstSend`), not when the
 * entry is taken: an alert still waiting in the outbox is not claimed, and the entry is acknowledged
 * only once its alerts are answered, so a front killed meanwhile loses nothing — the next front takes
 * its pending entries over, claims and sends them. A second delivery of a key that was claimed — an
 * entry replayed after a front crashed, the same alert added twice, a second worker that took over a
 * lease and saw the item again — is not sent: it resolves to the message id recorded in the claim. A
 * claim left pending by a sender that stopped between the claim and Telegram's answer resolves to at
 * most once: not sent again, logged and counted (`unsure`); that window is one Telegram call. A
 * graceful `close()` lets the outbox answer the alerts in hand first. Edits are not claimed: applying
 * an edit twice is harmless (Telegram answers "not modified", a success).
 *
 * An entry that is not a batch (zod) is discarded with a log line; so is one the guard refuses
 * (job-guard.ts: unsigned, forged, stale, or its nonce seen on another entry), and an alert of a
 * batch to a chat the store does not list for its user. The consumer never throws on one, and the
 * worker that asked (when the batch names one) is answered at once. A chat that blocked the bot
 * answers undefined or false, as the outbox does.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { settlesWithin } from '../lib/settles-within.js';
import type { Logger } from '../logger.js';
import type { SendingOutboxPort } from '../outbox/port.js';
import { alertBatchSchema, type AlertBatch, type AlertItem, type SendAlertItem } from './alert-jobs.js';
import { createStreamReader, type StreamEntry } from './alert-stream-reader.js';
import { createClaims, type ClaimOutcome, type Claims, type RedisConnection } from './claims.js';
import { MAX_JOB_AGE_MS, MAX_JOB_SKEW_MS, type JobGuard, type JobRefusal } from './job-guard.js';
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
   * Alerts in hand at once (default 2048; a batch is taken whole, so it may go over by one batch):
   * the outbox does the pacing, and it can fold a newer edit of a message into a queued one only
   * when both are in hand. With 256 a busy front stayed full of edits that Telegram's pace let out
   * at about 17 a second, while the queue behind grew; with 2048 the outbox folds them and keeps up.
   */
  concurrency?: number;
  /** Pending entries another front left are taken over once idle this long (default 60 s; all of them at start). */
  reclaimIdleMs?: number;
  /** How often they are looked for (default 30 s). */
  reclaimIntervalMs?: number;
  /** How long one blocking read of the streams waits (default 5 s). */
  blockMs?: number;
  /** How long a pending claim of another sender is watched for its answer before it counts as unsure (default 3 s). */
  pendingWaitMs?: number;
  /** How long `close()` waits for the outbox to answer the alerts in hand (default 10 s). */
  closeTimeoutMs?: number;
  /** Refuses batches not signed by a worker of this cluster, and alerts to a chat the store does not list for the user (job-guard.ts). */
  guard?: Pick<JobGuard, 'verify' | 'fresh' | 'destination' | 'groupDestination'>;
  /** Whether the user is an admin of a group or channel an alert goes to, as Telegram says (destination-confirm.ts). */
  confirmDestination?: DestinationConfirmer;
}

export interface AlertConsumerStats {
  /** Stream entries taken (each a batch). */
  batches: number;
  /** Alerts taken off the stream. */
  received: number;
  /** Sends made: claimed in their turn (or named by no key) and handed to Telegram. */
  sent: number;
  /** Edits handed to the outbox. */
  edited: number;
  /** Sends not made because their key was sent before: answered with the recorded message id. */
  repeats: number;
  /** Sends not made because a sender claimed the key and never recorded Telegram's answer (at most once). */
  unsure: number;
  /** Entries discarded as not batches of alerts. */
  invalid: number;
  /** Alerts refused by the guard: unsigned, forged, stale, replayed, or to a chat the store does not list for the user. */
  refused: number;
  /** Claims that could not be taken (Redis trouble): the alert is tried again. */
  claimErrors: number;
}

export interface AlertConsumer {
  /** This consumer's name in the claims it holds and in the streams' group. */
  readonly holder: string;
  stats(): AlertConsumerStats;
  /**
   * Stops taking alerts, waits up to `closeTimeoutMs` (or `withinMs`, the shorter: what is left of
   * the stop's budget) for the outbox to answer the alerts in hand (close it before draining the
   * outbox), then closes its connections. Safe to call twice.
   */
  close(withinMs?: number): Promise<void>;
}

const CLAIM_POLL_MS = 100;
/** Tries of an alert whose claim could not be taken (nothing was sent), 0.5 s, then 1 s apart. */
const CLAIM_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Refused extends Error {
  constructor(readonly refusal: JobRefusal) {
    super(`alert refused: ${refusal}`);
  }
}
class ClaimTrouble extends Error {}

/** The front side's factory: starts consuming at once. */
export function startAlertConsumer(opts: AlertConsumerOptions): AlertConsumer {
  const { outbox, guard } = opts;
  const log = opts.logger.child({ module: 'alert-consumer' });
  const ownClaims = opts.claims === undefined;
  const claims = opts.claims ?? createClaims({ connection: opts.connection, prefix: opts.prefix });
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const pendingWaitMs = opts.pendingWaitMs ?? 3000;
  const concurrency = opts.concurrency ?? 2048;
  const counts: AlertConsumerStats = { batches: 0, received: 0, sent: 0, edited: 0, repeats: 0, unsure: 0, invalid: 0, refused: 0, claimErrors: 0 };
  /** Sends of this consumer between claim and answer, by key: a second delivery here joins the first. */
  const sending = new Map<string, Promise<number | undefined>>();
  const inHand = new Set<Promise<unknown>>();
  let alertsInHand = 0;

  const reader = createStreamReader({
    connection: opts.connection, prefix: opts.prefix, logger: opts.logger, consumer: holder,
    room: () => concurrency - alertsInHand,
    onEntry: (entry) => track(handleEntry(entry)),
    ...(opts.blockMs !== undefined && { blockMs: opts.blockMs }),
    ...(opts.reclaimIdleMs !== undefined && { reclaimIdleMs: opts.reclaimIdleMs }),
    ...(opts.reclaimIntervalMs !== undefined && { reclaimIntervalMs: opts.reclaimIntervalMs }),
  });

  const track = (run: Promise<unknown>) => {
    inHand.add(run);
    void run.finally(() => inHand.delete(run));
  };

  /** A claim someone else holds: wait a little for their answer; none means they stopped mid-send. */
  const answerOfHeld = async (key: string, heldBy: string): Promise<number | undefined> => {
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
    log.warn({ heldBy }, 'alert stream: this alert was claimed by a sender that never recorded Telegram’s answer (it stopped mid-send?); not sent again, so it reached the chat at most once');
    return undefined;
  };

  const sendOnce = async (item: SendAlertItem, key: string): Promise<number | undefined> => {
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
    const messageId = await outbox.send(item.chatId, item.text, item.opts, claimInTurn);
    if (claimError !== undefined) {
      counts.claimErrors += 1;
      // Nothing was sent: it may safely be tried again.
      throw new ClaimTrouble(`could not claim the alert: ${claimError instanceof Error ? claimError.message : String(claimError)}`);
    }
    // Never asked: dropped before its turn (a blocked chat, a drain), nothing sent and nothing claimed.
    if (claim === undefined) return messageId;
    if (claim.kind === 'sent') {
      counts.repeats += 1;
      log.info('alert stream: this alert was sent before; answered with its message id');
      return claim.messageId;
    }
    if (claim.kind === 'pending') return answerOfHeld(key, claim.holder);
    counts.sent += 1;
    // Recorded with the entry's acknowledgement, in one round trip; should that fail, the claim still
    // says pending, and a later repeat of this key counts as unsure (not sent again).
    reader.settle(key, holder, messageId);
    return messageId;
  };

  const sendKeyed = async (item: SendAlertItem, key: string): Promise<number | null> => {
    const already = sending.get(key);
    if (already) {
      counts.repeats += 1;
      return (await already) ?? null;
    }
    const once = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await sendOnce(item, key);
        } catch (err) {
          if (!(err instanceof ClaimTrouble) || attempt >= CLAIM_ATTEMPTS) throw err;
          await sleep(500 * 2 ** (attempt - 1));
        }
      }
    })();
    sending.set(key, once);
    try {
      return (await once) ?? null;
    } finally {
      sending.delete(key);
    }
  };

  const refuse = (refusal: JobRefusal, where: Record<string, unknown>, n: number) => {
    counts.refused += n;
    // Neither text nor chat is logged: whoever wrote the entry chose them.
    log.warn({ ...where, refusal }, 'alert stream: refused an alert not signed by this cluster, replayed, or to a chat no user of it chose; not sent');
  };

  const handleItem = async (item: AlertItem, entryId: string): Promise<number | boolean | null> => {
    const refusal = guard?.destination(item);
    if (refusal !== undefined) {
      refuse(refusal, { entryId, type: item.type }, 1);
      throw new Refused(refusal);
    }
    // A group or channel only when Telegram says the user is an admin there, whatever the record says.
    const group = guard?.groupDestination(item);
    if (group && opts.confirmDestination && !(await opts.confirmDestination(group.chatId, group.userId))) {
      refuse('destination', { entryId, type: item.type, user_id: group.userId }, 1);
      throw new Refused('destination');
    }
    if (item.type === 'edit') {
      counts.edited += 1;
      return outbox.edit(item.chatId, item.messageId, item.text, item.opts);
    }
    const key = item.opts.idempotencyKey;
    if (key !== undefined) return sendKeyed(item, key);
    counts.sent += 1;
    return (await outbox.send(item.chatId, item.text, item.opts)) ?? null;
  };

  /** The batch an entry holds once the guard let it through, or undefined (counted, logged, answered). */
  const batchOf = async (entry: StreamEntry): Promise<AlertBatch | undefined> => {
    const body = entry.fields.b;
    // The signature first: nothing unsigned is trusted, and the signed bytes are the ones parsed.
    const unsigned = guard && body !== undefined ? guard.verify(body, entry.fields.s) : undefined;
    let parsed: AlertBatch | undefined;
    let fields = ['b'];
    try {
      const result = body === undefined ? undefined : alertBatchSchema.safeParse(JSON.parse(body));
      if (result?.success) parsed = result.data;
      else if (result) fields = result.error.issues.slice(0, 5).map((i) => i.path.join('.') || '(batch)');
    } catch {
      fields = ['(not JSON)'];
    }
    const refusal = unsigned ?? (parsed && guard ? guard.fresh(parsed.at) : undefined);
    if (refusal === undefined && !parsed) {
      counts.invalid += 1;
      log.warn({ entryId: entry.id, fields }, 'alert stream: discarded an entry that is not a batch of alerts');
      return undefined;
    }
    if (refusal === undefined && parsed && guard) {
      // Each signed batch once: the same bytes added again as another entry are a replay.
      const taken = await claims.takeNonce(parsed.nonce, `${entry.stream}:${entry.id}`, MAX_JOB_AGE_MS + MAX_JOB_SKEW_MS);
      if (!taken) return refuseBatch('replayed', entry, parsed);
    }
    return refusal === undefined ? parsed : refuseBatch(refusal, entry, parsed);
  };

  const refuseBatch = (refusal: JobRefusal, entry: StreamEntry, parsed: AlertBatch | undefined): undefined => {
    refuse(refusal, { entryId: entry.id, alerts: parsed?.items.length ?? 0 }, parsed?.items.length ?? 1);
    // The worker named may be waiting (one signing under another key): it learns at once.
    for (const item of parsed?.items ?? []) reader.answer(parsed!.from, [item.i, false, `alert refused: ${refusal}`]);
    return undefined;
  };

  const handleEntry = async (entry: StreamEntry): Promise<void> => {
    counts.batches += 1;
    let batch: AlertBatch | undefined;
    try {
      batch = await batchOf(entry);
    } catch (err) {
      // The nonce could not be checked (Redis trouble): left pending, taken over again once idle.
      log.warn({ err, entryId: entry.id }, 'alert stream: could not check an entry; it is tried again later');
      reader.release(entry);
      return;
    }
    if (!batch) {
      reader.ack(entry);
      return;
    }
    const { from, items } = batch;
    counts.received += items.length;
    alertsInHand += items.length;
    await Promise.all(
      items.map(async (item) => {
        try {
          reader.answer(from, [item.i, true, await handleItem(item, entry.id)]);
        } catch (err) {
          reader.answer(from, [item.i, false, err instanceof Error ? err.message : String(err)]);
        } finally {
          alertsInHand -= 1;
          reader.wake();
        }
      }),
    );
    reader.ack(entry);
  };

  reader.start();
  let closed: Promise<void> | undefined;
  return {
    holder,
    stats: () => ({ ...counts }),
    close(withinMs) {
      closed ??= (async () => {
        await reader.stop();
        const inTime = await settlesWithin(Promise.allSettled([...inHand]), Math.min(opts.closeTimeoutMs ?? 10_000, withinMs ?? Number.POSITIVE_INFINITY));
        if (!inTime) log.warn({ left: alertsInHand }, 'alert stream: closing with alerts the outbox has not answered; the next front takes them over (and claimed ones count unsure)');
        await reader.close();
        if (ownClaims) await claims.close();
      })();
      return closed;
    },
  };
}
