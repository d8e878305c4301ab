/**
 * The names the notifier gives its alerts and edits (the outbox port's `idempotencyKey`), so that
 * in a cluster the same alert enqueued twice — by a worker replayed after a crash, or by a second
 * worker that took over the subscription's lease and saw the item again before the first one's
 * alert state reached it — is queued and sent once (src/cluster/). The in-process outbox ignores
 * them.
 *
 * A key must be the same wherever the same alert is decided, so it is built from what every
 * worker sees alike, never from a worker's own clock when another worker could decide the same
 * alert without it:
 * - a first sighting: the subscription, the item and the service's own "created" time of the
 *   item (an item the service lists again later as a new one has a new created time, so it is
 *   alerted again, as it would be in one process);
 * - a repeat alert of an item that came back (gone past the return window, or back with a better
 *   profit): the sighting time of this alert's entry as well — only a worker that holds the
 *   item's alert state decides a repeat, and the entry's time is what it stored;
 * - an edit: the event and the entry's `lastEditAt` (each edit is a new version of the message;
 *   an edit applied twice is harmless anyway: Telegram answers "not modified", a success).
 */
import type { AlertEntry } from '../store/schema.js';
import type { Opportunity } from '../service/opportunity.js';

/** The key of a new alert (`again`: a repeat alert of an item that came back). */
export function alertKey(subKey: string, itemId: string, item: Pick<Opportunity, 'createdAt'>, entry: Pick<AlertEntry, 'firstSeenAt'>, again: boolean): string {
  const sighting = `${subKey}:${itemId}:new:${item.createdAt ?? '-'}`;
  return again ? `${sighting}:again:${entry.firstSeenAt}` : sighting;
}

/** The key of one edit of an alert's message. */
export function editKey(subKey: string, itemId: string, event: 'moved' | 'returned' | 'gone', entry: Pick<AlertEntry, 'firstSeenAt' | 'lastEditAt'>): string {
  return `${subKey}:${itemId}:${event}:${entry.firstSeenAt}:${entry.lastEditAt}`;
}
