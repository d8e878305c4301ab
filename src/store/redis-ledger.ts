/**
 * The ledger in Redis (the cluster's `LedgerStore`). Layout, under REDIS_PREFIX `{p}`:
 *
 *   {p}ledger-users         set of user ids with a ledger
 *   {p}ledger:{id}          hash: `s` settings (JSON), `n` the last position number (HINCRBY),
 *                           `p:{position}` one position (JSON), `c:{position}:{leg}` a closing line
 *   {p}ledger-open:{id}     hash: `${service}:${itemId}` → the mark of an unsettled position (JSON)
 *
 * Each change writes only its field, so a front placing or settling and a worker recording a
 * closing line never overwrite each other. Books are read from Redis when asked for (they change
 * in any process); the marks, which the notifier and the scheduler read synchronously, are held by
 * every process, loaded at open and again for a user whenever another process announces a change
 * of their ledger on `{p}users:changed`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { markKey, placedMark, type PlacedMark } from '../ledger/marks.js';
import {
  closeKey,
  closeSchema,
  defaultLedgerSettings,
  ledgerSettingsSchema,
  positionSchema,
  type BookRecord,
  type Close,
  type LedgerBook,
  type LedgerSettings,
  type Position,
} from '../ledger/model.js';
import { checkedPosition } from './ledger-books.js';
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';
import type { LedgerStore } from './port.js';
import { execPipeline, type RedisKeys } from './redis-layout.js';

const ledgerKeys = (keys: RedisKeys) => ({ users: keys.ledgerUsers, book: keys.ledger, open: keys.ledgerOpen });

const NOTE_CLOSE = "if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end return 0";

/** Positions in a book (fields `p:…`) and whether ARGV[1] is one, counted inside Redis: no book crosses the wire. */
const SIZE = "local n = 0 for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do if string.sub(f, 1, 2) == 'p:' then n = n + 1 end end return {n, redis.call('HEXISTS', KEYS[1], ARGV[1])}";

const EMPTY: ReadonlyMap<string, PlacedMark> = new Map();

/** Positions already parsed, by field, with the text they came from (a field whose text is unchanged is not parsed again). */
export type ParsedFields = Map<string, { text: string; position: Position }>;

/**
 * A stored hash as a book record; fields that fail the schema are left out (and counted). The book
 * of a busy user has thousands of positions and /pnl reads it whole: with `cache`, only fields
 * whose text changed since the last read go through JSON.parse and the schema again.
 */
export function bookFromHash(hash: Record<string, string>, log: Logger, userId: number, cache: ParsedFields = new Map()): BookRecord {
  const reader = bookReader(cache);
  for (const [field, text] of Object.entries(hash)) reader.add(field, text);
  return reader.result(log, userId);
}

/** `bookFromHash` a field at a time, so that a big book can be read in batches (`RedisLedger.record`). */
function bookReader(cache: ParsedFields): { add(field: string, text: string): void; result(log: Logger, userId: number): BookRecord } {
  const okPositions: Position[] = [];
  const closes: Record<string, unknown> = {};
  let settings: unknown = undefined;
  let next = 0;
  let skipped = 0;
  const seen = new Set<string>();
  return {
    add(field, text) {
      try {
        if (field === 's') settings = JSON.parse(text);
        else if (field === 'n') next = Number(text);
        else if (field.startsWith('p:')) {
          seen.add(field);
          const hit = cache.get(field);
          if (hit?.text === text) {
            okPositions.push(hit.position);
            return;
          }
          const parsed = positionSchema.safeParse(JSON.parse(text));
          if (parsed.success) {
            okPositions.push(parsed.data);
            cache.set(field, { text, position: parsed.data });
          } else {
            skipped += 1;
          }
        } else if (field.startsWith('c:')) closes[field.slice(2)] = JSON.parse(text);
      } catch {
        skipped += 1;
      }
    },
    result(log, userId) {
      for (const field of cache.keys()) if (!seen.has(field)) cache.delete(field);
      const okCloses: Record<string, Close> = {};
      for (const [key, raw] of Object.entries(closes)) {
        const parsed = closeSchema.safeParse(raw);
        if (parsed.success) okCloses[key] = parsed.data;
      }
      skipped += Object.keys(closes).length - Object.keys(okCloses).length;
      if (skipped > 0) log.warn({ userId, skipped }, 'ledger fields that fail the schema were left out');
      const parsedSettings = ledgerSettingsSchema.safeParse(settings ?? {});
      const record: BookRecord = { settings: parsedSettings.success ? parsedSettings.data : defaultLedgerSettings(), positions: okPositions, closes: okCloses };
      if (Number.isSafeInteger(next) && next + 1 > record.settings.nextId) record.settings.nextId = next + 1;
      // Positions in the order placed: ids are base-36 counters.
      record.positions.sort((a, b) => a.placedAt - b.placedAt || parseInt(a.id, 36) - parseInt(b.id, 36));
      return record;
    },
  };
}

/** Fields of a book asked for per HSCAN call. */
const SCAN_COUNT = 250;

/** The commands that write a whole book (migrate, replaceAll). */
export function writeBookCommands(pipeline: ReturnType<Redis['pipeline']>, keys: RedisKeys, userId: number, book: BookRecord): void {
  const k = ledgerKeys(keys);
  const fields: string[] = ['s', JSON.stringify(book.settings), 'n', String(book.settings.nextId - 1)];
  const open: string[] = [];
  for (const p of book.positions) {
    fields.push(`p:${p.id}`, JSON.stringify(p));
    const mark = placedMark(p);
    if (mark) open.push(markKey(p.service, p.itemId), JSON.stringify(mark));
  }
  for (const [key, close] of Object.entries(book.closes)) fields.push(`c:${key}`, JSON.stringify(close));
  pipeline.hset(k.book(userId), ...fields);
  if (open.length > 0) pipeline.hset(k.open(userId), ...open);
  pipeline.sadd(k.users, String(userId));
}

/** Decrements the book's last id `n` only while it is still ARGV[1]. */
const GIVE_BACK_ID = `
if redis.call('HGET', KEYS[1], 'n') == ARGV[1] then
  redis.call('HINCRBY', KEYS[1], 'n', -1)
  return 1
end
return 0`;

export class RedisLedger implements LedgerStore {
  private readonly k: ReturnType<typeof ledgerKeys>;
  private readonly held = new Map<number, Map<string, PlacedMark>>();
  /** Positions parsed at the last read of a user's book (see `bookFromHash`); dropped with the user. */
  private readonly parsed = new Map<number, ParsedFields>();
  private readonly writes = new Set<Promise<unknown>>();
  private failures = 0;

  constructor(
    private readonly opts: { redis: Redis; keys: RedisKeys; origin: string; log: Logger; guard: () => void },
  ) {
    this.k = ledgerKeys(opts.keys);
  }

  healthy(): boolean {
    return this.failures === 0;
  }

  /** Loads the marks of `userIds` (every ledger user when omitted). */
  async loadMarks(userIds?: readonly number[]): Promise<void> {
    const ids = userIds ?? (await this.opts.redis.smembers(this.k.users)).map(Number).filter(Number.isSafeInteger);
    const pipeline = this.opts.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.k.open(id));
    const results = await execPipeline(pipeline);
    ids.forEach((id, i) => {
      const [err, hash] = results[i] ?? [null, {}];
      if (err) return;
      const marks = new Map<string, PlacedMark>();
      for (const [key, text] of Object.entries((hash ?? {}) as Record<string, string>)) {
        try {
          marks.set(key, JSON.parse(text) as PlacedMark);
        } catch {
          // A broken mark only loses the alert's "placed" line; the position itself is intact.
        }
      }
      if (marks.size > 0) this.held.set(id, marks);
      else this.held.delete(id);
    });
  }

  /** Every stored book (migrate). */
  async all(): Promise<Record<string, BookRecord>> {
    const ids = (await this.opts.redis.smembers(this.k.users)).map(Number).filter(Number.isSafeInteger);
    const out: Record<string, BookRecord> = {};
    for (const id of ids) out[String(id)] = await this.record(id);
    return out;
  }

  async book(userId: number): Promise<LedgerBook> {
    const r = await this.record(userId);
    return { settings: r.settings, positions: r.positions, closes: new Map(Object.entries(r.closes)) };
  }

  async put(userId: number, position: Position): Promise<Position> {
    this.opts.guard();
    const p = checkedPosition(position);
    const key = markKey(p.service, p.itemId);
    const mark = placedMark(p);
    const pipeline = this.opts.redis.multi();
    pipeline.hset(this.k.book(userId), `p:${p.id}`, JSON.stringify(p));
    pipeline.sadd(this.k.users, String(userId));
    const marks = this.marksOf(userId);
    if (mark) {
      pipeline.hset(this.k.open(userId), key, JSON.stringify(mark));
      marks.set(key, mark);
    } else if (marks.get(key)?.positionId === p.id) {
      pipeline.hdel(this.k.open(userId), key);
      marks.delete(key);
    }
    this.announce(pipeline, userId);
    await this.run(pipeline);
    return p;
  }

  async remove(userId: number, positionId: string): Promise<boolean> {
    this.opts.guard();
    const text = await this.opts.redis.hget(this.k.book(userId), `p:${positionId}`);
    if (text === null) return false;
    const pipeline = this.opts.redis.multi();
    // A position has at most 16 legs: their closing lines go with it.
    pipeline.hdel(this.k.book(userId), `p:${positionId}`, ...Array.from({ length: 16 }, (_, leg) => `c:${closeKey(positionId, leg)}`));
    const marks = this.marksOf(userId);
    for (const [key, mark] of marks) {
      if (mark.positionId !== positionId) continue;
      pipeline.hdel(this.k.open(userId), key);
      marks.delete(key);
    }
    this.announce(pipeline, userId);
    await this.run(pipeline);
    return true;
  }

  async updateSettings(userId: number, change: Partial<LedgerSettings>): Promise<LedgerSettings> {
    this.opts.guard();
    const current = (await this.record(userId)).settings;
    const next = ledgerSettingsSchema.safeParse({ ...current, ...change });
    if (!next.success) throw new StoreError('invalid-position', `ledger settings failed the schema (${describeIssues(next.error)}); nothing was changed`);
    const pipeline = this.opts.redis.multi();
    pipeline.hset(this.k.book(userId), 's', JSON.stringify(next.data));
    pipeline.sadd(this.k.users, String(userId));
    await this.run(pipeline);
    return next.data;
  }

  async takeId(userId: number): Promise<string> {
    this.opts.guard();
    const n = await this.opts.redis.hincrby(this.k.book(userId), 'n', 1);
    await this.opts.redis.sadd(this.k.users, String(userId));
    return n.toString(36);
  }

  async giveBackId(userId: number, id: string): Promise<boolean> {
    this.opts.guard();
    const n = parseInt(id, 36);
    // Atomic: a number taken meanwhile by another front is the last one now, and keeps its place.
    const given = await this.opts.redis.eval(GIVE_BACK_ID, 1, this.k.book(userId), String(n));
    return given === 1;
  }

  noteClose(userId: number, positionId: string, leg: number, close: Close): void {
    const parsed = closeSchema.safeParse(close);
    if (!parsed.success) return;
    // Only beside its position: a late line for a deleted ledger (after /forget) must not bring the hash back.
    this.track(this.opts.redis.eval(NOTE_CLOSE, 1, this.k.book(userId), `p:${positionId}`, `c:${closeKey(positionId, leg)}`, JSON.stringify(parsed.data)));
  }

  async size(userId: number, positionId: string): Promise<{ positions: number; has: boolean }> {
    const [n, has] = (await this.opts.redis.eval(SIZE, 1, this.k.book(userId), `p:${positionId}`)) as [number, number];
    return { positions: Number(n), has: Number(has) === 1 };
  }

  async archive(userId: number, positionIds: readonly string[]): Promise<number> {
    this.opts.guard();
    if (positionIds.length === 0) return 0;
    const book = await this.record(userId);
    const doomed = book.positions.filter((p) => positionIds.includes(p.id));
    if (doomed.length === 0) return 0;
    const fields = doomed.flatMap((p) => [`p:${p.id}`, ...p.legs.map((_, i) => `c:${closeKey(p.id, i)}`)]);
    const marks = this.marksOf(userId);
    const pipeline = this.opts.redis.multi();
    for (let i = 0; i < fields.length; i += 1_000) pipeline.hdel(this.k.book(userId), ...fields.slice(i, i + 1_000));
    for (const p of doomed) {
      const key = markKey(p.service, p.itemId);
      if (marks.get(key)?.positionId === p.id) {
        pipeline.hdel(this.k.open(userId), key);
        marks.delete(key);
      }
    }
    this.announce(pipeline, userId);
    await this.run(pipeline);
    return doomed.length;
  }

  marks(userId: number): ReadonlyMap<string, PlacedMark> {
    return this.held.get(userId) ?? EMPTY;
  }

  usersWithMarks(): number[] {
    return [...this.held.keys()];
  }

  async deleteUser(userId: number): Promise<void> {
    this.held.delete(userId);
    this.parsed.delete(userId);
    const pipeline = this.opts.redis.multi();
    pipeline.del(this.k.book(userId), this.k.open(userId));
    pipeline.srem(this.k.users, String(userId));
    this.announce(pipeline, userId);
    // Tracked, so that `flush` (after /forget) waits for it.
    const done = this.run(pipeline);
    this.track(done);
    await done;
  }

  /** Removes every ledger key under the prefix. */
  async clear(): Promise<void> {
    const ids = await this.opts.redis.smembers(this.k.users);
    const doomed = ids.flatMap((id) => [this.k.book(Number(id)), this.k.open(Number(id))]);
    for (let i = 0; i < doomed.length; i += 1_000) await this.opts.redis.del(...doomed.slice(i, i + 1_000));
    await this.opts.redis.del(this.k.users);
    this.held.clear();
    this.parsed.clear();
  }

  /** Waits for the closing lines written behind. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  /**
   * The user's book, read in HSCAN batches of SCAN_COUNT fields, each batch's new positions parsed
   * before the next is asked for: a book of 20,000 positions (8 MB) read with one HGETALL and
   * parsed at once stopped the event loop for about 0.4 s. A small book (a listpack) comes in one
   * batch, as HGETALL would give it.
   */
  private async record(userId: number): Promise<BookRecord> {
    let cache = this.parsed.get(userId);
    if (!cache) {
      cache = new Map();
      this.parsed.set(userId, cache);
    }
    const reader = bookReader(cache);
    // HSCAN may give a field twice: each is read once.
    const read = new Set<string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.opts.redis.hscan(this.k.book(userId), cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const field = flat[i]!;
        if (read.has(field)) continue;
        read.add(field);
        reader.add(field, flat[i + 1]!);
      }
      cursor = next;
    } while (cursor !== '0');
    return reader.result(this.opts.log, userId);
  }

  private marksOf(userId: number): Map<string, PlacedMark> {
    let marks = this.held.get(userId);
    if (!marks) {
      marks = new Map();
      this.held.set(userId, marks);
    }
    return marks;
  }

  private announce(pipeline: ReturnType<Redis['multi']>, userId: number): void {
    pipeline.publish(this.opts.keys.changes, JSON.stringify({ from: this.opts.origin, ids: [], subs: [], ledger: [userId] }));
  }

  private async run(pipeline: ReturnType<Redis['multi']>): Promise<void> {
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  private track(p: Promise<unknown>): void {
    const settled = p.then(
      () => {
        this.failures = 0;
      },
      (err: unknown) => {
        this.failures += 1;
        this.opts.log.warn({ err }, 'writing a closing line failed');
      },
    );
    this.writes.add(settled);
    void settled.finally(() => this.writes.delete(settled));
  }
}
