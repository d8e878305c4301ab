/**
 * The diff's memory: per subscription (`${userId}:${service}`), what was alerted for each item.
 * Held in Maps (item ids come from the service, so they never become object keys here) and turned
 * into the file's plain records only when the store writes.
 */
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';
import { alertEntrySchema, type AlertEntry } from './schema.js';

/** Alert state by subscription key and item id. Changes are persisted by the store's debounced write. */
export interface AlertStateStore {
  /** A copy of the entry; changing it changes nothing until `set`. */
  get(subKey: string, itemId: string): AlertEntry | undefined;
  /** Stores a copy of `entry` and schedules a debounced write. Throws StoreError 'invalid-alert-entry' for an entry
   *  that fails the schema (NaN, a missing field): written, it would make the next load move the whole file aside. */
  set(subKey: string, itemId: string, entry: AlertEntry): void;
  delete(subKey: string, itemId: string): void;
  /** Copies of the subscription's entries, in insertion order. */
  entries(subKey: string): [itemId: string, entry: AlertEntry][];
  /**
   * The subscription's entries without copies, for the scheduler's hot path. Entries are only
   * ever replaced by `set`, never changed in place, so a view stays consistent; do not mutate it.
   */
  view(subKey: string): ReadonlyMap<string, Readonly<AlertEntry>>;
  deleteSubscription(subKey: string): void;
  /** Every `${userId}:*` subscription. */
  deleteUser(userId: number): void;
  /** Removes entries gone before `goneBefore` and entries last seen before `seenBefore`; returns how many. */
  prune(opts: { goneBefore: number; seenBefore: number }): number;
  /** Entries in all subscriptions. */
  size(): number;
}

const copy = (entry: AlertEntry): AlertEntry => ({ ...entry, odds: [...entry.odds] });
const EMPTY: ReadonlyMap<string, AlertEntry> = new Map();

/** The in-memory alert state; `changed` is called after every change, `guard` before it. */
export class AlertState implements AlertStateStore {
  private readonly subs = new Map<string, Map<string, AlertEntry>>();
  private count = 0;

  constructor(
    private readonly changed: () => void,
    private readonly guard: () => void = () => undefined,
  ) {}

  /** Fills the state from the file's records (already validated); no change is signalled. */
  load(records: Record<string, Record<string, AlertEntry>>): void {
    this.subs.clear();
    this.count = 0;
    for (const [subKey, items] of Object.entries(records)) {
      const map = new Map(Object.entries(items));
      if (map.size === 0) continue;
      this.subs.set(subKey, map);
      this.count += map.size;
    }
  }

  /** The state as the file's plain records. Object.fromEntries defines own properties, so no id can reach a prototype. */
  toRecords(): Record<string, Record<string, AlertEntry>> {
    return Object.fromEntries(Array.from(this.subs, ([subKey, items]) => [subKey, Object.fromEntries(items)]));
  }

  get(subKey: string, itemId: string): AlertEntry | undefined {
    const entry = this.subs.get(subKey)?.get(itemId);
    return entry && copy(entry);
  }

  set(subKey: string, itemId: string, entry: AlertEntry): void {
    this.guard();
    // zod returns a fresh object, so the caller's entry is never aliased.
    const parsed = alertEntrySchema.safeParse(entry);
    if (!parsed.success) {
      throw new StoreError('invalid-alert-entry', `alert entry ${subKey}/${itemId} fails the schema (${describeIssues(parsed.error)})`);
    }
    let items = this.subs.get(subKey);
    if (!items) {
      items = new Map();
      this.subs.set(subKey, items);
    }
    if (!items.has(itemId)) this.count += 1;
    items.set(itemId, parsed.data);
    this.changed();
  }

  delete(subKey: string, itemId: string): void {
    this.guard();
    const items = this.subs.get(subKey);
    if (!items?.delete(itemId)) return;
    this.count -= 1;
    if (items.size === 0) this.subs.delete(subKey);
    this.changed();
  }

  entries(subKey: string): [itemId: string, entry: AlertEntry][] {
    const items = this.subs.get(subKey);
    if (!items) return [];
    return Array.from(items, ([itemId, entry]): [string, AlertEntry] => [itemId, copy(entry)]);
  }

  view(subKey: string): ReadonlyMap<string, Readonly<AlertEntry>> {
    return this.subs.get(subKey) ?? EMPTY;
  }

  deleteSubscription(subKey: string): void {
    this.guard();
    const items = this.subs.get(subKey);
    if (!items) return;
    this.count -= items.size;
    this.subs.delete(subKey);
    this.changed();
  }

  deleteUser(userId: number): void {
    this.guard();
    // The colon keeps user 12 from matching the subscriptions of user 123.
    const prefix = `${userId}:`;
    let removed = false;
    for (const [subKey, items] of this.subs) {
      if (!subKey.startsWith(prefix)) continue;
      this.count -= items.size;
      this.subs.delete(subKey);
      removed = true;
    }
    if (removed) this.changed();
  }

  prune({ goneBefore, seenBefore }: { goneBefore: number; seenBefore: number }): number {
    this.guard();
    let removed = 0;
    for (const [subKey, items] of this.subs) {
      for (const [itemId, entry] of items) {
        const gone = entry.goneAt !== null && entry.goneAt < goneBefore;
        if (gone || entry.lastSeenAt < seenBefore) {
          items.delete(itemId);
          removed += 1;
        }
      }
      if (items.size === 0) this.subs.delete(subKey);
    }
    this.count -= removed;
    if (removed > 0) this.changed();
    return removed;
  }

  size(): number {
    return this.count;
  }
}
