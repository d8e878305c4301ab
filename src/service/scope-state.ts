/**
 * One limit scope's state (a key's token hour, a key's or an address's reads on one host, …): its
 * sliding window of sends, a 429 pause and its strikes, who is waiting, and the wake-up callers
 * waiting for room sleep on. Pure given the clock's `now`: `blocker` says what stands between a
 * send and now, and why; `createLimits` (limits.ts) decides what to do about it.
 */
import type { LimitKind } from './limits-port.js';
import { SlidingWindow } from './sliding-window.js';

const HOUR = 3_600_000;
/** Each kind's window (service-api.md §7). */
export const WINDOWS: Record<LimitKind, number> = { tokens: HOUR, filters: HOUR, items: 60_000, dicts: 24 * HOUR };

/** Why a send cannot go now: a 429 pause, a full window, or the interactive share taken. */
export type Refusal = 'paused' | 'full' | 'interactive';

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
  ) {
    this.window = new SlidingWindow(limit, WINDOWS[kind]);
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
  blocker(now: number, interactive: boolean): { ms: number; why: Refusal } {
    const pause = this.pausedUntil - now;
    if (pause > 0) return { ms: pause, why: 'paused' };
    const wait = this.window.waitMs(now);
    if (wait > 0) return { ms: wait, why: 'full' };
    if (interactive) {
      const capWait = this.window.interactiveWaitMs(now, this.interactiveCap);
      if (capWait > 0) return { ms: capWait, why: 'interactive' };
    }
    return { ms: 0, why: 'full' };
  }

  /** An interactive caller is queued for the next slot (not one held back by its cap). */
  lookupWaiting(now: number): boolean {
    return this.interactiveWaiting > 0 && this.window.interactiveWaitMs(now, this.interactiveCap) === 0;
  }
}
