/**
 * The ledger in Redis (the cluster's `LedgerStore`). Layout, under REDIS_PREFIX `{p}`:
 *
 *   {p}ledger-users         set of user ids with a ledger
 *   {p}ledger:{id}          hash: `s` settings (JSON), `n` the last position number (HINCRBY),
 *                           `p:{position}` one position (JSON), `c:{position}:{leg}` a closing line,
 *                           `e` the book's epoch and `v` its version (+1 per write)
 *   {p}ledger-open:{id}     hash: `${service}:${itemId}` → the mark of an unsettled position (JSON)
 *   {p}ledger-log:{id}      sorted set: field → the version that last wrote it (redis-book-cache.ts)
 *
 * Each change writes only its field, so a front placing or settling and a worker recording a
 * closing line never overwrite each other. Books change in any process: each read asks Redis what
 * changed since this process last read the book, and reads only that (`redis-book-cache.ts`); the marks, which the notifier and the scheduler read synchronously, are held by
 * every process, loaded at open and again for a user whenever another process announces a change
 * of their ledger on `{p}users:changed`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { markKey, placedMark, type PlacedMark } from '../ledger/marks.js';
import { closeKey, closeSchema, ledgerSettingsSchema, type BookRecord, type Close, type LedgerSettings, type Position } from '../ledger/model.js';
import type { IndexedBook } from '../ledger/summary.js';
import { BookCache, BUMP, BUMP_FN, HeldBook, newEpoch } from './redis-book-cache.js';
import { checkedPosition } from './ledger-books.js';
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';
import type { LedgerStore } from './port.js';
import { execPipeline, type RedisKeys } from './redis-layout.js';

const ledgerKeys = (keys: RedisKeys) => ({ users: keys.ledgerUsers, book: keys.ledger, open: keys.ledgerOpen, log: keys.ledgerLog });

/** KEYS book, log; ARGV position field, close field, close JSON, epoch. */
const NOTE_CLOSE = `${BUMP_FN}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
bump(KEYS[1], KEYS[2], ARGV[4], {ARGV[2]}, 1)
return 1`;

/** Positions in a book (fields `p:…`) and whether ARGV[1] is one, counted inside Redis: no book crosses the wire. */
const SIZE = "local n = 0 for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do if string.sub(f, 1, 2) == 'p:' then n = n + 1 end end return {n, redis.call('HEXISTS', KEYS[1], ARGV[1])}";

const EMPTY: ReadonlyMap<string, PlacedMark> = new Map();

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
  // A new epoch: a process holding this user's book reads it whole again.
  fields.push('e', newEpoch(), 'v', '0');
  pipeline.del(k.log(userId));
  pipeline.hset(k.book(userId), ...fields);
  if (open.length > 0) pipeline.hset(k.open(userId), ...open);
  pipeline.sadd(k.users, String(userId));
}

/** Decrements the book's last id `n` only while it is still ARGV[1] (KEYS book, log; ARGV[2] epoch). */
const GIVE_BACK_ID = `${BUMP_FN}
if redis.call('HGET', KEYS[1], 'n') == ARGV[1] then
  redis.call('HINCRBY', KEYS[1], 'n', -1)
  bump(KEYS[1], KEYS[2], ARGV[2], {'n'}, 1)
  return 1
end
return 0`;

/** Takes the next id (KEYS book, log; ARGV epoch). */
const TAKE_ID = `${BUMP_FN}
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
bump(KEYS[1], KEYS[2], ARGV[1], {'n'}, 1)
return n`;

export class RedisLedger implements LedgerStore {
  private readonly k: ReturnType<typeof ledgerKeys>;
  private readonly held = new Map<number, Map<string, PlacedMark>>();
  /** The books this process read, brought up to date by what changed at each read. */
  private readonly cache: BookCache;
  private readonly writes = new Set<Promise<unknown>>();
  private failures = 0;

  constructor(
    private readonly opts: { redis: Redis; keys: RedisKeys; origin: string; log: Logger; guard: () => void },
  ) {
    this.k = ledgerKeys(opts.keys);
    this.cache = new BookCache({ redis: opts.redis, keys: this.k, log: opts.log });
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

  /** Every stored book (migrate), read whole and not kept. */
  async all(): Promise<Record<string, BookRecord>> {
    const ids = (await this.opts.redis.smembers(this.k.users)).map(Number).filter(Number.isSafeInteger);
    const out: Record<string, BookRecord> = {};
    for (const id of ids) {
      const b = (await this.cache.readWhole(id)).book();
      out[String(id)] = { settings: b.settings, positions: [...b.positions], closes: Object.fromEntries(b.closes) };
    }
    return out;
  }

  async book(userId: number): Promise<IndexedBook> {
    return (await this.cache.get(userId)).book();
  }

  async position(userId: number, positionId: string): Promise<Position | undefined> {
    if (this.cache.holds(userId)) return (await this.cache.get(userId)).position(positionId);
    // A book this process does not hold is not read whole for one position.
    const one = new HeldBook();
    one.set(`p:${positionId}`, await this.opts.redis.hget(this.k.book(userId), `p:${positionId}`));
    return one.position(positionId);
  }

  async settings(userId: number): Promise<LedgerSettings> {
    if (this.cache.holds(userId)) return (await this.cache.get(userId)).settings();
    const [s, n] = await this.opts.redis.hmget(this.k.book(userId), 's', 'n');
    const one = new HeldBook();
    one.set('s', s ?? null);
    one.set('n', n ?? null);
    return one.settings();
  }

  async open(userId: number): Promise<Position[]> {
    return (await this.cache.get(userId)).open();
  }

  async put(userId: number, position: Position): Promise<Position> {
    this.opts.guard();
    const p = checkedPosition(position);
    const key = markKey(p.service, p.itemId);
    const mark = placedMark(p);
    const pipeline = this.opts.redis.multi();
    pipeline.hset(this.k.book(userId), `p:${p.id}`, JSON.stringify(p));
    this.bump(pipeline, userId, [`p:${p.id}`]);
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
    const fields = [`p:${positionId}`, ...Array.from({ length: 16 }, (_, leg) => `c:${closeKey(positionId, leg)}`)];
    pipeline.hdel(this.k.book(userId), ...fields);
    this.bump(pipeline, userId, fields);
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
    const current = await this.settings(userId);
    const next = ledgerSettingsSchema.safeParse({ ...current, ...change });
    if (!next.success) throw new StoreError('invalid-position', `ledger settings failed the schema (${describeIssues(next.error)}); nothing was changed`);
    const pipeline = this.opts.redis.multi();
    pipeline.hset(this.k.book(userId), 's', JSON.stringify(next.data));
    this.bump(pipeline, userId, ['s']);
    pipeline.sadd(this.k.users, String(userId));
    await this.run(pipeline);
    return next.data;
  }

  async takeId(userId: number): Promise<string> {
    this.opts.guard();
    const n = Number(await this.opts.redis.eval(TAKE_ID, 2, this.k.book(userId), this.k.log(userId), newEpoch()));
    await this.opts.redis.sadd(this.k.users, String(userId));
    return n.toString(36);
  }

  async giveBackId(userId: number, id: string): Promise<boolean> {
    this.opts.guard();
    const n = parseInt(id, 36);
    // Atomic: a number taken meanwhile by another front is the last one now, and keeps its place.
    const given = await this.opts.redis.eval(GIVE_BACK_ID, 2, this.k.book(userId), this.k.log(userId), String(n), newEpoch());
    return given === 1;
  }

  noteClose(userId: number, positionId: string, leg: number, close: Close): void {
    const parsed = closeSchema.safeParse(close);
    if (!parsed.success) return;
    // Only beside its position: a late line for a deleted ledger (after /forget) must not bring the hash back.
    this.track(this.opts.redis.eval(NOTE_CLOSE, 2, this.k.book(userId), this.k.log(userId), `p:${positionId}`, `c:${closeKey(positionId, leg)}`, JSON.stringify(parsed.data), newEpoch()));
  }

  async size(userId: number, positionId: string): Promise<{ positions: number; has: boolean }> {
    const [n, has] = (await this.opts.redis.eval(SIZE, 1, this.k.book(userId), `p:${positionId}`)) as [number, number];
    return { positions: Number(n), has: Number(has) === 1 };
  }

  async archive(userId: number, positionIds: readonly string[]): Promise<number> {
    this.opts.guard();
    if (positionIds.length === 0) return 0;
    const held = await this.cache.get(userId);
    const doomed = positionIds.map((id) => held.position(id)).filter((p): p is Position => p !== undefined);
    if (doomed.length === 0) return 0;
    const fields = doomed.flatMap((p) => [`p:${p.id}`, ...p.legs.map((_, i) => `c:${closeKey(p.id, i)}`)]);
    const marks = this.marksOf(userId);
    const pipeline = this.opts.redis.multi();
    for (let i = 0; i < fields.length; i += 1_000) pipeline.hdel(this.k.book(userId), ...fields.slice(i, i + 1_000));
    this.bump(pipeline, userId, fields);
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
    this.cache.drop(userId);
    const pipeline = this.opts.redis.multi();
    pipeline.del(this.k.book(userId), this.k.open(userId), this.k.log(userId));
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
    const doomed = ids.flatMap((id) => [this.k.book(Number(id)), this.k.open(Number(id)), this.k.log(Number(id))]);
    for (let i = 0; i < doomed.length; i += 1_000) await this.opts.redis.del(...doomed.slice(i, i + 1_000));
    await this.opts.redis.del(this.k.users);
    this.held.clear();
    this.cache.clear();
  }

  /** Waits for the closing lines written behind. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  private marksOf(userId: number): Map<string, PlacedMark> {
    let marks = this.held.get(userId);
    if (!marks) {
      marks = new Map();
      this.held.set(userId, marks);
    }
    return marks;
  }

  /** The book's version up and `fields` logged, in the write's own MULTI (see redis-book-cache.ts). */
  private bump(pipeline: ReturnType<Redis['multi']>, userId: number, fields: readonly string[]): void {
    pipeline.eval(BUMP, 2, this.k.book(userId), this.k.log(userId), newEpoch(), ...fields);
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
