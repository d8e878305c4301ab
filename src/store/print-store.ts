/**
 * The embedded store's prints (`src/ledger/prints.ts`): what each sent message printed, by
 * `${userId}:${id}`. Each put is a line of `DATA_DIR/prints.log` (`print-log.ts`); memory holds only
 * where it is, when it was sent and which versions an item has, and a get reads the line back and
 * checks it (the file is input like any other). A print is dropped once PRINT_TTL_MS have passed
 * since it was last sent (on the store's clock): a get after that finds nothing, and a sweep at most
 * once a minute, on a put, removes the expired ones.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { printExpired, printKey, printSchema, type AlertPrint } from '../ledger/prints.js';
import { PrintLog, scanPrintLog, type Slot } from './print-log.js';
import type { PrintStore } from './port.js';

/** The sweep of expired prints runs at most this often. */
const SWEEP_EVERY_MS = 60_000;
/**
 * Versions kept per item and user: an alert edited on every move of a live arb prints again each
 * time, while only its latest buttons (and one pressed just before an edit) can still be pressed.
 */
export const PRINTS_PER_ITEM = 4;

/** A held print: its line in the log, its send time, and the print itself only while its line could not be written. */
interface Held extends Slot {
  sentAt: number;
  print?: AlertPrint;
}

/** What opening found in the log. */
export interface OpenedPrints {
  prints: number;
  /** Lines that are not a print's line (a torn last line); the rest of a line is checked when it is read back. */
  skipped: number;
  /** The log should be rewritten before db.json is written: its section moved in, or lines of removed users, expired or torn are to leave it. */
  rewrite: boolean;
}

const itemOf = (key: string, service: string, itemId: string): string => `${key.slice(0, key.indexOf(':'))}:${service}:${itemId}`;
const userOf = (key: string): number => Number(key.slice(0, key.indexOf(':')));

export class HeldPrints implements PrintStore {
  private readonly held = new Map<string, Held>();
  /** The keys of each `${userId}:${service}:${itemId}`'s prints, oldest first. */
  private readonly versions = new Map<string, string[]>();
  private sweptAt = Number.NEGATIVE_INFINITY;
  /** Where puts are written; none until `open` (a put before it is held in memory). */
  private disk: PrintLog | undefined;
  private warnedBadLine = false;
  /** The log's view of what is held. A field, not a closure made in `open`: that one would share open's scope and keep its scan alive. */
  private readonly slots = (): Iterable<Slot> => this.held.values();

  constructor(
    private readonly clock: Clock,
    private readonly guard: () => void,
    private readonly log: Logger,
  ) {}

  /**
   * Loads the log at `file`, then the prints of db.json's section (`legacy`, from a file written
   * before the log) as puts, and writes every put there from now on. Lines of users `owned` no
   * longer knows are left out.
   */
  open(file: string, legacy: Readonly<Record<string, unknown>>, owned: (userId: number) => boolean): OpenedPrints {
    const now = this.clock.now();
    const found = new Map<string, { slot: Held; item: string }>();
    let skipped = 0;
    let leaving = 0;
    const size = scanPrintLog(file, (text, at, bytes) => {
      const line = headOf(text);
      if (!line) return void (skipped += 1);
      if (!owned(userOf(line.key)) || printExpired(line, now)) return void (leaving += 1);
      const before = found.get(line.key);
      if (before && before.slot.sentAt >= line.sentAt) return;
      found.set(line.key, { slot: { at, bytes, sentAt: line.sentAt }, item: itemOf(line.key, line.service, line.itemId) });
    });
    this.disk = new PrintLog(file, this.slots, this.clock, this.log, size);
    this.held.clear();
    this.versions.clear();
    for (const [key, { slot, item }] of Array.from(found).sort(([, a], [, b]) => a.slot.sentAt - b.slot.sentAt)) this.hold(key, slot, item);
    this.ingest(Object.entries(legacy).filter(([key]) => owned(userOf(key))));
    return { prints: this.held.size, skipped, rewrite: leaving > 0 || skipped > 0 || Object.keys(legacy).length > 0 };
  }

  /** Replaces what is held with `records` (for `npm run migrate`), and the log's lines with them. */
  replace(records: Readonly<Record<string, unknown>>): void {
    this.held.clear();
    this.versions.clear();
    this.disk?.forgetAll();
    this.ingest(Object.entries(records));
    this.disk?.rewriteSoon();
  }

  /** Resolves once the log's rewrite (if any) is on disk. */
  settled(): Promise<void> {
    return this.disk?.settled() ?? Promise.resolve();
  }

  /** Starts a rewrite of the log and waits for it (opening, before db.json drops what moved into the log). */
  rewriteNow(): Promise<void> {
    this.disk?.rewriteSoon();
    return this.settled();
  }

  close(): Promise<void> {
    return this.disk?.close() ?? Promise.resolve();
  }

  put(userId: number, print: AlertPrint): void {
    this.guard();
    const p = printSchema.parse(print);
    const key = printKey(userId, p.id);
    const before = this.held.get(key);
    // The same content sent again keeps it a week from now; an older send never shortens that.
    if (before && before.sentAt >= p.sentAt) return;
    this.keep(key, p);
    this.sweep();
    this.disk?.grew();
  }

  async get(userId: number, id: string): Promise<AlertPrint | undefined> {
    const key = printKey(userId, id);
    const slot = this.held.get(key);
    if (!slot || printExpired(slot, this.clock.now())) return undefined;
    return slot.print ?? this.readBack(key, slot);
  }

  deleteUser(userId: number): void {
    const prefix = `${userId}:`;
    let removed = false;
    for (const key of this.held.keys()) {
      if (key.startsWith(prefix)) removed = this.drop(key) || removed;
    }
    for (const key of this.versions.keys()) if (key.startsWith(prefix)) this.versions.delete(key);
    // Their prints leave the disk too, not at the log's next rewrite.
    if (removed) this.disk?.rewriteSoon();
  }

  /** How many are held (expired ones not yet swept included). */
  size(): number {
    return this.held.size;
  }

  /** The prints as a Database's `prints` section (for `npm run migrate`), read back from the log. */
  toRecords(): Record<string, AlertPrint> {
    const records: [string, AlertPrint][] = [];
    for (const [key, slot] of this.held) {
      const print = slot.print ?? this.readBack(key, slot);
      if (print) records.push([key, print]);
    }
    // fromEntries defines own properties, so no key can reach a prototype.
    return Object.fromEntries(records);
  }

  /** Holds `p` under `key` and writes its line (kept in memory instead when the write fails). */
  private keep(key: string, p: AlertPrint): void {
    const slot: Held = { at: -1, bytes: 0, sentAt: p.sentAt };
    if (!this.disk?.append(Buffer.from(`${JSON.stringify([key, p])}\n`), slot)) slot.print = p;
    this.hold(key, slot, itemOf(key, p.service, p.itemId));
  }

  /** Keeps the valid records newer than what is held (oldest send first, so an item keeps its latest versions). */
  private ingest(records: readonly [string, unknown][]): void {
    const now = this.clock.now();
    const valid: [string, AlertPrint][] = [];
    for (const [key, raw] of records) {
      const parsed = printSchema.safeParse(raw);
      if (!parsed.success || printExpired(parsed.data, now)) continue;
      const before = this.held.get(key);
      if (!before || before.sentAt < parsed.data.sentAt) valid.push([key, parsed.data]);
    }
    valid.sort(([, a], [, b]) => a.sentAt - b.sentAt);
    for (const [key, p] of valid) this.keep(key, p);
  }

  /** The print of `key` from its line, checked; undefined (with one warning) when the line is not what was written. */
  private readBack(key: string, slot: Held): AlertPrint | undefined {
    const buf = this.disk?.read(slot);
    const line = buf && parseLine(buf.toString('utf8'));
    const parsed = line && line[0] === key ? printSchema.safeParse(line[1]) : undefined;
    if (parsed?.success) return parsed.data;
    if (!this.warnedBadLine) {
      this.warnedBadLine = true;
      this.log.warn({ key }, 'a line of prints.log is not the print it should hold (the file was changed outside the bot?): that message can no longer record a bet');
    }
    return undefined;
  }

  private hold(key: string, slot: Held, item: string): void {
    const before = this.held.get(key);
    if (before) this.disk?.removed(before);
    this.held.set(key, slot);
    this.disk?.added(slot);
    const keys = (this.versions.get(item) ?? []).filter((k) => k !== key);
    keys.push(key);
    while (keys.length > PRINTS_PER_ITEM) this.drop(keys.shift()!);
    this.versions.set(item, keys);
  }

  private sweep(): void {
    const now = this.clock.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    let expired = false;
    for (const [key, slot] of this.held) {
      if (printExpired(slot, now)) expired = this.drop(key) || expired;
    }
    for (const [item, keys] of this.versions) {
      const left = keys.filter((k) => this.held.has(k));
      if (left.length === 0) this.versions.delete(item);
      else this.versions.set(item, left);
    }
    if (expired) this.disk?.expired();
  }

  private drop(key: string): boolean {
    const slot = this.held.get(key);
    if (!slot) return false;
    this.disk?.removed(slot);
    return this.held.delete(key);
  }
}

function parseLine(text: string): [string, unknown] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' ? [raw[0], raw[1]] : undefined;
}

/** What the index needs of a line (the rest is checked when the print is read back), or undefined for a line that is not one. */
function headOf(text: string): { key: string; sentAt: number; service: string; itemId: string } | undefined {
  const line = parseLine(text);
  if (!line) return undefined;
  const p = line[1] as { sentAt?: unknown; service?: unknown; itemId?: unknown } | null;
  if (typeof p !== 'object' || p === null) return undefined;
  const { sentAt, service, itemId } = p;
  if (typeof sentAt !== 'number' || typeof service !== 'string' || typeof itemId !== 'string') return undefined;
  return { key: line[0], sentAt, service, itemId };
}
