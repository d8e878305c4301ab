/**
 * The bot's database: one JSON file (`DATA_DIR/db.json`, through a lowdb adapter) holding the users
 * and the diff's alert state. Everything lives in memory (with an index by access key); changes mark
 * the store dirty and one debounced write saves the whole file at most once per `debounceMs`, however
 * many changes came in (longer apart for a very large file: see `writeDelay`). Writes are atomic
 * (temp file, fsync, rename) and the file is mode 0600.
 *
 * The scheduler changes something on most reads (alert entries, a subscription's status), so the
 * file is rewritten about twice a second at scale: the JSON of each user record (frozen, so it is
 * its own cache key) and of each subscription's alert entries is kept and made again only for what
 * changed. Status changes (`updateStatus`) skip the whole-record clone and schema pass of
 * `updateUser`: their few fields are checked by hand.
 *
 * On open the file is migrated (`migrations.ts`) and checked against `databaseSchema`. A file that
 * is not JSON or fails the schema is moved aside to `db.json.corrupt-<timestamp>`, never
 * overwritten, and the store starts empty; `loadReport` tells start-up what happened. Until the
 * operator removes every moved-aside file from DATA_DIR (their acknowledgement), `corruptFiles()`
 * names them for /healthz and the log repeats the warning every hour, even after restarts.
 *
 * One process per DATA_DIR: opening takes `DATA_DIR/bot.lock` (see `lock.ts`), closing releases it.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, link, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { AlertState, type AlertStateStore } from './alert-state.js';
import { AtomicJsonFile, isErrno } from './atomic-json-file.js';
import { StoreError } from './errors.js';
import { lockDataDir, type DataDirLock } from './lock.js';
import { describeIssues, migrate, MigrationError } from './migrations.js';
import {
  databaseSchema,
  SCHEMA_VERSION,
  userSchema,
  type Database,
  type Lang,
  type ServiceStatus,
  type UserRecord,
} from './schema.js';
import type { Service } from '../service/services.js';

export type { AlertStateStore } from './alert-state.js';

/** The database file's name inside DATA_DIR. */
export const DB_FILE_NAME = 'db.json';

/** How often the log repeats that a corrupt database was moved aside and is still waiting for the operator. */
export const CORRUPT_REMINDER_MS = 60 * 60_000;
/** `corruptFiles()` looks at the directory at most this often. */
const CORRUPT_SCAN_MS = 1_000;

/** Longest wait between retries of a failing background write. */
const MAX_RETRY_DELAY_MS = 60_000;

/** Serializing holds the event loop; a write waits at least this many times as long as the last one blocked. */
const BLOCKING_SPACING_FACTOR = 10;
/** ... but never longer than this, so a change reaches the disk within half a minute. */
const MAX_WRITE_DELAY_MS = 30_000;

/**
 * How long a change waits for its write: `debounceMs`, stretched for a large file so that turning
 * it into JSON (which blocks the event loop: about 0.5 s for 5,000 users with 100,000 alert entries)
 * takes at most a tenth of the time.
 */
export function writeDelay(debounceMs: number, lastBlockedMs: number): number {
  return Math.max(debounceMs, Math.min(lastBlockedMs * BLOCKING_SPACING_FACTOR, MAX_WRITE_DELAY_MS));
}

/** What happened while opening, for start-up reporting. */
export interface StoreLoadReport {
  /** Where a corrupt file was moved (the store then started empty). */
  movedAside?: string;
  /** Why it was judged corrupt (no stored values in it). */
  corruptReason?: string;
  /** The schema version the file had before it was migrated. */
  migratedFrom?: number;
  /** A copy of the file as it was before migrating. */
  migrationBackup?: string;
}

/** The users and the alert state, in memory, saved by a debounced atomic write. */
export interface Store {
  /** Absolute path of the database file. */
  readonly file: string;
  /** The stored record; frozen (change it through `updateUser`). */
  getUser(id: number): Readonly<UserRecord> | undefined;
  /** Creates the user with schema defaults when missing (init required then), applies `mutate` to a draft, validates the
   *  result with userSchema (a mutation that breaks the schema throws and changes nothing), stores it, schedules a write.
   *  `mutate` must be synchronous. Throws StoreError: 'unknown-user', 'invalid-user', 'access-key-taken' (the draft's
   *  access key belongs to another user), 'closed'. Returns the stored (frozen) record. */
  updateUser(id: number, mutate: (draft: UserRecord) => void, init?: { chatId: number; lang?: Lang }): UserRecord;
  /**
   * Changes one subscription's status fields, as `updateUser` would with
   * `draft.status[service] = { ...current, ...change }` (missing status: all null), without cloning
   * and re-validating the whole record. Undefined when there is no such user (nothing changed).
   * Throws as `updateUser` does for a value the schema refuses.
   */
  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined;
  /** Removes the user and all their alert state; false when there was no such user. */
  deleteUser(id: number): boolean;
  /** All users (frozen records, in insertion order). */
  listUsers(): readonly UserRecord[];
  findUserByAccessKey(accessKey: string): UserRecord | undefined;
  readonly alerts: AlertStateStore;
  /** Writes now if anything changed (atomic: temp file + fsync + rename). */
  flush(): Promise<void>;
  /** Flushes and stops the debounce timer; later changes throw StoreError 'closed'. */
  close(): Promise<void>;
  /** Problems met on load (e.g. a corrupt file moved aside), for start-up reporting. */
  readonly loadReport: StoreLoadReport;
  /** Writes that reached the disk since open (for /stats and tests). */
  readonly writeCount: number;
  /** For health checks: false once closed, and while the latest write attempt has failed (it is being retried). */
  writable(): boolean;
  /**
   * Moved-aside corrupt database files (`db.json.corrupt-*`) still in DATA_DIR, newest last: while
   * any is there, the bot may be running without the data it had. Removing them is how the operator
   * says they have dealt with it.
   */
  corruptFiles(): Promise<string[]>;
}

/** Options of `openStore`. */
export interface OpenStoreOptions {
  dataDir: string;
  logger: Logger;
  /** Timestamps (createdAt defaults, names of moved-aside files); default the system clock. */
  clock?: Clock;
  /** Longest delay between a change and its write; default 500 ms. */
  debounceMs?: number;
}

/** Opens (creating DATA_DIR when missing) and loads the store. Throws StoreError 'newer-version' for a file from a newer build. */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const clock = opts.clock ?? systemClock;
  const log = opts.logger.child({ module: 'store' });
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Before anything touches the files: a second process would delete the live writer's temp file below.
  const lock = await lockDataDir(dataDir, log);
  try {
    const file = join(dataDir, DB_FILE_NAME);
    const adapter = new AtomicJsonFile<Database>(file, { parse: (raw) => databaseSchema.parse(raw) });

    // db.json is the authority; a temp file is a write that a crash cut short.
    if (await exists(adapter.tempFile)) {
      await rm(adapter.tempFile, { force: true });
      log.info({ file: adapter.tempFile }, 'removed an unfinished write left by an earlier run');
    }

    const { data, report, persistNow } = await loadDatabase(adapter, clock, log);
    const store = new LowdbStore(file, adapter, data, report, clock, log, opts.debounceMs ?? 500, lock);
    if (persistNow) await store.flush(true);
    await store.remindCorrupt();
    return store;
  } catch (e) {
    await lock.release();
    throw e;
  }
}

interface Loaded {
  data: Database;
  report: StoreLoadReport;
  /** True when the data differs from the file (migrated) and should be written at once. */
  persistNow: boolean;
}

async function loadDatabase(adapter: AtomicJsonFile<Database>, clock: Clock, log: Logger): Promise<Loaded> {
  const empty = (): Database => databaseSchema.parse({ version: SCHEMA_VERSION });
  const text = await adapter.readText();
  if (text === null) {
    log.info({ file: adapter.file }, 'no database yet; starting empty');
    return { data: empty(), report: {}, persistNow: false };
  }

  const corrupt = async (reason: string): Promise<Loaded> => {
    const movedAside = await moveAside(adapter.file, `corrupt-${stamp(clock)}`);
    log.warn(
      { file: adapter.file, movedAside, reason },
      'the database file is unreadable: moved it aside and started with an empty database; restore it from a backup or inspect the moved file',
    );
    return { data: empty(), report: { movedAside, corruptReason: reason }, persistNow: false };
  };

  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the file's text, which may hold access keys: say only what it is.
    return corrupt('not valid JSON');
  }

  let migrated: ReturnType<typeof migrate>;
  try {
    migrated = migrate(raw);
  } catch (e) {
    if (e instanceof MigrationError) return corrupt(e.message);
    throw e;
  }
  if (migrated.from > SCHEMA_VERSION) {
    throw new StoreError(
      'newer-version',
      `${adapter.file} has schema version ${migrated.from}, but this build reads up to ${SCHEMA_VERSION}: run a newer build or restore an older backup (the file was left as it is)`,
    );
  }

  const parsed = databaseSchema.safeParse(migrated.data);
  if (!parsed.success) return corrupt(`fails the schema: ${describeIssues(parsed.error)}`);
  const mismatch = Object.entries(parsed.data.users).find(([key, user]) => key !== String(user.id));
  if (mismatch) return corrupt(`fails the schema: users.${mismatch[0]} holds user ${mismatch[1].id}`);

  if (migrated.applied.length === 0) return { data: parsed.data, report: {}, persistNow: false };

  const migrationBackup = await backup(adapter.file, `v${migrated.from}-backup-${stamp(clock)}`);
  log.info(
    { file: adapter.file, from: migrated.from, to: SCHEMA_VERSION, steps: migrated.applied.map((s) => s.describe), migrationBackup },
    'migrated the database file',
  );
  return { data: parsed.data, report: { migratedFrom: migrated.from, migrationBackup }, persistNow: true };
}

/** A file-name-safe UTC timestamp, e.g. 2026-01-03T10-00-00-000Z. */
function stamp(clock: Clock): string {
  return new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
}

/**
 * Moves `file` to `file.<suffix>` without ever replacing an existing file (rename would):
 * a hard link fails on an existing name, so two corrupt files in one millisecond both survive.
 */
async function moveAside(file: string, suffix: string): Promise<string> {
  for (let n = 0; ; n++) {
    const target = n === 0 ? `${file}.${suffix}` : `${file}.${suffix}-${n}`;
    try {
      await link(file, target);
      await unlink(file);
      return target;
    } catch (e) {
      if (isErrno(e, 'EEXIST')) continue;
      // File systems without hard links: check, then rename.
      if (await exists(target)) continue;
      await rename(file, target);
      return target;
    }
  }
}

/** Copies `file` to `file.<suffix>` (never over an existing file), mode 0600. */
async function backup(file: string, suffix: string): Promise<string> {
  for (let n = 0; ; n++) {
    const target = n === 0 ? `${file}.${suffix}` : `${file}.${suffix}-${n}`;
    try {
      await copyFile(file, target, constants.COPYFILE_EXCL);
    } catch (e) {
      if (isErrno(e, 'EEXIST')) continue;
      throw e;
    }
    await chmod(target, 0o600);
    return target;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return false;
    throw e;
  }
}

/** Freezes a stored record all the way down, so a caller's stray assignment throws instead of skipping the write. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const isNullableNumber = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isFinite(v));

/** Whether `change` holds only status fields with values `serviceStatusSchema` takes as they are. */
function plainStatusChange(change: Partial<ServiceStatus>): boolean {
  for (const [field, value] of Object.entries(change)) {
    if (field === 'lastGoodReadAt' || field === 'lastAlertAt') {
      if (!isNullableNumber(value)) return false;
    } else if (field === 'lastError') {
      if (value === null) continue;
      if (typeof value !== 'object' || Object.keys(value as object).length !== 2) return false;
      const { kind, at } = value as { kind?: unknown; at?: unknown };
      if (typeof kind !== 'string' || typeof at !== 'number' || !Number.isFinite(at)) return false;
    } else {
      return false;
    }
  }
  return true;
}

const COMMA = Buffer.from(',');
const USERS_END = Buffer.from('},"alerts":');
const CLOSE = Buffer.from('}');

const emptyStatus = (): ServiceStatus => ({ lastGoodReadAt: null, lastAlertAt: null, lastError: null });

function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

class LowdbStore implements Store {
  private readonly alertState: AlertState;
  /** Each user record's JSON (UTF-8, with its key) as last written (records are frozen: a change is a new record). */
  private readonly userTexts = new WeakMap<UserRecord, Buffer>();
  private readonly users = new Map<number, UserRecord>();
  private readonly byAccessKey = new Map<string, number>();
  private usersList: readonly UserRecord[] | null = null;
  private dirty = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | null = null;
  private failures = 0;
  private lastBlockedMs = 0;
  private corruptScan: { at: number; files: Promise<string[]> } | undefined;
  private readonly reminder: NodeJS.Timeout;

  constructor(
    readonly file: string,
    private readonly adapter: AtomicJsonFile<Database>,
    data: Database,
    readonly loadReport: StoreLoadReport,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly debounceMs: number,
    private readonly lock: DataDirLock,
  ) {
    for (const user of Object.values(data.users)) {
      this.users.set(user.id, deepFreeze(user));
      const accessKey = user.key?.accessKey;
      if (accessKey === undefined) continue;
      const owner = this.byAccessKey.get(accessKey);
      if (owner === undefined) this.byAccessKey.set(accessKey, user.id);
      else this.log.warn({ userId: user.id, otherUserId: owner }, 'two users hold the same access key; lookups by key find the first');
    }
    const state = new AlertState(
      () => this.markDirty(),
      () => this.assertOpen(),
    );
    state.load(data.alerts);
    this.alertState = state;
    this.log.info({ file, users: this.users.size, alertEntries: state.size() }, 'store open');
    this.reminder = setInterval(() => void this.remindCorrupt(), CORRUPT_REMINDER_MS);
    this.reminder.unref();
  }

  corruptFiles(): Promise<string[]> {
    const now = performance.now();
    if (!this.corruptScan || now - this.corruptScan.at >= CORRUPT_SCAN_MS) {
      const dir = resolve(this.file, '..');
      const prefix = `${DB_FILE_NAME}.corrupt-`;
      const files = readdir(dir).then(
        (names) => names.filter((n) => n.startsWith(prefix)).sort().map((n) => join(dir, n)),
        // An unreadable directory is the write check's business.
        () => [],
      );
      this.corruptScan = { at: now, files };
    }
    return this.corruptScan.files;
  }

  /** Logs the moved-aside files, if any are still there (at open and every CORRUPT_REMINDER_MS). */
  async remindCorrupt(): Promise<void> {
    const files = await this.corruptFiles();
    if (files.length === 0) return;
    this.log.warn(
      { files },
      'a corrupt database was moved aside and the bot started without its data: restore it from a backup, or inspect it; remove the moved-aside files from DATA_DIR once dealt with (until then /healthz reports the store as not ok)',
    );
  }

  get alerts(): AlertStateStore {
    return this.alertState;
  }

  get writeCount(): number {
    return this.adapter.writes;
  }

  writable(): boolean {
    return !this.closed && this.failures === 0;
  }

  getUser(id: number): Readonly<UserRecord> | undefined {
    return this.users.get(id);
  }

  updateUser(id: number, mutate: (draft: UserRecord) => void, init?: { chatId: number; lang?: Lang }): UserRecord {
    this.assertOpen();
    const current = this.users.get(id);
    let draft: UserRecord;
    if (current) {
      draft = structuredClone(current);
    } else {
      if (!init) throw new StoreError('unknown-user', `user ${id} is not stored; pass init to create them`);
      const fresh = userSchema.safeParse({ id, chatId: init.chatId, lang: init.lang, createdAt: this.clock.now() });
      if (!fresh.success) {
        throw new StoreError('invalid-user', `cannot create user ${id} (${describeIssues(fresh.error)}); nothing was changed`);
      }
      draft = fresh.data;
    }

    const returned: unknown = mutate(draft);
    if (isThenable(returned)) {
      throw new StoreError('invalid-user', 'updateUser takes a synchronous mutation (changes after an await would be lost); nothing was changed');
    }
    if (draft.id !== id) throw new StoreError('invalid-user', `a mutation cannot change the id of user ${id}; nothing was changed`);
    const parsed = userSchema.safeParse(draft);
    if (!parsed.success) {
      throw new StoreError('invalid-user', `user ${id} would fail the schema (${describeIssues(parsed.error)}); nothing was changed`);
    }
    const next = deepFreeze(parsed.data);

    const oldKey = current?.key?.accessKey;
    const newKey = next.key?.accessKey;
    if (newKey !== undefined && newKey !== oldKey) {
      const owner = this.byAccessKey.get(newKey);
      if (owner !== undefined && owner !== id) {
        throw new StoreError('access-key-taken', `this access key is already connected by another user; nothing was changed`);
      }
    }

    this.users.set(id, next);
    if (oldKey !== newKey) {
      if (oldKey !== undefined && this.byAccessKey.get(oldKey) === id) this.byAccessKey.delete(oldKey);
      if (newKey !== undefined) this.byAccessKey.set(newKey, id);
    }
    this.usersList = null;
    this.markDirty();
    return next;
  }

  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined {
    this.assertOpen();
    const current = this.users.get(id);
    if (!current) return undefined;
    if (!plainStatusChange(change)) {
      // Let the schema say what is wrong (or apply its defaults).
      return this.updateUser(id, (draft) => {
        draft.status[service] = { ...(draft.status[service] ?? emptyStatus()), ...change };
      });
    }
    const lastError = change.lastError;
    const status: ServiceStatus = {
      ...(current.status[service] ?? emptyStatus()),
      ...change,
      ...(lastError ? { lastError: { kind: lastError.kind, at: lastError.at } } : {}),
    };
    const next = deepFreeze({ ...current, status: { ...current.status, [service]: status } });
    this.users.set(id, next);
    this.usersList = null;
    this.markDirty();
    return next;
  }

  deleteUser(id: number): boolean {
    this.assertOpen();
    const user = this.users.get(id);
    this.alertState.deleteUser(id);
    if (!user) return false;
    this.users.delete(id);
    const accessKey = user.key?.accessKey;
    if (accessKey !== undefined && this.byAccessKey.get(accessKey) === id) this.byAccessKey.delete(accessKey);
    this.usersList = null;
    this.markDirty();
    return true;
  }

  listUsers(): readonly UserRecord[] {
    this.usersList ??= Object.freeze(Array.from(this.users.values()));
    return this.usersList;
  }

  findUserByAccessKey(accessKey: string): UserRecord | undefined {
    const id = this.byAccessKey.get(accessKey);
    return id === undefined ? undefined : this.users.get(id);
  }

  /** `force` writes even when nothing changed since open (a migrated file differs from what is on disk). */
  async flush(force = false): Promise<void> {
    if (force) this.dirty = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // One write at a time; changes made meanwhile are picked up by the next round.
    while (this.writing) await this.writing.catch(() => undefined);
    if (!this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    // Everything up to the first await is synchronous: the snapshot and JSON.stringify.
    const run = this.writeSnapshot();
    this.lastBlockedMs = performance.now() - started;
    this.writing = run;
    try {
      await run;
      this.failures = 0;
    } catch (e) {
      this.dirty = true;
      this.failures += 1;
      this.schedule(Math.min(this.debounceMs * 2 ** this.failures, MAX_RETRY_DELAY_MS));
      throw e;
    } finally {
      this.writing = null;
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      clearInterval(this.reminder);
      try {
        await this.flush();
      } finally {
        await this.lock.release();
      }
      this.log.info({ file: this.file, writes: this.writeCount }, 'store closed');
    })();
    return this.closing;
  }

  /** The whole file, as `JSON.stringify` of the Database would give it (key order aside), from cached parts. */
  private writeSnapshot(): Promise<void> {
    const parts: Buffer[] = [Buffer.from(`{"version":${SCHEMA_VERSION},"users":{`)];
    for (const [id, user] of this.users) {
      let part = this.userTexts.get(user);
      if (part === undefined) {
        part = Buffer.from(`"${id}":${JSON.stringify(user)}`);
        this.userTexts.set(user, part);
      }
      if (parts.length > 1) parts.push(COMMA);
      parts.push(part);
    }
    parts.push(USERS_END, ...this.alertState.toJsonParts(), CLOSE);
    return this.adapter.writeJson(Buffer.concat(parts));
  }

  private markDirty(): void {
    this.dirty = true;
    this.schedule(writeDelay(this.debounceMs, this.lastBlockedMs));
  }

  /** Arms the write timer unless one is armed: changes ride along, so the wait never grows past `ms`. */
  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((err: unknown) => {
        this.log.error({ err, file: this.file, failures: this.failures }, 'writing the database failed; will retry');
      });
    }, ms);
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed; this change would not be saved');
  }
}
