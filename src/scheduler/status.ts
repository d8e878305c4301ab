/**
 * Status writing: what the scheduler records of a subscription in the store — the last good
 * read, the last error — and the pause for a fault only the user can fix (401, 403), which also
 * tells the user once through the notifier. A store that refuses a write (closing at shutdown,
 * a full disk) is logged and never stops the loop: the next read writes again.
 */
import type { Logger } from '../logger.js';
import type { ServiceStatus } from '../store/schema.js';
import type { Store } from '../store/port.js';
import type { NoticeReason, Notifier, SubscriptionRef } from './port.js';

export interface StatusWriterContext {
  store: Pick<Store, 'getUser' | 'updateUser' | 'updateStatus'>;
  notifier: Pick<Notifier, 'notice'>;
  log: Logger;
}

export interface StatusWriter {
  /** Merges `change` into the subscription's stored status. */
  write(sub: SubscriptionRef, change: Partial<ServiceStatus>): void;
  /**
   * Pauses the subscription's filter with `reason` and tells the user, unless it is paused (or
   * gone) already; the caller then refreshes the user's subscriptions.
   */
  pause(sub: SubscriptionRef, reason: NoticeReason, now: number): void;
}

const emptyStatus = (): ServiceStatus => ({ lastGoodReadAt: null, lastAlertAt: null, lastError: null });

export function createStatusWriter(ctx: StatusWriterContext): StatusWriter {
  const { store, notifier, log } = ctx;
  return {
    write(sub, change) {
      try {
        store.updateStatus(sub.userId, sub.service, change);
      } catch (err) {
        log.warn({ err, subKey: sub.subKey }, 'could not store the subscription status');
      }
    },

    pause(sub, reason, now) {
      let paused = false;
      try {
        const user = store.getUser(sub.userId);
        if (user?.filters[sub.service] && !user.filters[sub.service]!.paused) {
          const updated = store.updateUser(sub.userId, (draft) => {
            const filter = draft.filters[sub.service];
            if (filter) {
              filter.paused = true;
              filter.pausedReason = reason;
            }
            draft.status[sub.service] = { ...(draft.status[sub.service] ?? emptyStatus()), lastError: { kind: reason, at: now } };
          });
          paused = true;
          notifier.notice(updated, reason, sub.service);
        }
      } catch (err) {
        log.warn({ err, subKey: sub.subKey }, 'could not pause the subscription');
      }
      log.info({ subKey: sub.subKey, reason, paused }, 'subscription paused: the user has to act');
    },
  };
}
