/**
 * Before the front sends a user's alert to a group or channel, Telegram confirms that the user is
 * an admin there (the rule by which such a chat is chosen: /settings alerts). The stored record that
 * names the chat is in Redis, which whoever holds the Redis password can rewrite; Telegram's answer
 * cannot be (audit 3, M3). Answers are kept a while per chat and user (a yes for 30 minutes, as long as
 * the destination watch takes to notice a lost right anyway; a no for a minute), so a busy group
 * costs one getChatMember per user per half hour. A failed call (network, 429, 5xx) is thrown: the
 * queue retries the job rather than send it unconfirmed or drop it.
 */
import { GrammyError, type Api } from 'grammy';
import { ADMIN_STATUSES } from '../outbox/destinations.js';

/** How long a confirmed chat and user stay confirmed. */
export const CONFIRMED_MS = 30 * 60_000;
/** How long a refusal stands before Telegram is asked again. */
export const REFUSED_MS = 60_000;
/** At most this many answers are kept (the oldest go first). */
const MAX_KEPT = 10_000;

export type DestinationConfirmer = (chatId: number, userId: number) => Promise<boolean>;

export function createDestinationConfirmer(api: Pick<Api, 'getChatMember'>, now: () => number = Date.now): DestinationConfirmer {
  const kept = new Map<string, { admin: boolean; until: number }>();
  const asking = new Map<string, Promise<boolean>>();
  return async (chatId, userId) => {
    const key = `${chatId}:${userId}`;
    const known = kept.get(key);
    if (known && known.until > now()) return known.admin;
    const inFlight = asking.get(key);
    if (inFlight) return inFlight;
    const keep = (admin: boolean) => {
      kept.delete(key);
      kept.set(key, { admin, until: now() + (admin ? CONFIRMED_MS : REFUSED_MS) });
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
      return admin;
    };
    const ask = api
      .getChatMember(chatId, userId)
      .then(
        (member) => keep(ADMIN_STATUSES.has(member.status)),
        (err: unknown) => {
          // A definite answer about this chat or user (not found, no access): not an admin there.
          if (err instanceof GrammyError && (err.error_code === 400 || err.error_code === 403)) return keep(false);
          throw err;
        },
      )
      .finally(() => asking.delete(key));
    asking.set(key, ask);
    return ask;
  };
}
