/**
 * The names the notifier gives its alerts and edits (the outbox port's `idempotencyKey`), so that
 * in a cluster the same alert enqueued twice — by a worker replayed after a crash, or by a second
 * worker that took over the subscription's lease and saw the item again before the first one's
 * alert state reached it — is queued and sent once (src/cluster/). The in-process outbox ignores
 * them.
 *
 * A key must be the same wherever the same alert is decided, so it is built from what every
 * worker sees alike, never from a worker's own clock when another worker could decide the same
 * alert without it. It must also differ whenever the alert is not the same one, or the queue would
 * answer a new alert with an old one's message (a message in another chat, which the entry would
 * then edit) or drop it:
 * - every key starts with the subscription (`userId:service`, which the cluster's job guard reads)
 *   and the item, and names the destination chat: an alert for a new destination is a new alert;
 * - a first sighting: the service's own "created" time of the item (an item the service lists
 *   again later as a new one has a new created time) and the time the subscription's filter was
 *   saved, kept in the user's record that every worker reads alike: a filter deleted and made
 *   again, whose alert state went with it, alerts its live items again instead of meeting the old
 *   keys. Not the entry's sighting time: a second worker that took over the subscription's lease
 *   and saw the item before the first one's alert state reached it stamps its own, and would
 *   alert twice;
 * - a repeat alert of an item that came back (gone past the return window, or back with a better
 *   profit): the sighting time of this alert's entry — only a worker that holds the item's alert
 *   state decides a repeat, and the entry's time is what it stored;
 * - an edit: the message it edits, the entry's first sighting, the event and the entry's
 *   `lastEditAt` (each edit is a new version of the message; an edit applied twice is harmless
 *   anyway: Telegram answers "not modified", a success);
 * - a loud re-alert (a reply to the alert whose profit rose): the message it replies to, the entry's
 *   first sighting and the profit it was counted from (each rise is a new re-alert).
 */
import type { AlertEntry } from '../store/schema.js';
import type { Opportunity } from '../service/opportunity.js';

export interface AlertKeyInput {
  subKey: string;
  itemId: string;
  item: Pick<Opportunity, 'createdAt'>;
  entry: Pick<AlertEntry, 'firstSeenAt' | 'chatId'>;
  /** A repeat alert of an item that came back. */
  again: boolean;
  /** When the subscription's filter was saved (undefined: no filter record, as in some tests). */
  filterSavedAt: number | undefined;
}

/** The key of a new alert. */
export function alertKey(k: AlertKeyInput): string {
  const base = `${k.subKey}:${k.itemId}:chat:${k.entry.chatId}`;
  return k.again ? `${base}:again:${k.entry.firstSeenAt}` : `${base}:new:${k.item.createdAt ?? '-'}:filter:${k.filterSavedAt ?? '-'}`;
}

/** The key of one edit of an alert's message. */
export function editKey(
  subKey: string,
  itemId: string,
  event: 'moved' | 'returned' | 'gone',
  entry: Pick<AlertEntry, 'chatId' | 'messageId' | 'firstSeenAt' | 'lastEditAt'>,
): string {
  return `${subKey}:${itemId}:chat:${entry.chatId}:msg:${entry.messageId ?? '-'}:${event}:${entry.firstSeenAt}:${entry.lastEditAt}`;
}

/** The key of a loud re-alert replying to an alert's message. */
export function reAlertKey(subKey: string, itemId: string, entry: Pick<AlertEntry, 'chatId' | 'messageId' | 'firstSeenAt'>, was: number): string {
  return `${subKey}:${itemId}:chat:${entry.chatId}:msg:${entry.messageId ?? '-'}:loud:${entry.firstSeenAt}:${was.toFixed(4)}`;
}
