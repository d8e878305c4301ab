/**
 * A user as the shared store holds them now: in a cluster the workers' status writes (last good read,
 * last alert, last error) are not announced, so whatever shows or weighs statuses (/status, /connect)
 * reads the user again first. Redis away: what this process holds, which is still worth showing.
 */
import type { UserRecord } from '../../store/schema.js';
import type { BotRuntime } from '../deps.js';

export async function freshUser(rt: Pick<BotRuntime, 'store' | 'logger'>, userId: number): Promise<Readonly<UserRecord> | undefined> {
  try {
    await rt.store.refreshUsers([userId]);
  } catch (err) {
    rt.logger.warn({ err, userId }, 'could not read the user again before showing statuses');
  }
  return rt.store.getUser(userId);
}
