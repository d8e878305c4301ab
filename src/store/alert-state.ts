/**
 * The diff's memory: per subscription (`${userId}:${service}`), what was alerted for each item.
 * Held in Maps (item ids come from the service, so they never become object keys here) and turned
 * into the file's JSON only when the store writes.
 *
 * Both stores hold their alert state here: the embedded one writes it all into its file, the Redis
 * one writes only what changed (`changed` names the subscription and the item, or null for the whole
 * subscription) and loads subscriptions one at a time (`loadSubscription`, `forgetSubscription`).
 *
 * Every read of every subscription may change entries, so this is on the scheduler's hot path:
 * an entry is checked by hand against the schema's rules (zod runs only to word a refusal), and
 * each subscription's JSON is kept between writes, made again only after that subscription changed.
 */
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';
import type { AlertStateStore } from './port.js';
import { alertEntrySchema, type AlertEntry } from './schema.js';

const copy = (entry: AlertEntry): AlertEntry => ({ ...entry, odds: [...entry.odds] });

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNullableNumber = (v: unknown): v is number | null => v === null || isNumber(v);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);

/**
 * A fresh entry holding exactly the schema's fields, when `entry` passes `alertEntrySchema`'s rules
 * (finite numbers, safe integers for ids); undefined otherwise (then zod says why). It accepts
 * nothing the schema refuses, so a file written from it always loads.
 */
export function checkedEntry(entry: AlertEntry): AlertEntry | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Partial<Record<keyof AlertEntry, unknown>>;
  if (typeof e.eventId !== 'string' || !isInt(e.chatId) || !(e.messageId === null || isInt(e.messageId))) return undefined;
  if (!isNumber(e.firstSeenAt) || !isNumber(e.lastSeenAt) || !isNullableNumber(e.goneAt) || !isNullableNumber(e.profit)) return undefined;
  if (!isNumber(e.lastEditAt) || !Array.isArray(e.odds) || !e.odds.every(isNullableNumber)) return undefined;
  if (e.goneShown !== undefined && typeof e.goneShown !== 'boolean') return undefined;
  if (e.withheld !== undefined && typeof e.withheld !== 'boolean') return undefined;
  if (e.loudBase !== undefined && !isNumber(e.loudBase)) return undefined;
  if (e.sig !== undefined && (typeof e.sig !== 'string' || e.sig.length > 4000)) return undefined;
  if (e.summary !== undefined && typeof e.summary !== 'boolean') return undefined;
  if (e.sentKey !== undefined && (typeof e.sentKey !== 'string' || e.sentKey.length === 0 || e.sentKey.length > 512)) return undefined;
  const fresh: AlertEntry = {
    eventId: e.eventId,
    chatId: e.chatId,
    messageId: e.messageId,
    firstSeenAt: e.firstSeenAt,
    lastSeenAt: e.lastSeenAt,
    goneAt: e.goneAt,
    profit: e.profit,
    odds: [...(e.odds as (number | null)[])],
    lastEditAt: e.lastEditAt,
  };
  if (e.goneShown !== undefined) fresh.goneShown = e.goneShown;
  if (e.withheld === true) fresh.withheld = true;
  if (e.loudBase !== undefined) fresh.loudBase = e.loudBase;
  if (e.sig !== undefined) fresh.sig = e.sig;
  if (e.summary === true) fresh.summary = true;
  if (e.sentKey !== undefined) fresh.sentKey = e.sentKey;
  return fresh;
}
const EMPTY: ReadonlyMap<string, AlertEntry> = new Map();
const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/** Which entry changed: `itemId` null when the whole subscription was removed. */
export type AlertChangeListener = (subKey: string, itemId: string | null) => void;

/** A message id reached an entry (Telegram answered its send): the entry as stored. */
export type AlertSentListener = (subKey: string, itemId: string, entry: Readonly<AlertEntry>) => void;

/** The in-memory alert state; `changed` is called after every change, `guard` before it, `sent` when an entry gets a new message id. */
export class AlertState implements AlertStateStore {
  private readonly subs = new Map<string, Map<string, AlertEntry>>();
  /** Each subscription's JSON (UTF-8, with its key) as last written; dropped when the subscription changes. */
  private readonly texts = new Map<string, Buffer>();
  private count = 0;

  constructor(
    private readonly changed: AlertChangeListener,
    private readonly guard: () => void = () => undefined,
    private readonly sent?: AlertSentListener,
  ) {}

  /** Fills the state from the file's records (already validated); no change is signalled. */
  load(records: Record<string, Record<string, AlertEntry>>): void {
    this.subs.clear();
    this.texts.clear();
    this.count = 0;
    for (const [subKey, items] of Object.entries(records)) {
      const map = new Map(Object.entries(items));
      if (map.size === 0) continue;
      this.subs.set(subKey, map);
      this.count += map.size;
    }
  }

  /** Replaces one subscription's entries (already validated) with `items`, or removes it when empty; no change is signalled. */
  loadSubscription(subKey: string, items: ReadonlyMap<string, AlertEntry>): void {
    this.forgetSubscription(subKey);
    if (items.size === 0) return;
    this.subs.set(subKey, new Map(items));
    this.count += items.size;
  }

  /** Puts one entry (already validated) in place; no change is signalled (the embedded store's replay of its sent-journal). */
  loadEntry(subKey: string, itemId: string, entry: AlertEntry): void {
    let items = this.subs.get(subKey);
    if (!items) {
      items = new Map();
      this.subs.set(subKey, items);
    }
    if (!items.has(itemId)) this.count += 1;
    items.set(itemId, entry);
    this.texts.delete(subKey);
  }

  /** Drops one subscription from memory; no change is signalled (its stored copy is someone else's business). */
  forgetSubscription(subKey: string): void {
    const items = this.subs.get(subKey);
    if (!items) return;
    this.count -= items.size;
    this.subs.delete(subKey);
    this.texts.delete(subKey);
  }

  /** The state as the file's plain records. Object.fromEntries defines own properties, so no id can reach a prototype. */
  toRecords(): Record<string, Record<string, AlertEntry>> {
    return Object.fromEntries(Array.from(this.subs, ([subKey, items]) => [subKey, Object.fromEntries(items)]));
  }

  /**
   * The state as UTF-8 JSON, the same data as `JSON.stringify(toRecords())`, in parts to be joined
   * with `Buffer.concat`: only subscriptions changed since the last call are serialized and encoded
   * again. Keys go through JSON.stringify too, so an item id such as `__proto__` is written as the
   * plain own key it is in toRecords().
   */
  toJsonParts(): Buffer[] {
    const parts: Buffer[] = [OPEN];
    for (const [subKey, items] of this.subs) {
      let part = this.texts.get(subKey);
      if (part === undefined) {
        const inner: string[] = [];
        for (const [itemId, entry] of items) inner.push(`${JSON.stringify(itemId)}:${JSON.stringify(entry)}`);
        part = Buffer.from(`${JSON.stringify(subKey)}:{${inner.join(',')}}`);
        this.texts.set(subKey, part);
      }
      if (parts.length > 1) parts.push(COMMA);
      parts.push(part);
    }
    parts.push(CLOSE);
    return parts;
  }

  get(subKey: string, itemId: string): AlertEntry | undefined {
    const entry = this.subs.get(subKey)?.get(itemId);
    return entry && copy(entry);
  }

  set(subKey: string, itemId: string, entry: AlertEntry): void {
    this.guard();
    // A fresh object either way, so the caller's entry is never aliased.
    let checked = checkedEntry(entry);
    if (!checked) {
      const parsed = alertEntrySchema.safeParse(entry);
      if (!parsed.success) {
        throw new StoreError('invalid-alert-entry', `alert entry ${subKey}/${itemId} fails the schema (${describeIssues(parsed.error)})`);
      }
      checked = parsed.data;
    }
    let items = this.subs.get(subKey);
    if (!items) {
      items = new Map();
      this.subs.set(subKey, items);
    }
    const before = items.get(itemId);
    if (!before) this.count += 1;
    items.set(itemId, checked);
    this.texts.delete(subKey);
    this.changed(subKey, itemId);
    if (this.sent && checked.messageId !== null && checked.messageId !== before?.messageId) this.sent(subKey, itemId, checked);
  }

  delete(subKey: string, itemId: string): void {
    this.guard();
    const items = this.subs.get(subKey);
    if (!items?.delete(itemId)) return;
    this.count -= 1;
    this.texts.delete(subKey);
    if (items.size === 0) this.subs.delete(subKey);
    this.changed(subKey, itemId);
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
    this.texts.delete(subKey);
    this.changed(subKey, null);
  }

  deleteUser(userId: number): void {
    this.guard();
    // The colon keeps user 12 from matching the subscriptions of user 123.
    const prefix = `${userId}:`;
    for (const [subKey, items] of this.subs) {
      if (!subKey.startsWith(prefix)) continue;
      this.count -= items.size;
      this.subs.delete(subKey);
      this.texts.delete(subKey);
      this.changed(subKey, null);
    }
  }

  prune({ goneBefore, seenBefore }: { goneBefore: number; seenBefore: number }): number {
    this.guard();
    let removed = 0;
    for (const [subKey, items] of this.subs) {
      for (const [itemId, entry] of items) {
        const gone = entry.goneAt !== null && entry.goneAt < goneBefore;
        if (gone || entry.lastSeenAt < seenBefore) {
          items.delete(itemId);
          this.texts.delete(subKey);
          removed += 1;
          this.changed(subKey, itemId);
        }
      }
      if (items.size === 0) {
        this.subs.delete(subKey);
        this.texts.delete(subKey);
      }
    }
    this.count -= removed;
    return removed;
  }

  size(): number {
    return this.count;
  }
}
