/**
 * The Redis store's users: a replica of every user record in memory (reads stay synchronous and
 * cheap, as in the embedded store), written through to Redis behind each call without lost updates.
 *
 * Each user has a confirmed state — what Redis held the last time this process heard (the record's
 * profile with its version, and its statuses) — and the local changes not yet acknowledged, kept
 * as the calls that made them (`updateUser`'s mutation, `updateStatus`'s change). What `getUser`
 * returns is the confirmed state with those changes applied. A write round sends, per user, the
 * result of applying them to the confirmed state: a compare-and-set on the version when the
 * profile changed (`WRITE_USER`), a plain write of the touched status fields otherwise
 * (`WRITE_STATUS`). When another process wrote the user first, the script answers with the newer
 * hash; the changes are applied again to it and sent again, so a front's new filter and a worker's
 * pause of another filter both survive. A change that no longer applies (the user was deleted, the
 * access key was taken meanwhile) is dropped and logged.
 *
 * Rounds run one at a time on one connection, fetches (`fetch`: users another process announced)
 * and writes in turn, so replies are handled in the order Redis executed the commands: the latest
 * reply is always the newest news. Each write round ends with one PUBLISH of the ids it wrote.
 * What a user's pending changes are and what a round sends for them is in `redis-pending.ts`; the
 * rhythm of rounds (batching, one at a time, retries) in `write-rounds.ts`.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Service } from '../service/services.js';
import { StoreError } from './errors.js';
import { hashFromList, parseUserHash, profileOf, recordOf, type Statuses } from './redis-codec.js';
import { ensureScripts, execPipeline, isHash, isNoScript, readHashes, type RedisKeys } from './redis-layout.js';
import { emptySlot, planWrite, queueWrite, type Op, type Slot, type Write } from './redis-pending.js';
import type { ServiceStatus, UserRecord } from './schema.js';
import { UserRecords, type Mutation, type UserInit } from './user-records.js';
import { WriteRounds } from './write-rounds.js';

/** A change that keeps losing the race to other writers is given up after this many tries (logged). */
const MAX_ATTEMPTS = 10;
const RETRY = { baseMs: 100, maxMs: 5_000 };

export interface RedisUsersOptions {
  redis: Redis;
  keys: RedisKeys;
  /** This process's id in published messages (its own are not fetched back). */
  origin: string;
  clock: Clock;
  log: Logger;
  /** How long a change waits for the round that writes it, so that changes made together go together. */
  batchMs: number;
  /**
   * The same for a change of statuses alone (a worker's last good read, last alert, plan): written
   * after almost every read, they go many to a round instead of a round trip each; what a user
   * changes still goes within `batchMs`, and takes the statuses waiting with it.
   */
  statusBatchMs?: number;
  /** Told of each user whose profile another process changed or deleted. */
  onRemoteChange: (id: number) => void;
}

export class RedisUsers {
  readonly records: UserRecords;
  private readonly slots = new Map<number, Slot>();
  /** Users with local changes to write. */
  private readonly pending = new Set<number>();
  private readonly toFetch = new Set<number>();
  private resyncWanted = false;
  private scriptsLost = false;
  /** NOSCRIPT replies in a row: the first only means a restarted Redis forgot the scripts. */
  private noScriptInARow = 0;
  private readonly rounds: WriteRounds;

  constructor(private readonly opts: RedisUsersOptions) {
    this.records = new UserRecords(opts.log);
    this.rounds = new WriteRounds({
      pass: () => this.pass(),
      pending: () => this.pending.size > 0 || this.toFetch.size > 0 || this.resyncWanted,
      retry: RETRY,
      log: opts.log,
      what: 'writing users to Redis',
    });
  }

  /** True unless the latest round failed (it is being retried). */
  healthy(): boolean {
    return this.rounds.healthy();
  }

  update(id: number, mutate: Mutation, init: UserInit | undefined): UserRecord {
    const next = this.records.prepareUpdate(id, this.records.get(id), mutate, init, this.opts.clock.now());
    this.slot(id).ops.push({ kind: 'update', mutate, init, attempts: 0 });
    this.records.put(next);
    this.changed(id);
    return next;
  }

  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined {
    const current = this.records.get(id);
    if (!current) return undefined;
    const next = this.records.prepareStatus(current, service, change, this.opts.clock.now());
    const ops = this.slot(id).ops;
    const last = ops.at(-1);
    if (last?.kind === 'status' && last.service === service) {
      // Merged into one (a new op: the old one may be in flight, and is acknowledged by identity), so that
      // a worker's status writes do not pile up while Redis is away.
      ops[ops.length - 1] = { kind: 'status', service, change: { ...last.change, ...change }, attempts: 0 };
    } else {
      ops.push({ kind: 'status', service, change, attempts: 0 });
    }
    this.records.put(next);
    this.changed(id, this.opts.statusBatchMs);
    return next;
  }

  delete(id: number): boolean {
    if (!this.records.remove(id)) return false;
    const slot = this.slot(id);
    slot.ops = [];
    slot.deleting = true;
    this.changed(id);
    return true;
  }

  /**
   * Reads every user (at open; `notify` false), or again after the change feed was interrupted
   * (`resync`). Returns the ids of records left out as broken.
   */
  async loadAll(notify: boolean): Promise<number[]> {
    const { redis, keys } = this.opts;
    const members = await redis.smembers(keys.users);
    const ids = members.map(Number).filter((id) => Number.isSafeInteger(id)).sort((a, b) => a - b);
    const broken: number[] = [];
    await readHashes(
      redis,
      ids.map((id) => keys.user(id)),
      (n, hash) => {
        const id = ids[n] ?? 0;
        if (!this.applyStored(id, hash, notify)) broken.push(id);
      },
    );
    const present = new Set(ids);
    for (const [id, slot] of this.slots) if (!present.has(id) && slot.profile) this.applyStored(id, {}, notify);
    return broken;
  }

  /**
   * Reads these users again now, resolving once they are in `records` (a write that fails meanwhile
   * rejects it, as `flush` does): statuses other processes wrote are not announced.
   */
  async refresh(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.toFetch.add(id);
    await this.rounds.flush();
  }

  /** Reads these users again soon (another process announced changes to them). */
  fetch(ids: readonly number[]): void {
    for (const id of ids) this.toFetch.add(id);
    this.kick();
  }

  /** Reads every user again soon (the change feed was interrupted: announcements may have been missed). */
  resync(): void {
    this.resyncWanted = true;
    this.kick();
  }

  /** Runs rounds until nothing is pending; rejects with the first failure (a background retry follows). */
  flush(): Promise<void> {
    return this.rounds.flush();
  }

  /** No more background rounds (a last `flush` still writes). */
  stop(): void {
    this.rounds.stop();
  }

  private slot(id: number): Slot {
    let slot = this.slots.get(id);
    if (!slot) {
      slot = emptySlot();
      this.slots.set(id, slot);
    }
    return slot;
  }

  private changed(id: number, withinMs = this.opts.batchMs): void {
    this.pending.add(id);
    this.rounds.request(withinMs);
  }

  private kick(): void {
    this.rounds.request(this.opts.batchMs);
  }

  /** One round: scripts reloaded if Redis lost them, everything read again if asked, announced users read, changes written. */
  private async pass(): Promise<void> {
    if (this.scriptsLost) {
      await ensureScripts(this.opts.redis);
      this.scriptsLost = false;
    }
    if (this.resyncWanted) {
      this.resyncWanted = false;
      try {
        await this.loadAll(true);
      } catch (err) {
        this.resyncWanted = true;
        throw err;
      }
    }
    if (this.toFetch.size > 0) await this.fetchRound();
    if (this.pending.size === 0) return;
    try {
      await this.writeRound();
      this.noScriptInARow = 0;
    } catch (err) {
      // Go again at once (the scripts are loaded first), unless that already happened.
      if (!isNoScript(err) || ++this.noScriptInARow > 1) throw err;
    }
  }

  private async fetchRound(): Promise<void> {
    const ids = [...this.toFetch];
    this.toFetch.clear();
    const pipeline = this.opts.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.opts.keys.user(id));
    let results: [Error | null, unknown][];
    try {
      results = await execPipeline(pipeline);
    } catch (err) {
      for (const id of ids) this.toFetch.add(id);
      throw err;
    }
    let failure: Error | undefined;
    ids.forEach((id, i) => {
      const [err, hash] = results[i] ?? [new Error('no reply'), undefined];
      if (err) {
        failure ??= err;
        this.toFetch.add(id);
      } else {
        this.applyStored(id, isHash(hash) ? hash : {}, true);
      }
    });
    if (failure) throw failure;
  }

  /** Takes what Redis holds for user `id` as confirmed; false when it was left out as broken. */
  private applyStored(id: number, hash: Record<string, string>, notify: boolean): boolean {
    const slot = this.slot(id);
    const stored = parseUserHash(id, hash, slot);
    if (stored.problems.length > 0) {
      this.opts.log.warn({ key: this.opts.keys.user(id), problems: stored.problems }, 'a user record in Redis fails the schema: the broken part is left out');
    }
    const profileChanged = stored.recText !== slot.recText || (stored.profile === undefined) !== (slot.profile === undefined);
    slot.version = stored.version;
    slot.profile = stored.profile;
    slot.recText = stored.recText;
    slot.statuses = stored.statuses;
    this.recompute(id, slot);
    if (notify && profileChanged) this.opts.onRemoteChange(id);
    return stored.profile !== undefined || Object.keys(hash).length === 0;
  }

  /** `rec` after `op`; throws when the change no longer applies. */
  private apply(id: number, rec: UserRecord | undefined, op: Op): UserRecord {
    const now = this.opts.clock.now();
    if (op.kind === 'update') return this.records.prepareUpdate(id, rec, op.mutate, op.init, now);
    if (!rec) throw new StoreError('unknown-user', `user ${id} is no longer stored`);
    return this.records.prepareStatus(rec, op.service, op.change, now);
  }

  private drop(id: number, op: Op, err: unknown): void {
    const reason = err instanceof StoreError ? err.code : 'the change threw';
    this.opts.log.warn({ userId: id, change: op.kind, reason }, 'a change of a user was dropped: it no longer applies to the record as another process left it');
  }

  /** Applies the pending changes to the confirmed state: `getUser`'s view. */
  private recompute(id: number, slot: Slot): void {
    let rec = slot.deleting ? undefined : recordOf(slot);
    const kept: Op[] = [];
    for (const op of slot.ops) {
      try {
        rec = this.apply(id, rec, op);
        kept.push(op);
      } catch (err) {
        this.drop(id, op, err);
      }
    }
    slot.ops = kept;
    if (rec) this.records.put(rec);
    else this.records.remove(id);
    if (kept.length === 0 && !slot.deleting) {
      this.pending.delete(id);
      if (slot.version === 0) this.slots.delete(id);
    }
  }

  /** What to send for user `id`, or undefined when nothing is left to write. */
  private prepareWrite(id: number, slot: Slot): Write | undefined {
    const { write, dropped } = planWrite(slot, (rec, op) => this.apply(id, rec, op), (op, err) => this.drop(id, op, err));
    if (!write || dropped) this.recompute(id, slot);
    return write;
  }

  private async writeRound(): Promise<void> {
    const { redis, keys, origin } = this.opts;
    const writes: { id: number; write: Write }[] = [];
    const pipeline = redis.pipeline();
    for (const id of [...this.pending]) {
      const slot = this.slots.get(id);
      const write = slot && this.prepareWrite(id, slot);
      if (!write) {
        this.pending.delete(id);
        continue;
      }
      queueWrite(pipeline, keys, id, write, slot.version);
      writes.push({ id, write });
    }
    if (writes.length === 0) return;
    // A status write alone is not announced: every process would take it on every read of every
    // worker (the front's most CPU per read), and none needs it until a user asks (`refresh`).
    const announced = writes.filter((w) => w.write.kind !== 'status').map((w) => w.id);
    if (announced.length > 0) pipeline.publish(keys.changes, JSON.stringify({ from: origin, ids: announced }));
    const results = await execPipeline(pipeline);
    let failure: Error | undefined;
    writes.forEach(({ id, write }, i) => {
      const [err, reply] = results[i] ?? [new Error('no reply'), undefined];
      if (err) {
        failure ??= err;
        if (isNoScript(err)) this.scriptsLost = true;
      } else {
        this.acknowledge(id, write, reply);
      }
    });
    if (failure) throw failure;
  }

  private acknowledge(id: number, write: Write, reply: unknown): void {
    const slot = this.slot(id);
    if (write.kind === 'delete') {
      Object.assign(slot, { version: 0, profile: undefined, recText: undefined, statuses: {}, deleting: false });
      this.recompute(id, slot);
      return;
    }
    const [code, value] = Array.isArray(reply) ? (reply as unknown[]) : [reply, undefined];
    const done = () => {
      const sent = new Set(write.ops);
      slot.ops = slot.ops.filter((op) => !sent.has(op));
    };
    if (write.kind === 'status' && code === 0) {
      // Deleted by another process meanwhile: the statuses go with it.
      done();
      this.toFetch.add(id);
      this.recompute(id, slot);
      return;
    }
    if (code === 1) {
      if (write.kind === 'user') {
        slot.version = Number(value);
        slot.profile = profileOf(write.target);
        slot.recText = write.recText;
      }
      const statuses: Statuses = { ...slot.statuses };
      for (const service of write.touched) {
        const status = write.target.status[service];
        if (status) statuses[service] = status;
        else delete statuses[service];
      }
      slot.statuses = statuses;
      done();
      this.recompute(id, slot);
      return;
    }
    // Lost the race: count the try, then learn what the other writer left (the next round applies the changes to it).
    for (const op of write.ops) {
      op.attempts += 1;
      if (op.attempts >= MAX_ATTEMPTS) {
        slot.ops = slot.ops.filter((o) => o !== op);
        this.opts.log.error({ userId: id, change: op.kind, attempts: op.attempts }, 'gave up a change of a user: other processes kept writing the user first');
      }
    }
    if (code === 0) this.applyStored(id, hashFromList(value), true);
    else {
      // Another user holds the access key: read them, so the change meets 'access-key-taken' in the next round.
      const owner = Number(value);
      if (Number.isSafeInteger(owner)) this.toFetch.add(owner);
      this.recompute(id, slot);
    }
  }
}
