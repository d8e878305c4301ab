/**
 * The Redis store's alert state: the subscriptions this process uses, in local maps (the same
 * `AlertState` as the embedded store, so the scheduler's hot path is unchanged), written behind to
 * Redis. Each change marks its item (or, for a removed subscription, the whole subscription); one
 * pipelined write per `debounceMs` sends only what was marked: HSET of the changed entries, HDEL
 * of the removed ones, DEL of removed subscriptions. A removed subscription is also announced on
 * the change feed, so another process holding it (the worker reading it, when a front deleted the
 * filter) forgets it too instead of carrying old entries into a new filter of the same service.
 *
 * `load(userIds)` (re)reads those users' subscriptions from Redis: a worker that takes users over
 * continues their diffs where the last holder left them. Entries that fail the schema are logged
 * and left out.
 */
import type { Redis } from 'ioredis';
import { settlesWithin } from '../lib/settles-within.js';
import type { Logger } from '../logger.js';
import { SERVICES } from '../service/services.js';
import { AlertState } from './alert-state.js';
import type { AlertStateStore } from './port.js';
import { parseEntries } from './redis-codec.js';
import { execPipeline, readHashes, type RedisKeys } from './redis-layout.js';
import { subscriptionKey, type AlertEntry } from './schema.js';
import { WriteRounds } from './write-rounds.js';

export interface RedisAlertsOptions {
  redis: Redis;
  keys: RedisKeys;
  origin: string;
  log: Logger;
  /** Longest delay between a change and its write. */
  debounceMs: number;
  /** Throws StoreError 'closed' once the store is closed. */
  guard: () => void;
}

/** Subscriptions read or written per pipeline. */
const CHUNK = 500;
const RETRY = { baseMs: 200, maxMs: 5_000 };

/** The longest a write waits for `writeAfter`'s promise: the state must reach Redis even when the stream does not answer. */
export const WRITE_WAIT_MS = 2_000;

/** Changed item ids per subscription; null: the subscription was removed (rewrite it whole). */
type Marks = Map<string, Set<string> | null>;

const subscriptionsOf = (userIds: readonly number[]): string[] => userIds.flatMap((id) => SERVICES.map((s) => subscriptionKey(id, s)));

export class RedisAlerts implements AlertStateStore {
  private readonly state: AlertState;
  private marks: Marks = new Map();
  /** Subscriptions known to be listed in `{p}alert-subs`. */
  private readonly listed = new Set<string>();
  private readonly rounds: WriteRounds;
  /** What each write waits for first (a worker: its alerts on the stream); see `writeAfter`. */
  private before: (() => Promise<void>) | undefined;

  constructor(private readonly opts: RedisAlertsOptions) {
    this.state = new AlertState((subKey, itemId) => this.mark(subKey, itemId), opts.guard);
    this.rounds = new WriteRounds({ pass: () => this.write(), pending: () => this.marks.size > 0, retry: RETRY, log: opts.log, what: 'writing alert state to Redis' });
  }

  healthy(): boolean {
    return this.rounds.healthy();
  }

  get(subKey: string, itemId: string): AlertEntry | undefined {
    return this.state.get(subKey, itemId);
  }

  set(subKey: string, itemId: string, entry: AlertEntry): void {
    this.state.set(subKey, itemId, entry);
  }

  delete(subKey: string, itemId: string): void {
    this.state.delete(subKey, itemId);
  }

  entries(subKey: string): [itemId: string, entry: AlertEntry][] {
    return this.state.entries(subKey);
  }

  view(subKey: string): ReadonlyMap<string, Readonly<AlertEntry>> {
    return this.state.view(subKey);
  }

  deleteSubscription(subKey: string): void {
    this.opts.guard();
    this.state.deleteSubscription(subKey);
    // Another process may hold entries of it that this one never loaded.
    this.mark(subKey, null);
  }

  deleteUser(userId: number): void {
    this.opts.guard();
    this.state.deleteUser(userId);
    for (const subKey of subscriptionsOf([userId])) this.mark(subKey, null);
  }

  prune(opts: { goneBefore: number; seenBefore: number }): number {
    return this.state.prune(opts);
  }

  size(): number {
    return this.state.size();
  }

  /** Everything held, as the file's records. */
  records(): Record<string, Record<string, AlertEntry>> {
    return this.state.toRecords();
  }

  /** Forgets everything held and pending (before reading a replaced database). */
  clearLocal(): void {
    this.state.load({});
    this.marks.clear();
    this.listed.clear();
  }

  /** Every subscription listed in Redis (at open, when this process holds all alert state). */
  async loadAll(): Promise<number> {
    const subKeys = await this.opts.redis.smembers(this.opts.keys.alertSubs);
    return this.read(subKeys);
  }

  /** (Re)reads these users' subscriptions, after writing what is pending; returns how many entries were read. */
  async load(userIds: readonly number[]): Promise<number> {
    await this.flush();
    return this.read(subscriptionsOf(userIds));
  }

  /**
   * For users another process polls now: writes what is pending, then drops from this process the
   * alert state of those `stillAway` says are still away (one gained back meanwhile keeps it).
   */
  async release(userIds: readonly number[], stillAway: (userId: number) => boolean): Promise<void> {
    await this.flush();
    this.forget(subscriptionsOf(userIds.filter(stillAway)));
  }

  /** Drops subscriptions another process removed, with their unwritten changes. */
  forget(subKeys: readonly string[]): void {
    for (const subKey of subKeys) {
      this.state.forgetSubscription(subKey);
      this.marks.delete(subKey);
      this.listed.delete(subKey);
    }
  }

  /**
   * Each write first waits for `wait` (at most WRITE_WAIT_MS): a worker passes "its alerts are on
   * the stream", so the state never says an item was alerted while its alert is still in this
   * process only, where a kill -9 would lose it and the next worker would take it as sent.
   */
  writeAfter(wait: () => Promise<void>): void {
    this.before = wait;
  }

  /** Writes what is pending now; rejects when the write fails (a background retry follows). */
  flush(): Promise<void> {
    return this.rounds.flush();
  }

  stop(): void {
    this.rounds.stop();
  }

  private mark(subKey: string, itemId: string | null): void {
    if (itemId === null) {
      this.marks.set(subKey, null);
      // A removal is announced at once, so the process reading that subscription stops using it.
      this.rounds.request(0);
      return;
    }
    let items = this.marks.get(subKey);
    if (items === null) return;
    if (items === undefined) {
      items = new Set();
      this.marks.set(subKey, items);
    }
    items.add(itemId);
    this.rounds.request(this.opts.debounceMs);
  }

  private async write(): Promise<void> {
    const { redis, keys, origin } = this.opts;
    const batch = this.marks;
    this.marks = new Map();
    // The alerts of these marks were queued with them (the notifier alerts as the read is applied).
    if (this.before) await settlesWithin(this.before().catch(() => undefined), WRITE_WAIT_MS);
    const removed: string[] = [];
    const listedNow: string[] = [];
    const unlisted: string[] = [];
    const pipeline = redis.pipeline();
    for (const [subKey, marked] of batch) {
      const key = keys.alerts(subKey);
      const current = this.state.view(subKey);
      if (marked === null) {
        // Removed: written again whole (entries set since the removal, if any).
        pipeline.del(key);
        removed.push(subKey);
      }
      const fields: string[] = [];
      const gone: string[] = [];
      for (const itemId of marked ?? current.keys()) {
        const entry = current.get(itemId);
        if (entry) fields.push(itemId, JSON.stringify(entry));
        else gone.push(itemId);
      }
      if (fields.length > 0) pipeline.hset(key, ...fields);
      if (gone.length > 0) pipeline.hdel(key, ...gone);
      if (current.size === 0) {
        // Only a listed one (or one removed): a subscription with nothing alerted was written an SREM at every read.
        if (this.listed.has(subKey) || marked === null) {
          pipeline.srem(keys.alertSubs, subKey);
          unlisted.push(subKey);
        }
      } else if (!this.listed.has(subKey)) {
        pipeline.sadd(keys.alertSubs, subKey);
        listedNow.push(subKey);
      }
    }
    if (removed.length > 0) pipeline.publish(keys.changes, JSON.stringify({ from: origin, ids: [], subs: removed }));
    let failure: Error | null = null;
    try {
      const results = await execPipeline(pipeline);
      failure = results.find(([err]) => err !== null)?.[0] ?? null;
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
    if (failure) {
      // Everything in this batch is written again with the next try (the values as they are then).
      for (const [subKey, items] of batch) {
        const later = this.marks.get(subKey);
        if (items === null || later === null) this.marks.set(subKey, null);
        else this.marks.set(subKey, new Set([...items, ...(later ?? [])]));
      }
      throw failure;
    }
    for (const subKey of listedNow) this.listed.add(subKey);
    for (const subKey of unlisted) this.listed.delete(subKey);
  }

  private async read(subKeys: readonly string[]): Promise<number> {
    const { redis, keys, log } = this.opts;
    let count = 0;
    await readHashes(
      redis,
      subKeys.map((subKey) => keys.alerts(subKey)),
      (n, hash) => {
        const subKey = subKeys[n] ?? '';
        // Changed here while the read was under way: what this process has is newer.
        if (this.marks.has(subKey)) return;
        const { entries, skipped } = parseEntries(hash);
        if (skipped.length > 0) log.warn({ key: keys.alerts(subKey), items: skipped.length }, 'alert entries in Redis fail the schema: left out');
        this.state.loadSubscription(subKey, entries);
        if (entries.size > 0) this.listed.add(subKey);
        count += entries.size;
      },
      CHUNK,
    );
    return count;
  }
}
