/**
 * Closing lines for the ledger's CLV, from the reads the scheduler makes anyway (no request of its
 * own): when a user has placed a valuebet whose event has not started, each read of that service
 * that still offers the selection records its odds (and the service's fair odds) as the latest
 * "closing" line. Written only when the odds move, or every RENOTE_MS to keep "last seen" fresh,
 * so a quiet selection costs one map lookup per item and read. Users without such a position
 * cost one lookup per read. The scheduler is handed the recorder (`SchedulerOptions.recordCloses`):
 * it reads, this side knows what the alerts printed.
 */
import { markKey } from '../ledger/marks.js';
import type { RecordCloses } from '../scheduler/port.js';
import { legOdds } from './headline-figures.js';
import { serviceFairOdds } from './position-from-alert.js';
import type { LedgerStore } from '../store/port.js';

/** A selection seen at unchanged odds is noted again after this long (its "last seen" time). */
export const RENOTE_MS = 5 * 60_000;

export function createCloseRecorder(ledger: Pick<LedgerStore, 'marks' | 'noteClose'>): RecordCloses {
  /** `${userId}:${positionId}` → what was noted last. */
  const noted = new Map<string, { odds: number; at: number }>();
  return (sub, items, now) => {
    const marks = ledger.marks(sub.userId);
    if (marks.size === 0) return;
    for (const item of items) {
      const mark = marks.get(markKey(sub.service, item.id));
      if (!mark || mark.watchLeg === null || (mark.eventStart !== null && now >= mark.eventStart)) continue;
      const odds = item.masked ? undefined : legOdds(item)?.[0];
      if (odds === undefined || !(odds > 1)) continue;
      const key = `${sub.userId}:${mark.positionId}`;
      const last = noted.get(key);
      if (last && last.odds === odds && now - last.at < RENOTE_MS) continue;
      noted.set(key, { odds, at: now });
      ledger.noteClose(sub.userId, mark.positionId, mark.watchLeg, { odds, at: now, fairOdds: serviceFairOdds(item), market: null, index: 0 });
    }
    // Forget what no longer needs watching (settled, or the event started).
    if (noted.size > 10_000) for (const k of [...noted.keys()].slice(0, 5_000)) noted.delete(k);
  };
}
