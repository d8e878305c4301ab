/**
 * A good read, applied: the items that pass the user's filter (interned, so what each
 * subscription keeps is mostly references to shared objects) are diffed against the alert state
 * (diff.ts), the state's changes stored, the events handed to the notifier, placed valuebets'
 * closing lines noted (closing-lines.ts), and now and then the last good read written to the
 * subscription's status (at most every `statusWriteEveryMs`).
 */
import type { ItemsRead, Opportunity } from '../service/opportunity.js';
import { matchesFilter } from '../service/filter-model.js';
import type { Store } from '../store/port.js';
import { diffRead } from './diff.js';
import type { ItemInterner } from './item-interner.js';
import type { Notifier, RecordCloses } from './port.js';
import type { StatusWriter } from './status.js';
import type { Sub } from './subscriptions.js';

export interface ReadApplierContext {
  store: Pick<Store, 'getUser' | 'alerts'>;
  /** Notes placed selections' closing lines from each read (no request of its own). */
  recordCloses?: RecordCloses | undefined;
  notifier: Pick<Notifier, 'notify'>;
  interner: Pick<ItemInterner, 'intern'>;
  status: Pick<StatusWriter, 'write'>;
  statusWriteEveryMs: number;
  /** REVIVE_MINUTES in ms: an arb back within it revives its alert (diff.ts). */
  reviveMs?: number | undefined;
}

/** Applies `read` of `sub` at `now`; a user or filter gone since is no error, just nothing to do. */
export type ApplyRead = (sub: Sub, read: ItemsRead, now: number) => void;

export function createReadApplier(ctx: ReadApplierContext): ApplyRead {
  const { store, notifier, interner, status } = ctx;
  const recordCloses = ctx.recordCloses;
  return (sub, read, now) => {
    const user = store.getUser(sub.userId);
    const filter = user?.filters[sub.service];
    if (!user || !filter) return;
    // Shared across subscriptions: what is kept per subscription is then mostly references.
    const items: Opportunity[] = [];
    for (const item of read.items) if (matchesFilter(item, filter.settings, now)) items.push(interner.intern(item));
    const result = diffRead({
      now,
      chatId: user.alertChatId ?? user.chatId,
      items,
      entries: store.alerts.view(sub.subKey),
      known: sub.known,
      ...(sub.lastReadAt !== undefined ? { previousReadAt: sub.lastReadAt } : {}),
      ...(ctx.reviveMs !== undefined ? { reviveMs: ctx.reviveMs } : {}),
    });
    for (const [itemId, entry] of result.upserts) store.alerts.set(sub.subKey, itemId, entry);
    for (const itemId of result.deletes) store.alerts.delete(sub.subKey, itemId);
    const firstRead = sub.lastReadAt === undefined || sub.filterSavedAt !== filter.savedAt;
    sub.known = result.known;
    sub.latest = items;
    sub.lastReadAt = now;
    sub.filterSavedAt = filter.savedAt;
    notifier.notify(firstRead ? { userId: sub.userId, service: sub.service, subKey: sub.subKey, firstRead } : sub, user, result.events);
    // Every item read (in the filter or not): a placed selection's odds are its closing line until the start.
    recordCloses?.(sub, read.items, now);
    if (now - sub.lastStatusWriteAt >= ctx.statusWriteEveryMs) {
      sub.lastStatusWriteAt = now;
      status.write(sub, { lastGoodReadAt: now });
    }
  };
}
