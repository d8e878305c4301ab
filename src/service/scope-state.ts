/**
 * One limit scope's state (a key's token hour, a key's or an address's reads on one host, …): its
 * sliding window of sends, a 429 pause and its strikes, who is waiting, and the wake-up callers
 * waiting for room sleep on. Pure given the clock's `now`: `blocker` says what stands between a
 * send and now, and why; `createLimits` (limits.ts) decides what to do about it.
 */
import type { LimitKind } from './limits-port.js';
import { userShareOf } from './limit-scopes.js';
import { SlidingWindow, WINDOW_MARGIN_MS } from './sliding-window.js';

const HOUR = 3_600_000;
/** Each kind's window (service-api.md §7). */
export const WINDOWS: Record<LimitKind, number> = { tokens: HOUR, filters: HOUR, items: 60_000, dicts: 24 * HOUR };
/** How long an item read counts in the in-process window from its answer: the minute and the margin. */
export const ITEM_WINDOW_MS = WINDOWS.items + WINDOW_MARGIN_MS;

/**
 * Why a send cannot go now: a 429 pause, a full window, the interactive share taken, or the
 * caller's user holding their own part of it (scopes the whole bot shares).
 */
export type Refusal = 'paused' | 'full' | 'interactive' | 'user';

export class ScopeState {
  readonly window: SlidingWindow;
  pausedUntil = 0;
  strikes = 0;
  waiting = 0;
  /** Interactive callers queued: a poll leaves them the next slot. */
  interactiveWaiting = 0;
  private wake: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    readonly kind: LimitKind,
    limit: number,
    /** Interactive sends allowed per window (a key's token cap follows its polling plan). */
    public interactiveCap: number,
    /** The scope is every user's (address-counted): one user may hold only `userShare` of the cap. */
    readonly sharedByUsers = false,
  ) {
    this.window = new SlidingWindow(limit, WINDOWS[kind]);
  }

  /** Interactive sends one user may hold per window; undefined when the scope is not shared by users. */
  get userShare(): number | undefined {
    return this.sharedByUsers ? userShareOf(this.interactiveCap) : undefined;
  }

  /** One limit's even spacing: a window's length over its sends. */
  get slotMs(): number {
    return this.window.windowMs / this.window.limit;
  }

  /** Resolves on the next release, cancel or pause change (or when `signal` aborts). */
  changed(signal: AbortSignal): Promise<void> {
    if (!this.wake) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      this.wake = { promise, resolve };
    }
    const { promise } = this.wake;
    return new Promise<void>((resolve) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void promise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.resolve();
  }

  /**
   * What stands between a send and now: 0 when it may go; else ms to wait (Infinity: until a
   * send in flight is answered) and why.
   */
  blocker(now: number, interactive: boolean, user?: number): { ms: number; why: Refusal } {
    const pause = this.pausedUntil - now;
    if (pause > 0) return { ms: pause, why: 'paused' };
    const wait = this.window.waitMs(now);
    if (wait > 0) return { ms: wait, why: 'full' };
    if (interactive) {
      const capWait = this.window.interactiveWaitMs(now, this.interactiveCap);
      if (capWait > 0) return { ms: capWait, why: 'interactive' };
      const userWait = this.userWaitMs(now, user);
      if (userWait > 0) return { ms: userWait, why: 'user' };
    }
    return { ms: 0, why: 'full' };
  }

  /** ms until `user` may make one more interactive send (0: now, or no share applies). */
  userWaitMs(now: number, user: number | undefined): number {
    const share = this.userShare;
    return share === undefined || user === undefined ? 0 : this.window.interactiveWaitMs(now, share, user);
  }

  /** An interactive caller is queued for the next slot (not one held back by its cap). */
  lookupWaiting(now: number): boolean {
    return this.interactiveWaiting > 0 && this.window.interactiveWaitMs(now, this.interactiveCap) === 0;
  }
}
