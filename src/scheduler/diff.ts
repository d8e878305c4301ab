/**
 * The diff of one subscription: what this read means for the user's alerts. Pure — the time,
 * the stored entries and the items kept from earlier reads come in; events and the entry
 * changes to store come out. The stored entries (`AlertEntry`, persisted by the store) are what
 * makes a restart free of duplicates: an item with an entry is never alerted as new again.
 *
 * An entry records what the alert's message shows (odds, profit, whether it says "gone"), so a
 * move is measured against what the user saw, and a change held back by the edit rate limit is
 * carried by the next read.
 *
 * An item whose numbers could not be stored (not finite: the parsers keep such items out, but the
 * diff does not rely on it) costs only itself: it is left out of this read as if unseen, neither
 * alerted nor marked gone, and every other item goes on as usual.
 *
 * Most reads change nothing: the same items (the very same objects, as the client and the interner
 * hand them back) against the same entries. When a read changed nothing, the diff notes until when
 * the same input would go on changing nothing (the first edit the rate limit lets through, the
 * next `lastSeenAt` refresh, the next prune); a later read with the same items and the same entry
 * objects before then is answered at once with the same result (`steadyRead`). A test holds both
 * ways equal over random sequences of reads.
 */
import type { Opportunity } from '../service/opportunity.js';
import type { AlertEntry } from '../store/schema.js';
import { canLookUp, LOOKUP_MIN_INTERVAL_MS, messageToFind } from './message-lookup.js';

/** A leg's odds must change by at least this much to count as a move. */
export const ODDS_MOVE_MIN = 0.01;
/** The headline number (profit %, overvalue %) must change by at least this many points to count as a move. */
export const PROFIT_MOVE_MIN_PP = 0.05;
/** At most one edit per alert in this time. */
export const EDIT_MIN_INTERVAL_MS = 10_000;
/**
 * An item back within this time after it went revives its own alert (edited back, silently), better
 * profit or not: one message per arb (REVIVE_MINUTES, default 30; `DiffInput.reviveMs`).
 */
export const RETURN_WINDOW_MS = 30 * 60_000;
/** Gone entries are forgotten after this long. */
export const GONE_KEEP_MS = 60 * 60_000;
/** Most entries kept per subscription (and most items of one read considered, best first). */
export const MAX_ENTRIES_PER_SUBSCRIPTION = 1_000;
/** A present item's `lastSeenAt` is written back at most this often (keeps the store's writes few). */
export const SEEN_REFRESH_MS = 5 * 60_000;
/** A read further apart than this from the previous one cannot say when an item went: its last sighting is used. */
export const CONTINUOUS_READ_GAP_MS = 60_000;

/** The number an alert leads with: profit % for arbs and middles, overvalue % for valuebets. */
export function headline(item: Opportunity): number | null {
  return item.kind === 'valuebets' ? item.overvalue : item.profit;
}

export type DiffEvent =
  /** Alert it: a first sighting, or a return after the return window. */
  | { type: 'new'; itemId: string; item: Opportunity; entry: AlertEntry; returned: boolean }
  /** Edit the alert: `prev` is the item as the message shows it now. */
  | { type: 'moved'; itemId: string; item: Opportunity; prev: Opportunity; entry: AlertEntry }
  /** Edit a "gone" alert back to the live item (back within the return window); `awayMs`: how long it was gone. */
  | { type: 'returned'; itemId: string; item: Opportunity; entry: AlertEntry; awayMs: number }
  /** Mark the alert gone; `livedMs` from the alert to the last moment it was known to be there. */
  | { type: 'gone'; itemId: string; last: Opportunity; entry: AlertEntry; livedMs: number }
  /** Find the message of an alert with a move or its end to show whose send's call gave up (message-lookup.ts). */
  | { type: 'lookup'; itemId: string; entry: AlertEntry };

export interface DiffInput {
  now: number;
  /** Where a new alert goes (recorded in its entry; edits go where the alert went). */
  chatId: number;
  /** This read's items, after the user's filter. */
  items: readonly Opportunity[];
  /** The stored entries of this subscription. */
  entries: Iterable<readonly [string, AlertEntry]>;
  /** The last known form of items from earlier reads (the previous `known`); empty after a restart. */
  known?: ReadonlyMap<string, Opportunity>;
  /** When the previous successful read of this subscription was; undefined after a restart. */
  previousReadAt?: number;
  /** How long after it went an item (or the same arb under a new id) revives its alert; default RETURN_WINDOW_MS. */
  reviveMs?: number;
}

export interface DiffResult {
  events: DiffEvent[];
  /** Ids of items left out because their numbers cannot be stored (see `storable`). */
  unusable: string[];
  /** Entries to store (new or changed). */
  upserts: [string, AlertEntry][];
  /** Entries to remove (pruned). */
  deletes: string[];
  /** Pass as `known` next time: this read's items plus gone items whose alert still waits for its "gone" edit. */
  known: Map<string, Opportunity>;
}

const oddsOf = (item: Opportunity): (number | null)[] => item.legs.map((leg) => leg.odds);

/**
 * The same arb whatever its item id (the service gives an arb a new id when it finds it again): the
 * event and each leg's sub-event, market, line and bookmaker, in a fixed order.
 */
export function arbSignature(item: Opportunity): string {
  const legs = item.legs.map((l) => `${l.subEventId}/${l.typeId}/${l.line}/${l.bookmakerId ?? ''}`).sort();
  return `${item.service}|${item.event.id}|${legs.join(',')}`;
}

/** How long gone entries are kept: an hour, or the revive window when that is longer. */
export const goneKeepMs = (reviveMs: number = RETURN_WINDOW_MS): number => Math.max(GONE_KEEP_MS, reviveMs);

function freshEntry(item: Opportunity, chatId: number, now: number): AlertEntry {
  return {
    eventId: item.event.id,
    chatId,
    messageId: null,
    firstSeenAt: now,
    lastSeenAt: now,
    goneAt: null,
    profit: headline(item),
    odds: oddsOf(item),
    lastEditAt: now,
    goneShown: false,
    sig: arbSignature(item),
  };
}

function numberMoved(a: number | null, b: number | null, min: number): boolean {
  if (a === null || b === null) return a !== b;
  // The epsilon keeps 2.10 → 2.11 a move despite binary fractions.
  return Math.abs(a - b) >= min - 1e-9;
}

/** Whether the item differs from what its alert shows by at least the move thresholds. */
export function hasMoved(item: Opportunity, entry: AlertEntry): boolean {
  if (numberMoved(headline(item), entry.profit, PROFIT_MOVE_MIN_PP)) return true;
  if (item.legs.length !== entry.odds.length) return true;
  return item.legs.some((leg, i) => numberMoved(leg.odds, entry.odds[i] ?? null, ODDS_MOVE_MIN));
}

/** Whether the item's headline number beats the entry's by at least the move threshold. */
export function profitImproved(item: Opportunity, entry: AlertEntry): boolean {
  const now = headline(item);
  return now !== null && entry.profit !== null && now >= entry.profit + PROFIT_MOVE_MIN_PP - 1e-9;
}

/** The item as its alert shows it: the current item with the odds and headline the entry recorded. */
export function shownAs(item: Opportunity, entry: AlertEntry): Opportunity {
  const legs = item.legs.map((leg, i) => (i < entry.odds.length ? { ...leg, odds: entry.odds[i] ?? null } : leg));
  return item.kind === 'valuebets' ? { ...item, legs, overvalue: entry.profit } : { ...item, legs, profit: entry.profit };
}

const usableNumber = (n: number | null): boolean => n === null || Number.isFinite(n);

/** Whether an entry made from the item passes the store's schema: its headline and odds are finite or absent. */
export function storable(item: Opportunity): boolean {
  return usableNumber(headline(item)) && item.legs.every((leg) => usableNumber(leg.odds));
}

/** Best first, so that a cap on a huge read keeps the items worth alerting. */
function byHeadline(a: Opportunity, b: Opportunity): number {
  return (headline(b) ?? -Infinity) - (headline(a) ?? -Infinity);
}

/** What a read that changed nothing saw, kept with the `known` map it returned. */
interface Steady {
  items: readonly Opportunity[];
  entries: (readonly [string, AlertEntry])[];
  unusable: string[];
  /** The same input changes nothing before this time. */
  until: number;
}

/** Keyed by the `known` map a quiet read returned, which the next read of that subscription passes back. */
const steadyReads = new WeakMap<ReadonlyMap<string, Opportunity>, Steady>();

const sameElements = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether `entries` holds exactly `seen` (the same ids, in the same order, with the same entry objects). */
function sameEntries(entries: Iterable<readonly [string, AlertEntry]>, seen: readonly (readonly [string, AlertEntry])[]): boolean {
  let i = 0;
  for (const [id, entry] of entries) {
    const was = seen[i++];
    if (!was || was[0] !== id || was[1] !== entry) return false;
  }
  return i === seen.length;
}

/** The answer of a read that changes nothing, when this input is one a quiet read saw and it is still quiet. */
function steadyRead(input: DiffInput): DiffResult | undefined {
  const known = input.known;
  const steady = known && steadyReads.get(known);
  if (!known || !steady || input.now >= steady.until) return undefined;
  if (!sameElements(input.items, steady.items) || !sameEntries(input.entries, steady.entries)) return undefined;
  return { events: [], unusable: [...steady.unusable], upserts: [], deletes: [], known: known as Map<string, Opportunity> };
}

/**
 * Until when a read of the same items against the same entries changes nothing, after a read that
 * changed nothing (so every present item has an entry and every absent one is marked gone): the
 * earliest moment a rule that depends on the time alone would act. Any rule it cannot place ends it now.
 */
function quietUntil(now: number, present: ReadonlyMap<string, Opportunity>, entries: ReadonlyMap<string, AlertEntry>, known: ReadonlyMap<string, Opportunity>, unusable: ReadonlySet<string>, reviveMs: number): number {
  let until = Number.POSITIVE_INFINITY;
  const by = (at: number) => (until = Math.min(until, at));
  for (const [id, item] of present) {
    const entry = entries.get(id);
    if (!entry) return now;
    if (entry.goneAt !== null) {
      // Back while its "gone" edit waits for the rate limit: the edit, or the return window's end.
      by(entry.lastEditAt + EDIT_MIN_INTERVAL_MS);
      by(entry.goneAt + reviveMs);
      continue;
    }
    if (entry.withheld === true && entry.messageId === null && hasMoved(item, entry)) return now;
    if (entry.messageId !== null && hasMoved(item, entry)) by(entry.lastEditAt + EDIT_MIN_INTERVAL_MS);
    if (messageToFind(entry) && hasMoved(item, entry)) by(entry.lastEditAt + LOOKUP_MIN_INTERVAL_MS);
    by(entry.lastSeenAt + SEEN_REFRESH_MS);
  }
  for (const [id, entry] of entries) {
    if (present.has(id) || unusable.has(id)) continue;
    if (entry.goneAt === null) return now;
    by(entry.goneAt + goneKeepMs(reviveMs));
    if (entry.goneShown !== true && entry.messageId !== null && known.has(id)) by(entry.lastEditAt + EDIT_MIN_INTERVAL_MS);
    if (entry.goneShown !== true && messageToFind(entry) && known.has(id)) by(entry.lastEditAt + LOOKUP_MIN_INTERVAL_MS);
  }
  return until;
}

/**
 * An item first seen under an id with no entry takes over the entry of an absent item with its
 * signature (the same arb the service found again under a new id): its alert, gone or not, is then
 * that message, revived or edited like any return or move. Entries move in `entries` and `upserts`;
 * the old id goes to `deletes`.
 */
function adoptRenamed(present: ReadonlyMap<string, Opportunity>, entries: Map<string, AlertEntry>, unusable: ReadonlySet<string>, upserts: Map<string, AlertEntry>, deletes: string[]): void {
  let bySig: Map<string, string> | undefined;
  for (const [id, item] of present) {
    if (entries.has(id)) continue;
    if (!bySig) {
      bySig = new Map();
      for (const [oldId, e] of entries) if (e.sig !== undefined && !present.has(oldId) && !unusable.has(oldId)) bySig.set(e.sig, oldId);
    }
    if (bySig.size === 0) return;
    const sig = arbSignature(item);
    const oldId = bySig.get(sig);
    const old = oldId === undefined ? undefined : entries.get(oldId);
    if (oldId === undefined || !old) continue;
    bySig.delete(sig);
    entries.delete(oldId);
    entries.set(id, old);
    upserts.delete(oldId);
    upserts.set(id, old);
    deletes.push(oldId);
  }
}

/** Computes the events of one read and the entry changes that go with them. */
export function diffRead(input: DiffInput): DiffResult {
  return steadyRead(input) ?? diffReadInFull(input);
}

/** `diffRead` without the shortcut for a read that changes nothing (tests hold the two equal). */
export function diffReadInFull(input: DiffInput): DiffResult {
  const { now, chatId } = input;
  const reviveMs = input.reviveMs ?? RETURN_WINDOW_MS;
  const keepMs = goneKeepMs(reviveMs);
  const known = input.known ?? new Map<string, Opportunity>();
  const entries = new Map<string, AlertEntry>(Array.from(input.entries, ([id, e]) => [id, e]));
  const events: DiffEvent[] = [];
  const upserts = new Map<string, AlertEntry>();
  const nextKnown = new Map<string, Opportunity>();
  const canEdit = (entry: AlertEntry) => now - entry.lastEditAt >= EDIT_MIN_INTERVAL_MS;

  const present = new Map<string, Opportunity>();
  const unusable = new Set<string>();
  // The hot path (every item fine) makes no copy.
  const usable = input.items.every(storable)
    ? input.items
    : input.items.filter((item) => {
        if (storable(item)) return true;
        unusable.add(item.id);
        return false;
      });
  const items = usable.length > MAX_ENTRIES_PER_SUBSCRIPTION
    ? [...usable].sort(byHeadline).slice(0, MAX_ENTRIES_PER_SUBSCRIPTION)
    : usable;
  for (const item of items) if (!present.has(item.id)) present.set(item.id, item);
  const deletes: string[] = [];
  adoptRenamed(present, entries, unusable, upserts, deletes);
  for (const id of unusable) {
    if (present.has(id)) continue;
    // Unseen this time, not gone: its alert (if any) keeps what it shows, and its last good form is kept to draw it.
    const last = known.get(id);
    if (last) nextKnown.set(id, last);
  }

  for (const [id, item] of present) {
    nextKnown.set(id, item);
    const entry = entries.get(id);
    if (!entry) {
      const fresh = freshEntry(item, chatId, now);
      upserts.set(id, fresh);
      events.push({ type: 'new', itemId: id, item, entry: fresh, returned: false });
      continue;
    }

    if (entry.goneAt !== null) {
      if (now - entry.goneAt > reviveMs) {
        const fresh = freshEntry(item, chatId, now);
        upserts.set(id, fresh);
        events.push({ type: 'new', itemId: id, item, entry: fresh, returned: true });
        continue;
      }
      if (entry.messageId !== null && entry.goneShown === true) {
        // The message says "gone": put it back, but within the edit rate limit (a flapping item waits here).
        if (!canEdit(entry)) continue;
        const back: AlertEntry = { ...entry, goneAt: null, goneShown: false, profit: headline(item), odds: oddsOf(item), lastEditAt: now, lastSeenAt: now };
        upserts.set(id, back);
        events.push({ type: 'returned', itemId: id, item, entry: back, awayMs: Math.max(0, now - entry.goneAt) });
        continue;
      }
      // It went and came back before anyone was told: carry on as if it never left.
      const resumed: AlertEntry = { ...entry, goneAt: null, goneShown: false, lastSeenAt: now };
      entries.set(id, resumed);
      upserts.set(id, resumed);
    }

    const current = entries.get(id) ?? entry;
    if (current.withheld === true && current.messageId === null && hasMoved(item, current)) {
      // Not alerted when first seen (it did not pass for this user): moved, it is news to check again.
      const again: AlertEntry = { ...current, profit: headline(item), odds: oddsOf(item), lastSeenAt: now };
      upserts.set(id, again);
      events.push({ type: 'new', itemId: id, item, entry: again, returned: false });
      continue;
    }
    if (current.messageId !== null && hasMoved(item, current) && canEdit(current)) {
      const moved: AlertEntry = { ...current, profit: headline(item), odds: oddsOf(item), lastEditAt: now, lastSeenAt: now };
      upserts.set(id, moved);
      events.push({ type: 'moved', itemId: id, item, prev: shownAs(item, current), entry: moved });
    } else if (messageToFind(current) && hasMoved(item, current) && canLookUp(current, now)) {
      const asked: AlertEntry = { ...current, lastEditAt: now, lastSeenAt: now };
      upserts.set(id, asked);
      events.push({ type: 'lookup', itemId: id, entry: asked });
    } else if (now - current.lastSeenAt >= SEEN_REFRESH_MS) {
      upserts.set(id, { ...current, lastSeenAt: now });
    }
  }

  for (const [id, entry] of entries) {
    if (present.has(id) || unusable.has(id)) continue;
    let gone = entry;
    if (entry.goneAt === null) {
      const last = known.get(id);
      const continuous = last !== undefined && input.previousReadAt !== undefined && now - input.previousReadAt <= CONTINUOUS_READ_GAP_MS;
      // After a gap (rotation, backoff, restart) all we know is that it was there when last seen.
      const goneAt = continuous ? now : Math.max(entry.lastSeenAt, last !== undefined ? (input.previousReadAt ?? 0) : 0);
      gone = { ...entry, goneAt, goneShown: false };
      upserts.set(id, gone);
    }
    // Pruned only once it has had its chance to be shown gone (a long pause may end with a read here).
    if (entry.goneAt !== null && now - entry.goneAt > keepMs) {
      upserts.delete(id);
      deletes.push(id);
      continue;
    }
    if (gone.goneShown === true) continue;
    const last = known.get(id);
    // Without the item's last form (a restart) the message cannot be redrawn; it stays as it is.
    if (!last) continue;
    if (gone.messageId !== null && canEdit(gone)) {
      const shown: AlertEntry = { ...gone, goneShown: true, lastEditAt: now };
      upserts.set(id, shown);
      events.push({ type: 'gone', itemId: id, last, entry: shown, livedMs: Math.max(0, gone.goneAt! - gone.firstSeenAt) });
    } else {
      // Held by the rate limit, or its alert is still on its way: keep what to draw it with.
      nextKnown.set(id, last);
      const asked = messageToFind(gone) && canLookUp(gone, now) ? { ...gone, lastEditAt: now } : undefined;
      if (asked) upserts.set(id, asked);
      if (asked) events.push({ type: 'lookup', itemId: id, entry: asked });
    }
  }

  const kept = entries.size - deletes.length + Array.from(upserts.keys()).filter((id) => !entries.has(id)).length;
  if (kept > MAX_ENTRIES_PER_SUBSCRIPTION) {
    const goneOldestFirst = Array.from(entries)
      .map(([id, e]) => [id, upserts.get(id) ?? e] as const)
      .filter(([id, e]) => e.goneAt !== null && !deletes.includes(id))
      .sort((a, b) => a[1].goneAt! - b[1].goneAt!);
    for (const [id] of goneOldestFirst.slice(0, kept - MAX_ENTRIES_PER_SUBSCRIPTION)) {
      upserts.delete(id);
      nextKnown.delete(id);
      deletes.push(id);
    }
  }

  const result = { events, unusable: Array.from(unusable).filter((id) => !present.has(id)), upserts: Array.from(upserts), deletes, known: nextKnown };
  if (events.length === 0 && upserts.size === 0 && deletes.length === 0 && entries.size <= MAX_ENTRIES_PER_SUBSCRIPTION) {
    steadyReads.set(nextKnown, {
      items: [...input.items],
      entries: Array.from(input.entries),
      unusable: result.unusable,
      until: quietUntil(now, present, entries, nextKnown, unusable, reviveMs),
    });
  }
  return result;
}
