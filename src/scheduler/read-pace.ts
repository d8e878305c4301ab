/**
 * The pace of polling: how often one read scope (a key on a host, or the host under
 * LIMIT_SCOPE=address) is read, and when a subscription's next read is due.
 *
 * The pace is the limit's own (30 reads a minute: one every 2 s) stretched by the margin the
 * client's window keeps after each answer (src/service/sliding-window.ts; in a cluster the shared
 * window's longer one, `Limits.itemWindowMs`), so that reads come evenly, never in a burst at a
 * window's edge, and almost never meet a full window. Nothing is set aside for lookups: the limiter
 * gives a waiting lookup the next slot and the poll it displaced one slot later, so lookup capacity
 * nobody uses is polling's.
 */
import { ITEM_WINDOW_MS } from '../service/scope-state.js';

/**
 * Shortest spacing (ms) of two reads of one scope: the read limit's pace over `windowMs` (how long
 * the limiter counts a read), less `keptShare` of the limit if a share is kept off polling
 * altogether (default none).
 */
export function readPaceMs(readsPerMinute: number, keptShare = 0, windowMs = ITEM_WINDOW_MS): number {
  const usable = readsPerMinute * (1 - Math.min(0.9, Math.max(0, keptShare)));
  return windowMs / Math.max(1e-9, usable);
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
