/**
 * Closing lines for the ledger's CLV, from the reads the scheduler makes anyway (no request of its
 * own): while a user has an unsettled position whose event has not started, each read of that
 * service that still offers the item records, for every leg the user placed from it (a valuebet's
 * one leg, an arb's or a middle's every leg), its odds then (and, for a valuebet, the service's
 * fair odds) as that leg's latest "closing" line, with the time it was read. The last one written
 * before the start, or before the item went away, is the close. Written only when the odds move,
 * or every RENOTE_MS to keep "last seen" fresh, so a quiet leg costs one map lookup per read.
 * Users without such a position cost one lookup per read. The scheduler is handed the recorder
 * (`SchedulerOptions.recordCloses`): it reads, this side knows what the alerts printed.
 */
import { markKey, type PlacedMark } from '../ledger/marks.js';
import type { RecordCloses } from '../scheduler/port.js';
import { legOdds } from './headline-figures.js';
import { serviceFairOdds } from './position-from-alert.js';
import type { LedgerStore } from '../store/port.js';

/** A selection seen at unchanged odds is noted again after this long (its "last seen" time). */
export const RENOTE_MS = 5 * 60_000;

/** The legs whose close is watched (a mark written before every leg was watched names only a valuebet's). */
const watched = (mark: PlacedMark): readonly number[] => mark.watchLegs ?? (mark.watchLeg === null ? [] : [mark.watchLeg]);

export function createCloseRecorder(ledger: Pick<LedgerStore, 'marks' | 'noteClose'>): RecordCloses {
  /** `${userId}:${positionId}:${leg}` → what was noted last. */
  const noted = new Map<string, { odds: number; at: number }>();
  return (sub, items, now) => {
    const marks = ledger.marks(sub.userId);
    if (marks.size === 0) return;
    for (const item of items) {
      const mark = marks.get(markKey(sub.service, item.id));
      if (!mark || (mark.eventStart !== null && now >= mark.eventStart)) continue;
      const legs = watched(mark);
      if (legs.length === 0) continue;
      const odds = item.masked ? undefined : legOdds(item);
      if (odds === undefined) continue;
      for (const leg of legs) {
        const o = odds[leg];
        if (o === undefined || !(o > 1)) continue;
        const key = `${sub.userId}:${mark.positionId}:${leg}`;
        const last = noted.get(key);
        if (last && last.odds === o && now - last.at < RENOTE_MS) continue;
        noted.set(key, { odds: o, at: now });
        // Only a valuebet's service gives a fair price; an arb's or middle's leg is measured against its own close.
        const fairOdds = mark.kind === 'valuebets' ? serviceFairOdds(item) : null;
        ledger.noteClose(sub.userId, mark.positionId, leg, { odds: o, at: now, fairOdds, market: null, index: 0 });
      }
    }
    // Forget what no longer needs watching (settled, or the event started).
    if (noted.size > 10_000) for (const k of [...noted.keys()].slice(0, 5_000)) noted.delete(k);
  };
}
