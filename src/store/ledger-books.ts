/**
 * The ledger's books in memory, shared by both stores: per user the settings, the positions (in
 * the order placed), the closing lines and the marks of unsettled positions (`src/ledger/marks.ts`).
 * A position is validated before it is held and frozen after, so what is held always writes and
 * loads again. The embedded store writes the books into its file from the JSON kept here (each
 * position's made once, each user's book again only after it changed); the Redis store uses this
 * as its cache and writes each change through.
 */
import { markKey, placedMark, type PlacedMark } from '../ledger/marks.js';
import {
  bookRecordSchema,
  closeKey,
  closeSchema,
  defaultLedgerSettings,
  ledgerSettingsSchema,
  positionSchema,
  type BookRecord,
  type Close,
  type LedgerSettings,
  type Position,
} from '../ledger/model.js';
import { LedgerIndex } from '../ledger/ledger-index.js';
import type { IndexedBook } from '../ledger/summary.js';
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';

interface Held {
  settings: LedgerSettings;
  positions: Map<string, Position>;
  /** Settled positions by day with each day's figures, the unsettled apart (`ledger-index.ts`). */
  index: LedgerIndex;
  /** `positions` as an array, made again after a change (a 20,000-position Map spread at every read cost ~1 ms). */
  ordered: Position[] | null;
  closes: Map<string, Close>;
  marks: Map<string, PlacedMark>;
}

function emptyHeld(settings: LedgerSettings, closes: Map<string, Close>): Held {
  const held: Held = { settings, positions: new Map(), closes, marks: new Map(), index: new LedgerIndex(() => held), ordered: null };
  return held;
}

const EMPTY_MARKS: ReadonlyMap<string, PlacedMark> = new Map();
const COMMA = Buffer.from(',');

/** A validated, frozen copy of `position`; StoreError 'invalid-position' when the schema refuses it. */
export function checkedPosition(position: Position): Position {
  const parsed = positionSchema.safeParse(position);
  if (!parsed.success) throw new StoreError('invalid-position', `a ledger position failed the schema (${describeIssues(parsed.error)}); nothing was changed`);
  const p = parsed.data;
  for (const leg of p.legs) Object.freeze(leg);
  Object.freeze(p.legs);
  return Object.freeze(p);
}

export class LedgerBooks {
  private readonly books = new Map<number, Held>();
  /** Each user's book as JSON (`"id":{…}`), dropped when it changes. */
  private readonly texts = new Map<number, Buffer[]>();
  private readonly positionTexts = new WeakMap<Position, Buffer>();

  /** Loads a user's stored book (already validated by the caller's schema), replacing what was held. */
  load(userId: number, record: BookRecord): void {
    const held = emptyHeld({ ...record.settings }, new Map(Object.entries(record.closes)));
    for (const p of record.positions) this.hold(userId, held, checkedPosition(p));
    this.books.set(userId, held);
    this.texts.delete(userId);
  }

  has(userId: number): boolean {
    return this.books.has(userId);
  }

  book(userId: number): IndexedBook {
    const held = this.books.get(userId);
    if (!held) return { settings: defaultLedgerSettings(), positions: [], closes: new Map() };
    held.ordered ??= [...held.positions.values()];
    return { settings: { ...held.settings }, positions: held.ordered.slice(), closes: new Map(held.closes), index: held.index };
  }

  position(userId: number, positionId: string): Position | undefined {
    return this.books.get(userId)?.positions.get(positionId);
  }

  settings(userId: number): LedgerSettings {
    return { ...(this.books.get(userId)?.settings ?? defaultLedgerSettings()) };
  }

  /** Unsettled positions with something placed or a hedge open, oldest first. */
  open(userId: number): Position[] {
    return this.books.get(userId)?.index.openPositions() ?? [];
  }

  put(userId: number, position: Position): Position {
    const p = checkedPosition(position);
    this.hold(userId, this.held(userId), p);
    this.texts.delete(userId);
    return p;
  }

  remove(userId: number, positionId: string): boolean {
    const held = this.books.get(userId);
    const p = held?.positions.get(positionId);
    if (!held || !p) return false;
    held.positions.delete(positionId);
    held.ordered = null;
    held.index.set(positionId, undefined);
    for (const key of [...held.closes.keys()]) if (key.startsWith(`${positionId}:`)) held.closes.delete(key);
    const key = markKey(p.service, p.itemId);
    if (held.marks.get(key)?.positionId === positionId) held.marks.delete(key);
    this.texts.delete(userId);
    return true;
  }

  updateSettings(userId: number, change: Partial<LedgerSettings>): LedgerSettings {
    const held = this.held(userId);
    const next = ledgerSettingsSchema.safeParse({ ...held.settings, ...change });
    if (!next.success) throw new StoreError('invalid-position', `ledger settings failed the schema (${describeIssues(next.error)}); nothing was changed`);
    held.settings = next.data;
    this.texts.delete(userId);
    return { ...next.data };
  }

  /** Stores a closing line; false when it failed the schema (the caller's read goes on). */
  noteClose(userId: number, positionId: string, leg: number, close: Close): boolean {
    const held = this.books.get(userId);
    if (!held?.positions.has(positionId)) return false;
    const parsed = closeSchema.safeParse(close);
    if (!parsed.success) return false;
    held.closes.set(closeKey(positionId, leg), parsed.data);
    held.index.closeChanged(positionId);
    this.texts.delete(userId);
    return true;
  }

  size(userId: number, positionId: string): { positions: number; has: boolean } {
    const held = this.books.get(userId);
    return { positions: held?.positions.size ?? 0, has: held?.positions.has(positionId) ?? false };
  }

  /** Removes positions (and their closing lines and marks); how many were held. */
  archive(userId: number, positionIds: readonly string[]): number {
    const held = this.books.get(userId);
    if (!held) return 0;
    let removed = 0;
    for (const id of positionIds) {
      const p = held.positions.get(id);
      if (!p) continue;
      held.positions.delete(id);
      held.ordered = null;
      held.index.set(id, undefined);
      removed += 1;
      p.legs.forEach((_, i) => held.closes.delete(closeKey(id, i)));
      const key = markKey(p.service, p.itemId);
      if (held.marks.get(key)?.positionId === id) held.marks.delete(key);
    }
    if (removed > 0) this.texts.delete(userId);
    return removed;
  }

  marks(userId: number): ReadonlyMap<string, PlacedMark> {
    return this.books.get(userId)?.marks ?? EMPTY_MARKS;
  }

  usersWithMarks(): number[] {
    return [...this.books].filter(([, held]) => held.marks.size > 0).map(([id]) => id);
  }

  delete(userId: number): boolean {
    this.texts.delete(userId);
    return this.books.delete(userId);
  }

  clear(): void {
    this.books.clear();
    this.texts.clear();
  }

  users(): number[] {
    return [...this.books.keys()];
  }

  /** Every book as the file's `ledger` section. */
  toRecords(): Record<string, BookRecord> {
    const out: Record<string, BookRecord> = {};
    for (const [id, held] of this.books) out[String(id)] = this.record(held);
    return out;
  }

  /**
   * The `ledger` section's inside (`"id":{…},…`) as JSON parts. A changed book is made again from
   * its positions' own buffers (each made once per frozen position), never joined into one string:
   * at 20,000 positions that join and copy of 8 MB stopped the loop on every write.
   */
  toJsonParts(): Buffer[] {
    const parts: Buffer[] = [];
    for (const [id, held] of this.books) {
      let text = this.texts.get(id);
      if (text === undefined) {
        text = [Buffer.from(`"${id}":{"settings":${JSON.stringify(held.settings)},"positions":[`)];
        let first = true;
        for (const p of held.positions.values()) {
          if (!first) text.push(COMMA);
          first = false;
          text.push(this.positionBytes(p));
        }
        text.push(Buffer.from(`],"closes":${JSON.stringify(Object.fromEntries(held.closes))}}`));
        this.texts.set(id, text);
      }
      if (parts.length > 0) parts.push(COMMA);
      for (const part of text) parts.push(part);
    }
    return parts;
  }

  /** One position's JSON, made once per (frozen) position. */
  positionJson(p: Position): string {
    return this.positionBytes(p).toString('utf8');
  }

  private positionBytes(p: Position): Buffer {
    let bytes = this.positionTexts.get(p);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(p));
      this.positionTexts.set(p, bytes);
    }
    return bytes;
  }

  private record(held: Held): BookRecord {
    return bookRecordSchema.parse({ settings: held.settings, positions: [...held.positions.values()].map((p) => structuredClone(p)), closes: Object.fromEntries(held.closes) });
  }

  private held(userId: number): Held {
    let held = this.books.get(userId);
    if (!held) {
      held = emptyHeld(defaultLedgerSettings(), new Map());
      this.books.set(userId, held);
    }
    return held;
  }

  private hold(_userId: number, held: Held, p: Position): void {
    held.positions.set(p.id, p);
    held.ordered = null;
    held.index.set(p.id, p);
    const key = markKey(p.service, p.itemId);
    const mark = placedMark(p);
    if (mark) held.marks.set(key, mark);
    else if (held.marks.get(key)?.positionId === p.id) held.marks.delete(key);
  }
}
