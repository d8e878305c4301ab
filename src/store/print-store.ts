/**
 * The embedded store's prints (`src/ledger/prints.ts`): what each sent message printed, held in
 * memory by `${userId}:${id}` and written into db.json's `prints` section with the rest. A print
 * is dropped once PRINT_TTL_MS have passed since it was last sent (on the store's clock): a get
 * after that finds nothing, and a sweep at most once a minute, on a put, removes the expired ones,
 * so the section holds at most a week of messages.
 */
import type { Clock } from '../clock.js';
import { printExpired, printKey, printSchema, type AlertPrint } from '../ledger/prints.js';
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
  private readonly texts = new WeakMap<AlertPrint, string>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    /** Called after a change, to schedule the file's write. */
    private readonly changed: () => void,
    private readonly guard: () => void,
  ) {}

  /** Replaces what is held with the file's section; prints that fail the schema or are expired are left out. */
  load(records: Readonly<Record<string, unknown>>): void {
    this.held.clear();
    this.versions.clear();
    const now = this.clock.now();
    const loaded: [string, AlertPrint][] = [];
    for (const [key, raw] of Object.entries(records)) {
      const parsed = printSchema.safeParse(raw);
      if (parsed.success && !printExpired(parsed.data, now)) loaded.push([key, parsed.data]);
    }
    loaded.sort(([, a], [, b]) => a.sentAt - b.sentAt);
    for (const [key, p] of loaded) this.hold(key, p);
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
    this.changed();
  }

  async get(userId: number, id: string): Promise<AlertPrint | undefined> {
    const p = this.held.get(printKey(userId, id));
    return p && !printExpired(p, this.clock.now()) ? p : undefined;
  }

  deleteUser(userId: number): void {
    const prefix = `${userId}:`;
    let removed = false;
    for (const key of this.held.keys()) {
      if (key.startsWith(prefix)) removed = this.held.delete(key) || removed;
    }
    for (const key of this.versions.keys()) if (key.startsWith(prefix)) this.versions.delete(key);
    if (removed) this.changed();
  }

  /** How many are held (expired ones not yet swept included). */
  size(): number {
    return this.held.size;
  }

  /** The file's `prints` section. */
  toRecords(): Record<string, AlertPrint> {
    return Object.fromEntries(this.held);
  }

  /** The section's JSON (`{"key":{…},…}`), each print's made once. */
  toJson(): string {
    const parts: string[] = [];
    for (const [key, p] of this.held) {
      let text = this.texts.get(p);
      if (text === undefined) {
        text = JSON.stringify(p);
        this.texts.set(p, text);
      }
      parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }

  private hold(key: string, p: AlertPrint): void {
    this.held.set(key, p);
    const item = `${key.slice(0, key.indexOf(':'))}:${p.service}:${p.itemId}`;
    const keys = (this.versions.get(item) ?? []).filter((k) => k !== key);
    keys.push(key);
    while (keys.length > PRINTS_PER_ITEM) this.held.delete(keys.shift()!);
    this.versions.set(item, keys);
  }

  private sweep(): void {
    const now = this.clock.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [key, p] of this.held) if (printExpired(p, now)) this.held.delete(key);
    for (const [item, keys] of this.versions) {
      const left = keys.filter((k) => this.held.has(k));
      if (left.length === 0) this.versions.delete(item);
      else this.versions.set(item, left);
    }
  }
}
