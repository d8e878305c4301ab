/**
 * Each user's ledger as this process last read it from Redis, kept parsed and brought up to date by
 * what changed since, not read again whole: a book of 20,000 positions (8 MB) took ~250 ms to read
 * and the Mini App and /pnl asked for it on every call.
 *
 * Every write of a book (any process) runs `BUMP` in its MULTI or script: the book's `v` goes up by
 * one and each field it wrote or removed is logged in `{p}ledger-log:{id}` (a sorted set, field →
 * the version that last wrote it, the last LOG_KEEP versions kept). A read asks, in one script,
 * for the version and the fields written since the one held, and reads only those. The book's `e`
 * (a random epoch set by the first write of a book) tells a book deleted and written again from the
 * one held; a book with no epoch (never written by this build), a different one, or too far ahead
 * is read whole again.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { closeSchema, defaultLedgerSettings, ledgerSettingsSchema, type Close, type LedgerSettings, type Position } from '../ledger/model.js';
import type { IndexedBook } from '../ledger/summary.js';
import { LedgerIndex } from '../ledger/ledger-index.js';
import { checkedPosition } from './ledger-books.js';

/** Versions whose changed fields the log keeps: a reader further behind reads the book whole. */
export const LOG_KEEP = 1_000;

/**
 * Lua: `bump(book, log, epoch, fields)` for the scripts that write a book; returns the new version.
 * A book without an epoch (new, or deleted) takes `epoch` and starts a new log.
 */
export const BUMP_FN = `
local function bump(book, log, epoch, fields, from)
  if redis.call('HSETNX', book, 'e', epoch) == 1 then redis.call('DEL', log) end
  local v = redis.call('HINCRBY', book, 'v', 1)
  for i = from, #fields do redis.call('ZADD', log, v, fields[i]) end
  redis.call('ZREMRANGEBYSCORE', log, '-inf', v - ${LOG_KEEP})
  return v
end
`;

/** KEYS book, log; ARGV epoch, then the fields written or removed. */
export const BUMP = `${BUMP_FN}\nreturn bump(KEYS[1], KEYS[2], ARGV[1], ARGV, 2)`;

/**
 * KEYS book, log; ARGV the epoch and version held. Returns {epoch, version, 0} when the book must be
 * read whole, else {epoch, version, 1, field, value-or-false, …} for each field changed since.
 */
const CATCH_UP = `
local ev = redis.call('HMGET', KEYS[1], 'e', 'v')
local e = ev[1] or ''
local v = tonumber(ev[2] or '0')
local have = tonumber(ARGV[2])
if e == '' or e ~= ARGV[1] or v < have or v - have > ${LOG_KEEP} then return {e, v, 0} end
local out = {e, v, 1}
if v == have then return out end
for _, f in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. have, '+inf')) do
  out[#out + 1] = f
  out[#out + 1] = redis.call('HGET', KEYS[1], f) or false
end
return out`;

/** A fresh epoch for a book's first write. */
export const newEpoch = (): string => randomBytes(6).toString('base64url');

/**
 * Positions and closing lines this process holds over all the books it read (about 30 MB parsed):
 * past it the books read longest ago are let go (read whole again if asked for). Without a bound a
 * long-lived front held every book any user ever opened.
 */
export const BOOKS_HELD_ENTRIES = 60_000;

/** Fields of a book asked for per HSCAN call. */
const SCAN_COUNT = 250;

const byPlaced = (a: Position, b: Position): number => a.placedAt - b.placedAt || parseInt(a.id, 36) - parseInt(b.id, 36);

/** One user's book as read: positions (frozen) by id, closing lines, settings, and the unsettled ones apart. */
export class HeldBook {
  epoch = '';
  version = 0;
  skipped = 0;
  private settingsRead: unknown = undefined;
  private next = 0;
  private parsedSettings: LedgerSettings = defaultLedgerSettings();
  private readonly positions = new Map<string, Position>();
  private closes = new Map<string, Close>();
  private readonly index = new LedgerIndex(() => ({ closes: this.closes, settings: this.parsedSettings }));
  /** Handed out by `book()` since it last changed: copied before the next change. */
  private closesLent = false;
  /** The positions in the order placed, and each one's place (null: sort again when asked). */
  private sorted: Position[] | null = [];
  private readonly place = new Map<string, number>();

  /** Positions and closing lines held: what the cache's bound counts. */
  get entries(): number {
    return this.positions.size + this.closes.size;
  }

  /** One field as stored (null: removed). */
  set(field: string, text: string | null): void {
    try {
      if (field === 's') {
        this.settingsRead = text === null ? undefined : JSON.parse(text);
        this.parseSettings();
      } else if (field === 'n') {
        this.next = text === null ? 0 : Number(text);
        this.parseSettings();
      } else if (field.startsWith('p:')) this.setPosition(field.slice(2), text === null ? undefined : checkedPosition(JSON.parse(text) as Position));
      else if (field.startsWith('c:')) this.setClose(field.slice(2), text);
    } catch {
      if (field.startsWith('p:')) this.setPosition(field.slice(2), undefined);
      this.skipped += 1;
    }
  }

  settings(): LedgerSettings {
    return { ...this.parsedSettings };
  }

  private parseSettings(): void {
    const parsed = ledgerSettingsSchema.safeParse(this.settingsRead ?? {});
    const settings = parsed.success ? parsed.data : defaultLedgerSettings();
    if (Number.isSafeInteger(this.next) && this.next + 1 > settings.nextId) settings.nextId = this.next + 1;
    this.parsedSettings = settings;
  }

  position(id: string): Position | undefined {
    return this.positions.get(id);
  }

  /** The book (positions in the order placed); its parts are not changed by later reads. */
  book(): IndexedBook {
    this.closesLent = true;
    return { settings: this.settings(), positions: this.inOrder().slice(), closes: this.closes, index: this.index };
  }

  /** Unsettled positions with something placed or a hedge open, oldest first. */
  open(): Position[] {
    return this.index.openPositions();
  }

  private inOrder(): Position[] {
    if (this.sorted === null) {
      this.sorted = [...this.positions.values()].sort(byPlaced);
      this.place.clear();
      this.sorted.forEach((p, i) => this.place.set(p.id, i));
    }
    return this.sorted;
  }

  private setPosition(id: string, p: Position | undefined): void {
    const before = this.positions.get(id);
    if (p === undefined) {
      if (before === undefined) return;
      this.positions.delete(id);
      this.index.set(id, undefined);
      this.sorted = null;
      return;
    }
    this.positions.set(id, p);
    this.index.set(id, p);
    if (this.sorted === null) return;
    const at = this.place.get(id);
    const last = this.sorted[this.sorted.length - 1];
    // A changed position in its place, a new one at the end: the usual writes keep the order without sorting again.
    if (before !== undefined && at !== undefined && before.placedAt === p.placedAt) this.sorted[at] = p;
    else if (before === undefined && (last === undefined || byPlaced(last, p) < 0)) {
      this.place.set(id, this.sorted.length);
      this.sorted.push(p);
    } else this.sorted = null;
  }

  private setClose(key: string, text: string | null): void {
    if (this.closesLent) {
      this.closes = new Map(this.closes);
      this.closesLent = false;
    }
    this.index.closeChanged(key.slice(0, key.indexOf(':')));
    if (text === null) return void this.closes.delete(key);
    const parsed = closeSchema.safeParse(JSON.parse(text));
    if (parsed.success) this.closes.set(key, parsed.data);
    else {
      this.closes.delete(key);
      this.skipped += 1;
    }
  }
}

export interface BookKeys {
  book(id: number): string;
  log(id: number): string;
}

/** The books this process read, each brought up to date at the next read, the least recently read let go past the bound. */
export class BookCache {
  /** In the order last read: the first is the next to let go. */
  private readonly held = new Map<number, HeldBook>();
  private readonly maxEntries: number;

  constructor(private readonly opts: { redis: Redis; keys: BookKeys; log: Logger; /** Default BOOKS_HELD_ENTRIES. */ maxEntries?: number }) {
    this.maxEntries = opts.maxEntries ?? BOOKS_HELD_ENTRIES;
  }

  /** The user's book as it is now in Redis: one round trip when this process holds it. */
  async get(userId: number): Promise<HeldBook> {
    const held = this.held.get(userId);
    const reply = (await this.opts.redis.eval(CATCH_UP, 2, this.opts.keys.book(userId), this.opts.keys.log(userId), held?.epoch ?? '', String(held?.version ?? 0))) as (string | number | null)[];
    const epoch = String(reply[0] ?? '');
    const version = Number(reply[1]);
    if (held && reply[2] === 1) {
      const skippedBefore = held.skipped;
      for (let i = 3; i + 1 < reply.length; i += 2) held.set(String(reply[i]), reply[i + 1] === null ? null : String(reply[i + 1]));
      held.version = version;
      if (held.skipped > skippedBefore) this.opts.log.warn({ userId, skipped: held.skipped - skippedBefore }, 'ledger fields that fail the schema were left out');
      this.keep(userId, held);
      return held;
    }
    // Read whole after the version was taken: a write during the scan is newer, and the next read takes it again.
    const fresh = await this.readWhole(userId);
    fresh.epoch = epoch;
    fresh.version = version;
    // A book no write of this build has touched has no epoch: it is read whole each time until one does.
    if (epoch !== '') this.keep(userId, fresh);
    else this.held.delete(userId);
    return fresh;
  }

  /** Holds `book` as the one read last, and lets go of the least recently read ones past the bound (never this one). */
  private keep(userId: number, book: HeldBook): void {
    this.held.delete(userId);
    this.held.set(userId, book);
    let total = 0;
    for (const b of this.held.values()) total += b.entries;
    for (const [id, b] of this.held) {
      if (total <= this.maxEntries || id === userId) break;
      this.held.delete(id);
      total -= b.entries;
    }
  }

  /**
   * The user's book read whole, in HSCAN batches of SCAN_COUNT fields, each batch parsed before the
   * next is asked for: one HGETALL of 20,000 positions parsed at once stopped the event loop for ~0.4 s.
   */
  async readWhole(userId: number): Promise<HeldBook> {
    const book = new HeldBook();
    // HSCAN may give a field twice: each is read once.
    const read = new Set<string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.opts.redis.hscan(this.opts.keys.book(userId), cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const field = flat[i]!;
        if (read.has(field)) continue;
        read.add(field);
        book.set(field, flat[i + 1]!);
      }
      cursor = next;
    } while (cursor !== '0');
    if (book.skipped > 0) this.opts.log.warn({ userId, skipped: book.skipped }, 'ledger fields that fail the schema were left out');
    return book;
  }

  holds(userId: number): boolean {
    return this.held.has(userId);
  }

  drop(userId: number): void {
    this.held.delete(userId);
  }

  clear(): void {
    this.held.clear();
  }
}
