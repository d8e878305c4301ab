/**
 * The embedded store's prints (`src/ledger/prints.ts`): what each sent message printed, held in
 * memory by `${userId}:${id}` and appended to `DATA_DIR/prints.log` as it is put (`print-log.ts`).
 * A print is dropped once PRINT_TTL_MS have passed since it was last sent (on the store's clock): a
 * get after that finds nothing, and a sweep at most once a minute, on a put, removes the expired
 * ones, so the log's rewrites hold at most a week of messages.
 */
import type { Clock } from '../clock.js';
import { printExpired, printKey, printSchema, type AlertPrint } from '../ledger/prints.js';
import { PrintLog, readPrintLog, type PrintLogLine } from './print-log.js';
import type { Logger } from '../logger.js';
import type { PrintStore } from './port.js';

/** The sweep of expired prints runs at most this often. */
const SWEEP_EVERY_MS = 60_000;
/**
 * Versions kept per item and user: an alert edited on every move of a live arb prints again each
 * time, while only its latest buttons (and one pressed just before an edit) can still be pressed.
 */
export const PRINTS_PER_ITEM = 4;

export class HeldPrints implements PrintStore {
  private readonly held = new Map<string, AlertPrint>();
  /** The keys of each `${userId}:${service}:${itemId}`'s prints, oldest first. */
  private readonly versions = new Map<string, string[]>();
  private sweptAt = Number.NEGATIVE_INFINITY;
  /** Where puts are written; none until `open` (and for a store that only replays records). */
  private disk: PrintLog | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly guard: () => void,
  ) {}

  /**
   * Loads the log at `file` over the prints of db.json's section (`legacy`, from a file written before
   * the log), and writes every put there from now on. Lines of users `owned` no longer knows are left
   * out. `rewrite` is true when the log should be rewritten before db.json is (the section moves
   * into it; a removed user's lines leave it).
   */
  open(file: string, legacy: Readonly<Record<string, unknown>>, owned: (userId: number) => boolean, log: Logger): { prints: number; skipped: number; rewrite: boolean } {
    const read = readPrintLog(file);
    const section: PrintLogLine[] = Object.entries(legacy).map(([key, raw]) => [key, raw, 0]);
    const lines = section.concat(read.lines);
    const kept = lines.filter(([key]) => owned(Number(key.slice(0, key.indexOf(':')))));
    this.disk = new PrintLog(file, () => this.held.entries(), this.clock, log, read.bytes);
    const expired = this.load(kept);
    return { prints: this.held.size, skipped: read.skipped, rewrite: section.length > 0 || kept.length < lines.length || expired > 0 };
  }

  /** Replaces what is held with `records` (for `npm run migrate`), and the log's lines with them. */
  replace(records: Readonly<Record<string, unknown>>): void {
    this.load(Object.entries(records).map(([key, raw]) => [key, raw, 0]));
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

  /** The log's figures (tests, benchmarks). */
  logStats(): ReturnType<PrintLog['stats']> | undefined {
    return this.disk?.stats();
  }

  /**
   * Holds the valid, unexpired prints of `lines`, the newest send of each key, oldest first (so the
   * few versions an item keeps are its latest). A record that is not a line of the log (db.json's
   * section, a migration) comes with 0 bytes: its line is measured here, for the rewrite's threshold.
   */
  private load(lines: readonly PrintLogLine[]): number {
    this.held.clear();
    this.versions.clear();
    this.disk?.forgetAll();
    const now = this.clock.now();
    const newest = new Map<string, { print: AlertPrint; bytes: number }>();
    let expired = 0;
    for (const [key, raw, bytes] of lines) {
      const parsed = printSchema.safeParse(raw);
      if (parsed.success && printExpired(parsed.data, now)) expired += 1;
      if (!parsed.success || printExpired(parsed.data, now)) continue;
      const before = newest.get(key);
      if (!before || before.print.sentAt < parsed.data.sentAt) newest.set(key, { print: parsed.data, bytes });
    }
    const loaded = Array.from(newest).sort(([, a], [, b]) => a.print.sentAt - b.print.sentAt);
    for (const [key, { print, bytes }] of loaded) {
      this.hold(key, print);
      if (this.held.has(key)) this.disk?.loaded(key, bytes || Buffer.byteLength(`${JSON.stringify([key, print])}\n`));
    }
    return expired;
  }

  put(userId: number, print: AlertPrint): void {
    this.guard();
    const p = printSchema.parse(print);
    const key = printKey(userId, p.id);
    const before = this.held.get(key);
    // The same content sent again keeps it a week from now; an older send never shortens that.
    if (before && before.sentAt >= p.sentAt) return;
    this.hold(key, p);
    this.sweep();
    this.disk?.append(key, p);
  }

  async get(userId: number, id: string): Promise<AlertPrint | undefined> {
    const p = this.held.get(printKey(userId, id));
    return p && !printExpired(p, this.clock.now()) ? p : undefined;
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

  /** The prints as a Database's `prints` section (for `npm run migrate`). */
  toRecords(): Record<string, AlertPrint> {
    return Object.fromEntries(this.held);
  }

  private hold(key: string, p: AlertPrint): void {
    this.held.set(key, p);
    const item = `${key.slice(0, key.indexOf(':'))}:${p.service}:${p.itemId}`;
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
    for (const [key, p] of this.held) {
      if (printExpired(p, now)) expired = this.drop(key) || expired;
    }
    if (expired) this.disk?.expired();
    for (const [item, keys] of this.versions) {
      const left = keys.filter((k) => this.held.has(k));
      if (left.length === 0) this.versions.delete(item);
      else this.versions.set(item, left);
    }
  }

  private drop(key: string): boolean {
    this.disk?.forget(key);
    return this.held.delete(key);
  }
}
