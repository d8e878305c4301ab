/**
 * Connecting a key pair: encrypt the secret at once, check the pair with one token request,
 * store it when the pair is valid (even without access to the checked service), and bring the
 * user's filters over to a new key.
 *
 * Whether another user holds the key is looked at only after the pair is verified: a stranger who
 * types a key without its secret hears "wrong pair", as for a key that does not exist. A verified
 * pair takes the key over from a holder whose alerts are paused because the service refuses their
 * secret (the key's owner rotated it, or gave it to someone else); otherwise the key stays theirs.
 *
 * What the bot already knows of the user's own pair spares a check, or answers one the budget
 * refuses (newcomer report #2). The service keeps one secret per access key — each display on its
 * site makes a new one — so:
 * - the same access key with the same secret as the user's stored pair, which the service still
 *   accepts (no 401 pause since), is that pair: nothing to check, nothing to change;
 * - the same access key with another secret, when the check cannot be made now (the key's token
 *   requests or the user's cap are spent): the stored secret was accepted at a known time, and a
 *   key has one secret at a time, so the typed one is not it: answered as wrong, and nothing is
 *   changed. If the user did get a new secret on the site after that time, the stored one stops
 *   working, the scheduler's next token request is refused, their alerts pause with a notice, and
 *   the pair is no longer "known to work": the next /connect is checked as usual. Saying "wrong"
 *   never stores anything, so it cannot let a bad pair in; the only thing it can get wrong is that
 *   rotation, for at most one token window, and the user is told exactly that case.
 * Only the user's own stored pair is compared (never another holder's: that would tell a stranger
 * about someone else's secret), with a constant-time comparison of digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { knownSecrets } from '../../log-redaction.js';
import { isServiceError } from '../../service/errors.js';
import { NEWCOMERS_SHARE_ID } from '../../service/limit-scopes.js';
import type { Service } from '../../service/services.js';
import { SERVICES } from '../../service/services.js';
import { StoreError } from '../../store/errors.js';
import type { Lang, UserRecord } from '../../store/schema.js';
import type { BotRuntime } from '../deps.js';
import { freshUser } from './fresh-user.js';
import { maskKey } from '../ui/mask.js';

export type ConnectOutcome =
  | {
      kind: 'connected';
      service: Service;
      masked: string;
      replacedKey: boolean;
      rewriteFailed: Service[];
      /** The user the key was taken from (their secret no longer worked), to be told. */
      tookOverFrom?: { chatId: number; lang: Lang };
    }
  | { kind: 'no_access'; service: Service; masked: string; tookOverFrom?: { chatId: number; lang: Lang } }
  | { kind: 'wrong_pair'; masked: string }
  /** The same key and secret as the user's pair, which the service accepts: no check was made. */
  | { kind: 'same_pair'; masked: string }
  /** Not the secret of the user's pair, which the service accepted at `acceptedAt`; the check could not be made now. */
  | { kind: 'wrong_known'; masked: string; acceptedAt: number }
  | { kind: 'taken'; masked: string }
  /** `userShare`: the user holds their part of a budget every user of the bot shares (address scope); others may go on. */
  | { kind: 'rate_limited'; masked: string; retryAfterMs: number; userShare?: true; newcomers?: true }
  /** The user's (or the key's) own cap on key checks: nothing was sent. */
  | { kind: 'capped'; masked: string; waitMs: number }
  | { kind: 'unavailable'; masked: string };

export interface ConnectRequest {
  userId: number;
  chatId: number;
  lang: Lang;
  accessKey: string;
  secret: string;
  service: Service;
  /** The user named the service to check (`/connect key secret service`): a same pair is checked for it unless it was read with it. */
  serviceNamed?: boolean;
}

/** When the service last accepted the user's stored pair for `accessKey`; undefined when it refused it since, or it is not theirs. */
function acceptedAt(user: UserRecord | undefined, accessKey: string): number | undefined {
  if (user?.key?.accessKey !== accessKey) return undefined;
  const connectedAt = user.key.connectedAt;
  // A 401 pause, or a refusal after the last good read: the stored secret no longer works.
  if (Object.values(user.filters).some((f) => f?.paused === true && f.pausedReason === 'auth')) return undefined;
  let at = connectedAt;
  for (const status of Object.values(user.status)) {
    if (status?.lastError?.kind === 'auth' && status.lastError.at >= connectedAt) return undefined;
    if (status?.lastGoodReadAt !== null && status?.lastGoodReadAt !== undefined && status.lastGoodReadAt >= connectedAt) at = Math.max(at, status.lastGoodReadAt);
  }
  return at;
}

/** Whether `secret` is the user's stored secret for the key (digests compared in constant time). */
function isStoredSecret(rt: BotRuntime, user: UserRecord, secret: string): boolean {
  if (!user.key) return false;
  let stored: string;
  try {
    stored = rt.vault.decrypt(user.key.secretEnc, { userId: user.id, accessKey: user.key.accessKey });
  } catch {
    return false;
  }
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(stored), digest(secret));
}

/** Another user who holds this access key (the service keeps one filter per key). */
function otherHolder(rt: BotRuntime, accessKey: string, userId: number): UserRecord | undefined {
  const owner = rt.store.findUserByAccessKey(accessKey);
  return owner !== undefined && owner.id !== userId ? owner : undefined;
}

/** The service refuses the holder's secret: the scheduler paused their alerts for 'auth'. */
function heldInVain(holder: UserRecord): boolean {
  return Object.values(holder.filters).some((f) => f?.paused === true && f.pausedReason === 'auth');
}

export async function connectKey(rt: BotRuntime, req: ConnectRequest): Promise<ConnectOutcome> {
  const { userId, accessKey, service } = req;
  const masked = maskKey(accessKey);
  // Others trying a held key count apart from its holder's own checks: junk pairs sent by
  // strangers must not lock the holder out of reconnecting their key for the window.
  const heldBy = otherHolder(rt, accessKey, userId);
  // With the statuses the workers wrote: whether the stored pair was read with lately.
  const mine = await freshUser(rt, userId);
  const accepted = acceptedAt(mine, accessKey);
  const same = accepted !== undefined && mine !== undefined && isStoredSecret(rt, mine, req.secret);
  // The pair is the one the service accepts now: checking it again would spend a token request for nothing.
  if (same && (!req.serviceNamed || (mine.status[service]?.lastGoodReadAt ?? null) !== null)) {
    return { kind: 'same_pair', masked };
  }
  // When no check can be made, the stored pair still tells a secret that is not its own (see the header).
  const refusedCheck = <T extends ConnectOutcome>(outcome: T): ConnectOutcome =>
    accepted !== undefined && !same ? { kind: 'wrong_known', masked, acceptedAt: accepted } : outcome;
  const waitMs = await rt.caps.take('connect', userId, heldBy ? `held-by-other:${accessKey}` : accessKey);
  if (waitMs > 0) return refusedCheck({ kind: 'capped', masked, waitMs });

  // From here on only the vault's blob is stored; the plain secret is kept in no state, and the
  // logs cut it by value only once the service has accepted the pair (a junk "secret" must not be
  // cut from every later line: audit 3, M1).
  // Bound to this user and key: copied into another record, it does not open.
  const secretEnc = rt.vault.encrypt(req.secret, { userId, accessKey });
  const ref = { accessKey, revealSecret: () => rt.vault.decrypt(secretEnc, { userId, accessKey }, { unproven: true }) };
  const previous = rt.store.getUser(userId)?.key?.accessKey;
  // Tokens cached for the old secret must not vouch for the new one.
  if (previous === accessKey) rt.client.forgetKey(accessKey);

  // A user whose key never worked is counted with every such user (NEWCOMERS_SHARE_ID).
  const newcomer = !rt.store.getUser(userId)?.key;
  let forbidden = false;
  try {
    await rt.client.checkKey(ref, service, { priority: 'interactive', wait: false, userId: newcomer ? NEWCOMERS_SHARE_ID : userId });
  } catch (err) {
    if (!isServiceError(err)) throw err;
    switch (err.kind) {
      case 'auth':
        return { kind: 'wrong_pair', masked };
      case 'forbidden':
        forbidden = true;
        break;
      case 'rate_limited':
        return refusedCheck({
          kind: 'rate_limited',
          masked,
          retryAfterMs: err.details.retryAfterMs ?? 60_000,
          ...(err.details.share === 'user' && (newcomer ? { newcomers: true as const } : { userShare: true as const })),
        });
      default:
        rt.logger.warn({ kind: err.kind, service }, 'key check failed');
        return { kind: 'unavailable', masked };
    }
  }

  // The service accepted the pair (a plan without this service still proves it): from now on
  // every log line of this process cuts the secret by value.
  knownSecrets.add(req.secret);

  // Only now, with the pair proven, may the answer say that someone else holds the key.
  const holder = otherHolder(rt, accessKey, userId);
  if (holder && !heldInVain(holder)) return { kind: 'taken', masked };
  if (holder) {
    rt.store.updateUser(holder.id, (draft) => {
      draft.key = null;
    });
    // Tokens issued for the old holder's pair are theirs, not this user's.
    rt.client.forgetKey(accessKey);
    rt.scheduler.refreshUser(holder.id);
    rt.logger.info({ from_user: holder.id, to_user: userId }, 'an access key whose secret no longer worked for its holder was taken over');
  }

  const now = rt.clock.now();
  const replacedKey = previous !== undefined && previous !== accessKey;
  let updated: UserRecord;
  try {
    updated = rt.store.updateUser(
      userId,
      (draft) => {
        draft.key = { accessKey, secretEnc, connectedAt: now };
        for (const s of SERVICES) {
          const record = draft.filters[s];
          if (!record?.paused) continue;
          // A working pair ends pauses caused by the old pair; access is known only for the checked service.
          if (record.pausedReason === 'auth' || (replacedKey && record.pausedReason === 'forbidden')) {
            record.paused = false;
            record.pausedReason = null;
          }
          if (s === service && record.pausedReason === 'forbidden' && !forbidden) {
            record.paused = false;
            record.pausedReason = null;
          }
        }
      },
      { chatId: req.chatId, lang: req.lang },
    );
  } catch (err) {
    // Another user connected the same key while this check was running.
    if (err instanceof StoreError && err.code === 'access-key-taken') return { kind: 'taken', masked };
    throw err;
  }
  // Written before the answer says so (audit 2, N13): in a cluster another front may have given the
  // key to someone else a moment ago, which the write, not the local copy, finds out.
  await rt.store.flush();
  if (rt.store.getUser(userId)?.key?.accessKey !== accessKey) return { kind: 'taken', masked };
  if (replacedKey && previous !== undefined) rt.client.forgetKey(previous);

  // The service keeps filters per key: a new key (or one taken over, holding the old holder's
  // filters) starts without this user's, so they are written again.
  const rewriteFailed: Service[] = [];
  if (replacedKey || holder) {
    for (const s of SERVICES) {
      const record = updated.filters[s];
      if (!record) continue;
      try {
        await rt.client.writeFilter(ref, s, record.settings, { priority: 'interactive', wait: false, userId });
      } catch (err) {
        if (!isServiceError(err)) throw err;
        rewriteFailed.push(s);
      }
    }
  }
  rt.scheduler.refreshUser(userId);
  const tookOver = holder && { tookOverFrom: { chatId: holder.chatId, lang: holder.lang } };
  if (forbidden) return { kind: 'no_access', service, masked, ...tookOver };
  return { kind: 'connected', service, masked, replacedKey, rewriteFailed, ...tookOver };
}
