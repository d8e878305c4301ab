/**
 * The order of one chat's jobs. Telegram gives a chat a burst of about three messages and then about
 * one a second, sends and edits alike, so what goes first decides how fast a user learns something
 * new: a command reply (the user is waiting for it), then new messages (a new opportunity is the
 * point of the bot), then late alerts (items first seen well after they appeared, such as the
 * backlog a service shows when its token comes back: news, but older than a fresh one), then "gone"
 * marks, then edits of moving alerts. Within a priority, jobs keep the order they came in. (Edits
 * also leave the burst to the others: `chat-bucket.ts`.)
 */

export const PRIORITY = { reply: 0, send: 1, late: 2, gone: 3, edit: 4 } as const;

export interface Prioritized {
  /** Lower goes first. */
  priority: number;
  /** Arrival order, over all chats. */
  seq: number;
}

/** Inserts `job` after every job that goes before it or with it (the queue stays sorted). */
export function insertByPriority<T extends Prioritized>(queue: T[], job: T): void {
  let at = queue.length;
  while (at > 0) {
    const before = queue[at - 1]!;
    if (before.priority < job.priority || (before.priority === job.priority && before.seq < job.seq)) break;
    at -= 1;
  }
  queue.splice(at, 0, job);
}
