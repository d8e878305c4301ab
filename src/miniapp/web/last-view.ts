/**
 * The last ledger this device showed, kept in localStorage so a second open draws it at once (marked
 * as refreshing) while the boot call brings the fresh one. One user's at a time: reading it for
 * another user, or for a launch whose initData names no user, deletes it; so does a refused boot
 * call (main.ts). Storage that is full, off or corrupt only means no early view.
 */
import type { LedgerView, Me } from './types.js';

const KEY = 'desk.lastView';
/** Bumped when LedgerView or Me change shape, so a page never draws a view an older page kept. */
const VERSION = 1;

export interface LastView {
  me: Me;
  ledger: LedgerView;
}
interface Stored extends LastView {
  v: number;
  userId: number;
}

/** The user id in initData's `user` field (as Telegram gave it; the server checks the signature). */
export function initDataUserId(initData: string): number | undefined {
  try {
    const id: unknown = (JSON.parse(new URLSearchParams(initData).get('user') ?? 'null') as { id?: unknown } | null)?.id;
    return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function forgetLastView(): void {
  try {
    storage()?.removeItem(KEY);
  } catch {
    // Nothing kept that could be shown.
  }
}

/** The view kept for `userId`; anything kept for someone else (or unreadable) is deleted instead. */
export function readLastView(userId: number | undefined): LastView | undefined {
  let stored: Stored | undefined;
  try {
    const raw = storage()?.getItem(KEY);
    if (raw === null || raw === undefined) return undefined;
    stored = JSON.parse(raw) as Stored;
  } catch {
    stored = undefined;
  }
  if (userId === undefined || stored?.v !== VERSION || stored.userId !== userId || stored.me?.userId !== userId || !stored.ledger) {
    forgetLastView();
    return undefined;
  }
  return { me: stored.me, ledger: stored.ledger };
}

export function keepLastView(view: LastView): void {
  const stored: Stored = { v: VERSION, userId: view.me.userId, ...view };
  try {
    storage()?.setItem(KEY, JSON.stringify(stored));
  } catch {
    // Full or off: the next open waits for the network, as the first did.
  }
}
