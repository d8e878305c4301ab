/**
 * One object per distinct item version across all subscriptions. Users of the same service see
 * largely the same items, and the scheduler keeps each subscription's last read (for "gone"
 * edits and lookups): without sharing, thousands of subscriptions would each hold their own copy
 * of the same opportunity. Entries are weak, so an item no subscription holds is collected.
 */
import type { Opportunity } from '../service/opportunity.js';

/** Everything an alert or a card shows of an item: equal fingerprints render the same. */
function fingerprint(item: Opportunity): string {
  const e = item.event;
  const legs = item.legs
    .map((l) => `${l.subEventId}\u0001${l.bookmakerId}\u0001${l.typeId}\u0001${l.line}\u0001${l.odds}\u0001${l.prevOdds}\u0001${l.updatedAt}\u0001${l.initiator}`)
    .join('\u0002');
  return [
    item.service,
    item.id,
    item.profit,
    item.middleProfit,
    item.overvalue,
    item.probability,
    item.createdAt,
    item.masked,
    e.id,
    e.sportId,
    e.league,
    e.team1,
    e.team2,
    e.startsAt,
    e.live,
    legs,
  ].join('\u0003');
}

export class ItemInterner {
  private readonly items = new Map<string, WeakRef<Opportunity>>();
  /**
   * Objects already answered: the client hands back the same object for an unchanged item read
   * after read, and building its fingerprint again would cost more than everything else here.
   * Opportunities are never mutated, so an object's answer stays right while it lives.
   */
  private readonly answered = new WeakMap<Opportunity, Opportunity>();
  private readonly registry = new FinalizationRegistry<string>((key) => {
    // Only if the entry still points at a collected object (a newer one may have taken the key).
    if (this.items.get(key)?.deref() === undefined) this.items.delete(key);
  });

  /** The shared object equal to `item` (the first one seen), or `item` itself when it is new. */
  intern(item: Opportunity): Opportunity {
    const answered = this.answered.get(item);
    if (answered) return answered;
    const key = fingerprint(item);
    const known = this.items.get(key)?.deref();
    if (known) {
      this.answered.set(item, known);
      return known;
    }
    this.items.set(key, new WeakRef(item));
    this.registry.register(item, key);
    this.answered.set(item, item);
    return item;
  }

  /** Distinct item versions held (tests, metrics). */
  get size(): number {
    return this.items.size;
  }
}
