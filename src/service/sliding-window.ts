/**
 * A sliding-window log of sends for one limit scope: at most `limit` sends in any `windowMs`.
 *
 * A send counts from the moment it is admitted until `windowMs` after its answer arrived: the
 * service stamps a request somewhere between our send and its answer, so only that end is safe
 * whatever window the service keeps (sliding, fixed, or a bucket refilled over the window).
 * Pure bookkeeping over times passed in: the caller owns the clock.
 */
export interface WindowEntry {
  /** Admission time while open; the answer's arrival once released. */
  at: number;
  /** True while the request is in flight. */
  open: boolean;
  /** Taken for a user waiting (a lookup, a check) rather than for background polling. */
  interactive: boolean;
  /** The Telegram user an interactive send was made for, when the caller said (their share is counted). */
  user?: number;
}

/** How long after its answer a send still counts by default: services that round their timestamps. */
export const WINDOW_MARGIN_MS = 100;

/** The send log of one scope (see the file comment for when a send counts). */
export class SlidingWindow {
  private entries: WindowEntry[] = [];

  /**
   * @param limit sends allowed in any window
   * @param windowMs the window's length
   * @param marginMs extra time a send stays counted, for services that round their timestamps
   */
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly marginMs = WINDOW_MARGIN_MS,
  ) {}

  /** Sends counted at `now` (in flight ones included). */
  used(now: number): number {
    this.prune(now);
    return this.entries.length;
  }

  /** Sends in flight now. */
  inFlight(): number {
    return this.entries.filter((e) => e.open).length;
  }

  /** How many more sends fit at `now`. */
  room(now: number): number {
    return Math.max(0, this.limit - this.used(now));
  }

  /**
   * ms from `now` until one more send fits: 0 when it fits now; Infinity when the window is full
   * of sends still in flight (one must be answered first).
   */
  waitMs(now: number): number {
    if (this.room(now) > 0) return 0;
    let earliest = Infinity;
    for (const e of this.entries) if (!e.open) earliest = Math.min(earliest, this.leavesAt(e));
    return earliest === Infinity ? Infinity : Math.max(1, earliest - now);
  }

  /** Interactive sends counted at `now` (in flight ones included); with `user`, only that user's. */
  interactiveUsed(now: number, user?: number): number {
    this.prune(now);
    let n = 0;
    for (const e of this.entries) if (this.counts(e, user)) n += 1;
    return n;
  }

  /**
   * ms from `now` until one more interactive send fits under `cap` interactive sends per window
   * (0 when it fits now; Infinity while all of them are in flight); with `user`, under `cap` sends
   * of that user's.
   */
  interactiveWaitMs(now: number, cap: number, user?: number): number {
    if (this.interactiveUsed(now, user) < cap) return 0;
    let earliest = Infinity;
    for (const e of this.entries) if (this.counts(e, user) && !e.open) earliest = Math.min(earliest, this.leavesAt(e));
    return earliest === Infinity ? Infinity : Math.max(1, earliest - now);
  }

  /** Records a send admitted at `now` (for `user`, when interactive and said); the caller checked `room` first. */
  take(now: number, interactive = false, user?: number): WindowEntry {
    const entry: WindowEntry = { at: now, open: true, interactive };
    if (interactive && user !== undefined) entry.user = user;
    this.entries.push(entry);
    return entry;
  }

  /** The answer arrived (or the send failed) at `now`: the send now leaves one window later. */
  release(entry: WindowEntry, now: number): void {
    if (!entry.open) return;
    entry.open = false;
    entry.at = Math.max(entry.at, now);
  }

  /** Nothing was sent after all: forget the entry. */
  cancel(entry: WindowEntry): void {
    this.entries = this.entries.filter((e) => e !== entry);
  }

  /** An interactive send, and `user`'s when a user is named. */
  private counts(entry: WindowEntry, user: number | undefined): boolean {
    return entry.interactive && (user === undefined || entry.user === user);
  }

  private leavesAt(entry: WindowEntry): number {
    return entry.at + this.windowMs + this.marginMs;
  }

  private prune(now: number): void {
    if (this.entries.some((e) => !e.open && this.leavesAt(e) <= now)) {
      this.entries = this.entries.filter((e) => e.open || this.leavesAt(e) > now);
    }
  }
}
