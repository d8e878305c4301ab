/**
 * The pace of polling: how often one read scope (a key on a host, or the host under
 * LIMIT_SCOPE=address) is read, and when a subscription's next read is due.
 *
 * The pace is the limit's own (30 reads a minute: one every 2 s) plus the margin the client's
 * sliding window keeps after each answer (src/service/sliding-window.ts), so that reads come
 * evenly, never in a burst at a window's edge, and almost never meet a full window. Nothing is
 * set aside for lookups: the limiter gives a waiting lookup the next slot and the poll it
 * displaced one slot later, so lookup capacity nobody uses is polling's.
 */

/** How long after its answer a read still counts in the client's window (SlidingWindow's margin). */
export const WINDOW_MARGIN_MS = 100;
const MINUTE_MS = 60_000;

/**
 * Shortest spacing (ms) of two reads of one scope: the read limit's pace, less `keptShare` of
 * the limit if a share is kept off polling altogether (default none).
 */
export function readPaceMs(readsPerMinute: number, keptShare = 0): number {
  const usable = readsPerMinute * (1 - Math.min(0.9, Math.max(0, keptShare)));
  return (MINUTE_MS + WINDOW_MARGIN_MS) / Math.max(1e-9, usable);
}

/** When a read went out: the moment it was due on the pace, and the moment it really started. */
export interface ReadStart {
  /** Its turn on the pace (at most a couple of the loop's ticks before `startedAt`). */
  pacedAt: number;
  startedAt: number;
}

/**
 * When a subscription is due again: one interval after the moment its last read was due, so a
 * read the loop took late (up to a tick of its grid, or a late timer) does not push every later
 * read out by that much; never sooner than the poll floor after that read really started, nor
 * before `now`; plus a jitter of up to `jitterRatio` of the interval so users do not fall into
 * step. A slow answer does not move it either. The limiter still has the last word on each read.
 */
export function nextReadAt(last: ReadStart, now: number, intervalMs: number, floorMs: number, jitterRatio: number, random: () => number): number {
  return Math.max(now, last.pacedAt + intervalMs, last.startedAt + floorMs) + intervalMs * jitterRatio * random();
}
