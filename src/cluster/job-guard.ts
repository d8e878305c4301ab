/**
 * Whoever can write to the cluster's Redis can add entries to the alert stream; the front must not
 * post what they wrote. Three checks stand between the stream and Telegram:
 *
 * - A signature: each batch (one stream entry: a worker's sends and edits of one tick) is signed by
 *   the worker (HMAC-SHA256 under a key derived from the encryption key,
 *   `vault.deriveKey('alert-jobs')`) over its exact bytes, and the front refuses a batch whose
 *   signature is missing or wrong before it parses it. The encryption key is what every process of
 *   the cluster shares and Redis never holds (the cluster key check makes sure they share the same
 *   one), so a batch forged or altered in Redis — another text, another chat, another message to
 *   edit — does not pass. Rebuilding the text from the store was the other way; the store keeps no
 *   item (only the alert state's odds and profit), so the front could not render the card, and the
 *   signature covers the text as the worker rendered it. Signing the bytes, not a canonical form of
 *   the parsed batch, costs one HMAC a batch and no second serialisation on either end.
 * - The destination, anchored in Telegram rather than in the stored record (which whoever holds the
 *   Redis password can rewrite: audit 3, M3). An alert's user is the one its idempotency key names
 *   (it begins with the subscription `userId:service`), or a notice's `forUser`; an alert naming no
 *   user is refused. The user's private chat is the chat whose id is the user's own (Telegram gives a
 *   private chat the user's id), so it needs no record. Any other chat must be the alert chat the
 *   store lists for the user, and the consumer then asks Telegram whether the user is an admin there
 *   (`groupDestination`, destination-confirm.ts) before sending. A stolen signing key alone still
 *   cannot reach a chat no user of the bot chose.
 * - Freshness: the signature covers the time the worker signed the batch and a random nonce. A batch
 *   older than MAX_JOB_AGE_MS (or signed more than MAX_JOB_SKEW_MS in the future) is refused, and
 *   the consumer takes each nonce once (claims.ts), so a signed batch copied out of the stream cannot
 *   be added again to put an old text back on a message (audit 3, M3).
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Store } from '../store/port.js';
import type { AlertPayload } from './alert-jobs.js';

/** `vault.deriveKey`'s purpose for the signing key. */
export const ALERT_JOB_KEY_PURPOSE = 'alert-jobs';

/** Why an alert was refused ('replayed' is the consumer's, from the nonce it has seen). */
export type JobRefusal = 'unsigned' | 'forged' | 'stale' | 'destination' | 'replayed';

/** The oldest a signed batch may be when the front takes it. */
export const MAX_JOB_AGE_MS = 60 * 60_000;
/** How far ahead of the front's clock a worker's may be. */
export const MAX_JOB_SKEW_MS = 5 * 60_000;

export interface JobGuard {
  /** The signature of a batch: the HMAC of exactly these bytes. */
  sign(body: string): string;
  /** Undefined when `sig` is this cluster's signature of `body`; else why not. */
  verify(body: string, sig: string | undefined): 'unsigned' | 'forged' | undefined;
  /** Undefined when a batch signed at `at` (the worker's clock) may still be taken; else 'stale'. */
  fresh(at: number): 'stale' | undefined;
  /** Undefined when the alert may go out (once `groupDestination`'s chat is confirmed); else why not. */
  destination(item: AlertPayload): 'destination' | undefined;
  /** For an alert `destination` passed to a chat other than its user's private one: the chat and user to confirm with Telegram. */
  groupDestination(item: AlertPayload): { chatId: number; userId: number } | undefined;
}

export function createJobGuard(opts: {
  key: KeyObject;
  /** The store the destinations are checked against; without it only the signature is. */
  store?: Pick<Store, 'getUser'>;
  now?: () => number;
}): JobGuard {
  const now = opts.now ?? Date.now;
  const mac = (body: string) => createHmac('sha256', opts.key).update(body).digest('base64url');
  return {
    sign: mac,
    verify(body, sig) {
      if (sig === undefined || sig === '') return 'unsigned';
      const expected = Buffer.from(mac(body));
      const given = Buffer.from(sig);
      return given.length === expected.length && timingSafeEqual(given, expected) ? undefined : 'forged';
    },
    fresh(at) {
      const age = now() - at;
      return age > MAX_JOB_AGE_MS || age < -MAX_JOB_SKEW_MS ? 'stale' : undefined;
    },
    destination(item) {
      const store = opts.store;
      if (!store) return undefined;
      const userId = userOf(item);
      if (userId === undefined || !store.getUser(userId)) return 'destination';
      if (item.chatId === userId) return undefined;
      return store.getUser(userId)?.alertChatId === item.chatId ? undefined : 'destination';
    },
    groupDestination(item) {
      const userId = userOf(item);
      return userId === undefined || item.chatId === userId ? undefined : { chatId: item.chatId, userId };
    },
  };
}

/** The user an alert is for: the one its idempotency key names, or a notice's `forUser`. */
function userOf(item: AlertPayload): number | undefined {
  return userOfKey(item.opts.idempotencyKey) ?? (item.type === 'send' ? item.opts.forUser : undefined);
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
