/**
 * Whoever can write to the cluster's Redis can put jobs on the alert queue; the front must not
 * post what they wrote. Two checks stand between the queue and Telegram:
 *
 * - A signature: each job is signed by the worker (HMAC-SHA256 under a key derived from the
 *   encryption key, `vault.deriveKey('alert-jobs')`), and the front refuses a job whose signature
 *   is missing or wrong. The encryption key is what every process of the cluster shares and Redis
 *   never holds (the cluster key check makes sure they share the same one), so a job forged or
 *   altered in Redis — another text, another chat, another message to edit — does not pass.
 *   Rebuilding the text from the store was the other way; the store keeps no item (only the alert
 *   state's odds and profit), so the front could not render the card, and the signature covers the
 *   text as the worker rendered it.
 * - The destination, anchored in Telegram rather than in the stored record (which whoever holds the
 *   Redis password can rewrite: audit 3, M3). The job's user is the one its idempotency key names
 *   (it begins with the subscription `userId:service`), or a notice's `forUser`; a job naming no user
 *   is refused. The user's private chat is the chat whose id is the user's own (Telegram gives a
 *   private chat the user's id), so it needs no record. Any other chat must be the alert chat the
 *   store lists for the user, and the consumer then asks Telegram whether the user is an admin there
 *   (`groupDestination`, destination-confirm.ts) before sending. A stolen signing key alone still
 *   cannot reach a chat no user of the bot chose.
 * - Freshness: the signature covers the time the worker signed the job and a random nonce. A job
 *   older than MAX_JOB_AGE_MS (or signed more than MAX_JOB_SKEW_MS in the future) is refused, and
 *   the consumer takes each nonce once (claims.ts), so a signed job kept in the queue's completed
 *   or failed sets cannot be queued again to put an old text back on a message (audit 3, M3).
 */
import { createHmac, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Store } from '../store/port.js';
import type { AlertJob } from './alert-jobs.js';

/** `vault.deriveKey`'s purpose for the signing key. */
export const ALERT_JOB_KEY_PURPOSE = 'alert-jobs';

/** Why a job was refused ('replayed' is the consumer's, from the nonce it has seen). */
export type JobRefusal = 'unsigned' | 'forged' | 'stale' | 'destination' | 'replayed';

/** The oldest a signed job may be when the front takes it: as long as a completed job is kept. */
export const MAX_JOB_AGE_MS = 60 * 60_000;
/** How far ahead of the front's clock a worker's may be. */
export const MAX_JOB_SKEW_MS = 5 * 60_000;

export interface JobGuard {
  /** The job with its signature. */
  sign(job: AlertJob): AlertJob;
  /** Undefined when the job may go out (once `groupDestination`'s chat is confirmed); else why not. */
  check(job: AlertJob): JobRefusal | undefined;
  /** For a job `check` passed to a chat other than its user's private one: the chat and user to confirm with Telegram. */
  groupDestination(job: AlertJob): { chatId: number; userId: number } | undefined;
}

export function createJobGuard(opts: {
  key: KeyObject;
  /** The store the destinations are checked against; without it only the signature is. */
  store?: Pick<Store, 'getUser'>;
  now?: () => number;
}): JobGuard {
  const now = opts.now ?? Date.now;
  const mac = (job: AlertJob) => createHmac('sha256', opts.key).update(canonical({ ...job, sig: undefined })).digest('base64url');
  return {
    sign(job) {
      const stamped = { ...job, at: now(), nonce: randomBytes(16).toString('base64url') };
      return { ...stamped, sig: mac(stamped) };
    },
    check(job) {
      if (job.sig === undefined || job.at === undefined || job.nonce === undefined) return 'unsigned';
      const expected = Buffer.from(mac(job));
      const given = Buffer.from(job.sig);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
      const age = now() - job.at;
      if (age > MAX_JOB_AGE_MS || age < -MAX_JOB_SKEW_MS) return 'stale';
      const store = opts.store;
      if (!store) return undefined;
      const userId = userOf(job);
      if (userId === undefined || !store.getUser(userId)) return 'destination';
      if (job.chatId === userId) return undefined;
      return store.getUser(userId)?.alertChatId === job.chatId ? undefined : 'destination';
    },
    groupDestination(job) {
      const userId = userOf(job);
      return userId === undefined || job.chatId === userId ? undefined : { chatId: job.chatId, userId };
    },
  };
}

/** The user a job is for: the one its idempotency key names, or a notice's `forUser`. */
function userOf(job: AlertJob): number | undefined {
  return userOfKey(job.opts.idempotencyKey) ?? (job.type === 'send' ? job.opts.forUser : undefined);
}

/** The user an alert's idempotency key names (`userId:service:item…`), if it names one. */
function userOfKey(key: string | undefined): number | undefined {
  const match = key === undefined ? null : /^(-?\d{1,16}):/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/** JSON with keys sorted at every level and undefined dropped: the same bytes on both ends whatever the key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
