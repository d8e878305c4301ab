/**
 * An alert sent whose message id is not known yet: its send's call stopped waiting for the answer
 * (a cluster's front behind a flood, remote-outbox.ts), and its entry kept the send's key. The diff
 * asks for the id (a `lookup` event) when the alert has something to show, at most every
 * LOOKUP_MIN_INTERVAL_MS, lastEditAt pacing them; the notifier reads it from the send's claim.
 */
import type { AlertEntry } from '../store/schema.js';

export const messageToFind = (entry: AlertEntry): boolean => entry.messageId === null && entry.sentKey !== undefined;

/**
 * How often an alert's message is looked for: a front that took over a minute to answer has a
 * backlog of minutes, so asking more often finds nothing sooner; an alert the front never sends
 * (dropped with its chat) is asked about no more than this while its item moves.
 */
export const LOOKUP_MIN_INTERVAL_MS = 30_000;

export const canLookUp = (entry: AlertEntry, now: number): boolean => now - entry.lastEditAt >= LOOKUP_MIN_INTERVAL_MS;
