/**
 * The cluster's store: the `Store` of `port.ts` over Redis (REDIS_URL, every key under
 * REDIS_PREFIX; the layout is in `redis-layout.ts`). It sits beside the embedded store in
 * src/store/ and can be opened where `openStore` is: same interface, same schema, same checks.
 *
 * Every process holds a replica of all users (`redis-users.ts`), loaded at open, so reads stay
 * synchronous and cheap; each write goes through to Redis without lost updates between a front and
 * a worker writing one user at once, and is announced on `{p}users:changed`; every process reads
 * what others announced and tells `onUserChanged` listeners. After an interruption of that channel
 * (a Redis restart) all users are read again, since announcements may have been missed. Alert state
 * (`redis-alerts.ts`) is held only for the subscriptions this process uses and written behind.
 *
 * Secrets: a record holds only the vault's ciphertext of a user's secret, as in db.json; the
 * encryption key never reaches Redis (the vault stays with DATA_DIR or ENCRYPTION_KEY).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import { NO_AUTO_RESUBSCRIBE, resubscribing } from '../lib/redis-resubscribe.js';
import type { Logger } from '../logger.js';
import type { Service } from '../service/services.js';
import { StoreError } from './errors.js';
import type { AlertStateStore, LedgerStore, PrintStore, Store, StoreLoadReport, UserChangeListener } from './port.js';
import { checkSchemaVersion, clearStored, describeRedis, writeDatabase } from './redis-bulk.js';
import { RedisAlerts } from './redis-alerts.js';
import { currenciesToRepair, currencyOfStoredSettings, CURRENCY_REPAIRED_FIELD } from './currency-repair.js';
import { ensureScripts, execPipeline, redisKeys, type RedisKeys } from './redis-layout.js';
import { RedisLedger } from './redis-ledger.js';
import { RedisPrints } from './redis-prints.js';
import { RedisUsers } from './redis-users.js';
import { databaseSchema, SCHEMA_VERSION, type Database, type Lang, type ServiceStatus, type UserRecord } from './schema.js';
import type { Mutation } from './user-records.js';

/** Options of `openRedisStore`. */
export interface OpenRedisStoreOptions {
  /** REDIS_URL. */
  url: string;
  /** REDIS_PREFIX: every key starts with it. */
  prefix: string;
  logger: Logger;
  /** createdAt of new users; default the system clock. */
  clock?: Clock;
  /** Load every subscription's alert state at open (one process, or migrate); false leaves it to `loadAlerts`. Default true. */
  loadAllAlerts?: boolean;
  /** Longest delay between an alert state change and its write; default 500 ms. */
  alertsDebounceMs?: number;
  /** How long a user change waits for its write, so that changes made together go in one round; default 5 ms. */
  writeBatchMs?: number;
  /** The same for a change of statuses alone; default STATUS_BATCH_MS. */
  statusBatchMs?: number;
}

/**
 * How long a change of statuses alone waits for its round. A worker writes one after most reads
 * (its last alert, items left out; its last good read every 15 s): at 120 reads a second they were
 * some 58 rounds a second of one write each. A quarter of a second is nothing to a user's /status.
 */
export const STATUS_BATCH_MS = 250;

/** The Redis store: the `Store` seam, plus what `npm run migrate` needs. */
export interface RedisStore extends Store {
  /** Where the data is (the URL without credentials, and the prefix), for messages. */
  readonly where: string;
  /** Everything held, as the file's data (open with `loadAllAlerts` for the alert state and the ledgers). */
  snapshot(): Database;
  /** Replaces everything under the prefix with `data` (validated with databaseSchema first), and reloads. */
  replaceAll(data: Database): Promise<void>;
  /** Writes these users' pending alert state, then keeps it no longer for those `stillAway` says another worker polls. */
  forgetAlerts(userIds: readonly number[], stillAway: (userId: number) => boolean): Promise<void>;
  /** Each write of alert state first waits for `wait` (a worker: its alerts on the stream; see RedisAlerts.writeAfter). */
  alertWritesAfter(wait: () => Promise<void>): void;
}

const messageSchema = z.object({
  from: z.string(),
  ids: z.array(z.number().int()).default([]),
  subs: z.array(z.string()).default([]),
  /** Users whose ledger changed. */
  ledger: z.array(z.number().int()).default([]),
});

/** How long `refreshUsers` waits for Redis before the caller goes on with what this process holds. */
export const REFRESH_WAIT_MS = 2_000;

/** Opens the store: connects, checks the schema version in `{p}meta`, subscribes to the change feed, loads the users. */
export async function openRedisStore(opts: OpenRedisStoreOptions): Promise<RedisStore> {
  const log = opts.logger.child({ module: 'store' });
  const where = describeRedis(opts.url, opts.prefix);
  const keys = redisKeys(opts.prefix);
  const redis = new Redis(opts.url, { lazyConnect: true, connectionName: 'bb-store' });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const cause = lastError?.message ?? (err instanceof Error ? err.message : String(err));
    throw new StoreError('unreachable', `REDIS_URL: cannot reach Redis at ${where}: ${cause}; check that Redis runs and the address`, 'REDIS_URL');
  }
  const sub = redis.duplicate({ connectionName: 'bb-store-feed', ...NO_AUTO_RESUBSCRIBE });
  sub.on('error', () => undefined);
  try {
    await checkSchemaVersion(redis, keys, where);
    await ensureScripts(redis);
    const store = new RedisStoreImpl(redis, sub, keys, where, log, opts);
    await store.open(opts.loadAllAlerts ?? true);
    return store;
  } catch (err) {
    sub.disconnect();
    redis.disconnect();
    throw err;
  }
}

class RedisStoreImpl implements RedisStore {
  private readonly origin = randomBytes(6).toString('hex');
  private readonly users: RedisUsers;
  private readonly alertState: RedisAlerts;
  private readonly ledgerStore: RedisLedger;
  /** Every ledger, read at open with `loadAllAlerts` (for `snapshot`). */
  private ledgers: Database['ledger'] = {};
  private readonly printStore: RedisPrints;
  /** Every print, read at open with `loadAllAlerts` (for `snapshot`). */
  private printsAll: Database['prints'] = {};
  private readonly clock: Clock;
  private readonly listeners = new Set<UserChangeListener>();
  private closed = false;
  private closing: Promise<void> | null = null;
  private connected = true;
  loadReport: StoreLoadReport = {};

  constructor(
    private readonly redis: Redis,
    private readonly sub: Redis,
    private readonly keys: RedisKeys,
    readonly where: string,
    private readonly log: Logger,
    opts: OpenRedisStoreOptions,
  ) {
    const clock = opts.clock ?? systemClock;
    this.clock = clock;
    this.printStore = new RedisPrints({ redis, prefix: keys.prints, clock, log, guard: () => this.assertOpen() });
    this.users = new RedisUsers({
      redis,
      keys,
      origin: this.origin,
      clock,
      log,
      batchMs: opts.writeBatchMs ?? 5,
      statusBatchMs: opts.statusBatchMs ?? STATUS_BATCH_MS,
      onRemoteChange: (id) => this.tell(id),
    });
    this.alertState = new RedisAlerts({
      redis,
      keys,
      origin: this.origin,
      log,
      debounceMs: opts.alertsDebounceMs ?? 500,
      guard: () => this.assertOpen(),
    });
    this.ledgerStore = new RedisLedger({ redis, keys, origin: this.origin, log, guard: () => this.assertOpen() });
  }

  get ledger(): LedgerStore {
    return this.ledgerStore;
  }

  get prints(): PrintStore {
    return this.printStore;
  }

  /** Subscribes first, so that nothing written while the users load goes unannounced. */
  async open(loadAllAlerts: boolean): Promise<void> {
    this.sub.on('message', (_channel: string, text: string) => this.received(text));
    const subscribe = resubscribing(this.sub, (err) => this.log.warn({ err }, 'could not subscribe to the store\'s changes again (tried at the next reconnect)'));
    await subscribe(this.keys.changes);
    // Subscribed again after a reconnect; what was announced meanwhile is lost, so read everything again.
    this.sub.on('ready', () => {
      this.users.resync();
      this.ledgerStore.loadMarks().catch((err: unknown) => this.log.warn({ err }, 'reloading ledger marks failed'));
    });
    this.redis.on('error', (err: Error) => {
      if (!this.connected) return;
      this.connected = false;
      this.log.warn({ err, redis: this.where }, 'lost the connection to Redis; reconnecting (changes wait and are written then)');
    });
    this.redis.on('ready', () => {
      if (this.connected) return;
      this.connected = true;
      this.log.info({ redis: this.where }, 'connected to Redis again');
    });
    const broken = await this.users.loadAll(false);
    const alertEntries = loadAllAlerts ? await this.alertState.loadAll() : 0;
    await this.ledgerStore.loadMarks();
    await this.repairCurrencies();
    if (loadAllAlerts) this.ledgers = await this.ledgerStore.all();
    if (loadAllAlerts) this.printsAll = await this.printStore.all();
    if (broken.length > 0) this.loadReport = { skippedRecords: broken.length };
    this.log.info({ redis: this.where, users: this.users.records.size, alertEntries, skipped: broken.length }, 'store open');
  }

  /**
   * Once for the whole store: see currency-repair.ts. Marked done only once written, so a repair cut
   * short is tried again at the next open (two processes opening together both repairing is harmless:
   * only a record with no currency takes one). A failure leaves the store open: it is not worth a start.
   */
  private async repairCurrencies(): Promise<void> {
    try {
      if ((await this.redis.hexists(this.keys.meta, CURRENCY_REPAIRED_FIELD)) === 1) return;
      const candidates = this.users.records.all().filter((u) => u.currency === null);
      const pipeline = this.redis.pipeline();
      for (const user of candidates) pipeline.hget(this.keys.ledger(user.id), 's');
      const replies = candidates.length > 0 ? await execPipeline(pipeline) : [];
      const stored = new Map(candidates.map((u, i) => {
        const text = replies[i]?.[1];
        return [u.id, currencyOfStoredSettings(typeof text === 'string' ? text : undefined)] as const;
      }));
      const repairs = currenciesToRepair(candidates, (id) => stored.get(id));
      for (const [id, code] of repairs) this.users.update(id, (draft) => void (draft.currency ??= code), undefined);
      if (repairs.size > 0) {
        await this.users.flush();
        this.log.info({ users: repairs.size }, "copied the ledger's currency onto the users whose record had none (set before the record held it)");
      }
      await this.redis.hset(this.keys.meta, CURRENCY_REPAIRED_FIELD, String(this.clock.now()));
    } catch (err) {
      this.log.warn({ err }, "could not copy the ledger's currency onto the users whose record had none; tried again at the next open");
    }
  }

  get alerts(): AlertStateStore {
    return this.alertState;
  }

  alertWritesAfter(wait: () => Promise<void>): void {
    this.alertState.writeAfter(wait);
  }

  getUser(id: number): Readonly<UserRecord> | undefined {
    return this.users.records.get(id);
  }

  updateUser(id: number, mutate: Mutation, init?: { chatId: number; lang?: Lang }): UserRecord {
    this.assertOpen();
    return this.users.update(id, mutate, init);
  }

  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined {
    this.assertOpen();
    return this.users.updateStatus(id, service, change);
  }

  deleteUser(id: number): boolean {
    this.assertOpen();
    this.alertState.deleteUser(id);
    this.printStore.deleteUser(id);
    this.ledgerStore.deleteUser(id).catch((err: unknown) => this.log.warn({ err, userId: id }, 'deleting a ledger failed'));
    return this.users.delete(id);
  }

  listUsers(): readonly UserRecord[] {
    return this.users.records.all();
  }

  findUserByAccessKey(accessKey: string): UserRecord | undefined {
    return this.users.records.findByAccessKey(accessKey);
  }

  onUserChanged(listener: UserChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async loadAlerts(userIds: readonly number[]): Promise<void> {
    this.assertOpen();
    // Users taken over: their statuses (plan tier, left-out counts) as their last reader wrote them.
    await Promise.all([this.alertState.load(userIds), this.users.refresh(userIds)]);
  }

  async refreshUsers(userIds: readonly number[]): Promise<void> {
    this.assertOpen();
    // A user waits on this (/status): with Redis away it gives up soon, and the caller shows what it holds.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreError('unreachable', `Redis at ${this.where} did not answer within ${REFRESH_WAIT_MS} ms; the users were not read again`)), REFRESH_WAIT_MS);
    });
    try {
      await Promise.race([this.users.refresh(userIds), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async forgetAlerts(userIds: readonly number[], stillAway: (userId: number) => boolean): Promise<void> {
    this.assertOpen();
    await this.alertState.release(userIds, stillAway);
  }

  async flush(): Promise<void> {
    await this.users.flush();
    await this.alertState.flush();
    await this.ledgerStore.flush();
    await this.printStore.flush();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.users.stop();
      this.alertState.stop();
      try {
        await this.flush();
      } finally {
        this.sub.disconnect();
        await this.redis.quit().catch(() => this.redis.disconnect());
      }
      this.log.info({ redis: this.where }, 'store closed');
    })();
    return this.closing;
  }

  writable(): boolean {
    return !this.closed && this.redis.status === 'ready' && this.users.healthy() && this.alertState.healthy() && this.ledgerStore.healthy() && this.printStore.healthy();
  }

  async corruptFiles(): Promise<string[]> {
    return [];
  }

  snapshot(): Database {
    const users: Database['users'] = {};
    for (const user of this.users.records.all()) users[String(user.id)] = structuredClone(user);
    return { version: SCHEMA_VERSION, users, alerts: this.alertState.records(), ledger: structuredClone(this.ledgers), prints: structuredClone(this.printsAll) };
  }

  async replaceAll(data: Database): Promise<void> {
    this.assertOpen();
    const parsed = databaseSchema.parse(data);
    await this.flush();
    await clearStored(this.redis, this.keys);
    await writeDatabase(this.redis, this.keys, parsed, this.clock.now());
    await this.users.loadAll(false);
    this.alertState.clearLocal();
    await this.alertState.loadAll();
    await this.ledgerStore.loadMarks();
    this.ledgers = await this.ledgerStore.all();
    this.printsAll = await this.printStore.all();
  }

  private received(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const message = messageSchema.safeParse(raw);
    if (!message.success) {
      this.log.warn({ channel: this.keys.changes }, 'ignored a change announcement that is not in the store\'s format');
      return;
    }
    if (message.data.from === this.origin || this.closed) return;
    if (message.data.subs.length > 0) this.alertState.forget(message.data.subs);
    // Older versions also announce status writes (with the statuses): their users are read back like any other.
    if (message.data.ids.length > 0) this.users.fetch(message.data.ids);
    if (message.data.ledger.length > 0) {
      this.ledgerStore.loadMarks(message.data.ledger).catch((err: unknown) => this.log.warn({ err }, 'reloading ledger marks failed'));
    }
  }

  private tell(id: number): void {
    for (const listener of this.listeners) {
      try {
        listener(id);
      } catch (err) {
        this.log.error({ err, userId: id }, 'a listener of user changes threw');
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed; this change would not be saved');
  }
}
