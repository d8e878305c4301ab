/**
 * The sender's claims: the cluster's guard against sending one alert twice. Right before the front's
 * outbox sends an alert named by an idempotency key (in its chat's turn), the front claims the key in Redis
 * (`SET {prefix}claim:<id> p:<holder> NX PX <7 days>`, one round trip that also returns what was
 * there); once Telegram answered it records the message id in the claim (`s:<id>`, or `s:` when
 * the outbox answered with none: folded into a digest, held, dropped). A second delivery of the
 * key — a stream entry replayed after a front crashed, the same alert added twice, a second
 * worker that took over a lease and saw the item again — finds the claim and is not sent again:
 * it resolves to the recorded message id.
 *
 * A claim still pending (`p:<holder>`) with nobody finishing it means its sender stopped between
 * the claim and Telegram's answer: the Bot API has no idempotency key, so nobody can know whether
 * the message went out; it is not sent again (at most once), and the consumer logs and counts it.
 *
 * The claim lives here, with the cluster's sender, not in the store: the embedded outbox is one
 * process and needs none. Keys start with the cluster's prefix; values hold no secret.
 */
import { Redis, type ChainableCommander } from 'ioredis';
import { z } from 'zod';
import { idempotencyId } from './alert-jobs.js';
import { definePipelineScript, defineScript } from './redis-calls.js';

/** How long a claim is kept: longer than any alert could wait in the stream or be replayed. */
export const CLAIM_TTL_MS = 7 * 24 * 60 * 60_000;

/** How the cluster reaches Redis: its URL (`redis://` or `rediss://`, as in REDIS_URL). */
export interface RedisConnection {
  url: string;
}

/** What `claim` found. */
export type ClaimOutcome =
  /** Ours now: send it. */
  | { kind: 'claimed' }
  /** Sent before: this is what Telegram answered (undefined: the outbox answered with no message id). */
  | { kind: 'sent'; messageId: number | undefined }
  /** Claimed by `holder`, who has not recorded an answer (yet, or ever). */
  | { kind: 'pending'; holder: string };

export interface Claims {
  /** Claims `key` for `holder`, or says who has it and how far they got. */
  claim(key: string, holder: string): Promise<ClaimOutcome>;
  /** What the claim of `key` says now (undefined: never claimed, or expired). */
  peek(key: string): Promise<ClaimOutcome | undefined>;
  /** Records Telegram's answer in `holder`'s claim; false when the claim is not `holder`'s (any more). */
  settle(key: string, holder: string, messageId: number | undefined): Promise<boolean>;
  /**
   * Takes a signed batch's nonce for stream entry `entryId` for `ttlMs`: true the first time, and
   * again for the same entry (replayed after a front died); false when another entry already
   * carried it (a replay).
   */
  takeNonce(nonce: string, entryId: string, ttlMs: number): Promise<boolean>;
  /** Closes the Redis connection (when it was opened here). */
  close(): Promise<void>;
}

export interface ClaimsOptions {
  /** Opened here and closed by `close()`. */
  connection: RedisConnection;
  /** The cluster's key prefix (config.REDIS_PREFIX). */
  prefix: string;
  ttlMs?: number;
}

// Compare-and-set: only the holder turns its pending claim into an answer, keeping its expiry.
const SETTLE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;

const replySchema = z.string().nullable();
const settledSchema = z.union([z.literal(0), z.literal(1)]);

const SETTLE_COMMAND = 'bbClaimSettle';
/** The settle's arguments: the holder's pending value, and the answer that replaces it. */
const settleArgs = (holder: string, messageId: number | undefined) => [`p:${holder}`, `s:${messageId ?? ''}`];

/** A settle queued on a pipeline (the stream reader's flush), as `Claims.settle` makes it. */
export type QueueSettle = (pipe: ChainableCommander, key: string, holder: string, messageId: number | undefined) => void;

/**
 * Registers the settle on `redis` (a connection other than the claims' own) and returns how to queue
 * one on its pipelines: the front settles a sent alert's claim in the same round trip as the
 * entry's acknowledgement and the worker's answer (alert-stream-reader.ts), not in one of its own.
 */
export function settleOnPipelines(redis: Redis, prefix: string): QueueSettle {
  const queue = definePipelineScript(redis, SETTLE_COMMAND, 1, SETTLE);
  return (pipe, key, holder, messageId) => queue(pipe, [claimKey(prefix, key)], settleArgs(holder, messageId));
}

/** Reads a claim's value; anything unexpected counts as pending by an unknown holder (never sent again). */
export function parseClaim(value: string): ClaimOutcome {
  if (value.startsWith('s:')) {
    const id = value.slice(2);
    if (id === '') return { kind: 'sent', messageId: undefined };
    const n = Number(id);
    if (Number.isSafeInteger(n) && n > 0) return { kind: 'sent', messageId: n };
  }
  if (value.startsWith('p:')) return { kind: 'pending', holder: value.slice(2) };
  return { kind: 'pending', holder: '?' };
}

/** The Redis key of an idempotency key's claim. */
export function claimKey(prefix: string, key: string): string {
  return `${prefix}claim:${idempotencyId(key)}`;
}

/** An idempotency key's claim as it stands (one GET), undefined when there is none. */
export async function peekClaim(redis: Pick<Redis, 'get'>, prefix: string, key: string): Promise<ClaimOutcome | undefined> {
  const value = await redis.get(claimKey(prefix, key));
  return value === null ? undefined : parseClaim(value);
}

/** An ioredis client for the claims: fails fast instead of queueing forever while Redis is down. */
function openRedis(connection: RedisConnection, name: string): Redis {
  // Claims asked in one tick (a burst of turns) share one write to the socket.
  return new Redis(connection.url, { connectionName: name, maxRetriesPerRequest: 3, lazyConnect: false, enableAutoPipelining: true });
}

/** Claims in Redis under `{prefix}claim:`. */
export function createClaims(opts: ClaimsOptions): Claims {
  const redis = openRedis(opts.connection, 'bb-claims');
  // ioredis reports a lost connection as an 'error' event; without a listener Node would throw it.
  redis.on('error', () => undefined);
  const ttlMs = opts.ttlMs ?? CLAIM_TTL_MS;
  const keyOf = (key: string) => claimKey(opts.prefix, key);
  // EVALSHA: the script's text is sent once, not with every call.
  const settleScript = defineScript(redis, SETTLE_COMMAND, 1, SETTLE);
  return {
    async claim(key, holder) {
      // SET … NX GET (Redis 7): sets when absent and answers what was there, in one round trip.
      const before = replySchema.parse(await redis.call('SET', keyOf(key), `p:${holder}`, 'PX', String(ttlMs), 'NX', 'GET'));
      return before === null ? { kind: 'claimed' } : parseClaim(before);
    },
    peek: (key) => peekClaim(redis, opts.prefix, key),
    async settle(key, holder, messageId) {
      const done = settledSchema.parse(await settleScript([keyOf(key)], settleArgs(holder, messageId)));
      return done === 1;
    },
    async takeNonce(nonce, entryId, nonceTtlMs) {
      // One command: set when absent, and what was there (this entry's own id: the same entry again).
      const before = replySchema.parse(await redis.call('SET', `${opts.prefix}job-nonce:${nonce}`, entryId, 'PX', String(nonceTtlMs), 'NX', 'GET'));
      return before === null || before === entryId;
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
