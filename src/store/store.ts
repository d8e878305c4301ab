/**
 * The embedded store (one process, no Redis): the `Store` of `port.ts` over one JSON file
 * (`DATA_DIR/db.json`, through a lowdb adapter) holding the users and the diff's alert state.
 * Everything lives in memory (`user-records.ts`, `alert-state.ts`); changes mark the store dirty
 * and one debounced write (`json-writer.ts`) saves the whole file. Writes are atomic (temp file,
 * fsync, rename) and the file is mode 0600.
 *
 * The scheduler changes something on most reads (alert entries, a subscription's status), so the
 * file is rewritten about twice a second at scale: the JSON of each user record (frozen, so it is
 * its own cache key) and of each subscription's alert entries is kept and made again only for what
 * changed. Status changes (`updateStatus`) skip the whole-record clone and schema pass of
 * `updateUser`: their few fields are checked by hand.
 *
 * Opening (`db-file.ts`) migrates the file and moves a corrupt one aside; `loadReport` tells
 * start-up what happened. Until the operator removes every moved-aside file from DATA_DIR (their
 * acknowledgement), `corruptFiles()` names them for /healthz and the log repeats the warning every
 * hour, even after restarts.
 *
 * Each alert whose send Telegram answered is also appended at once to `DATA_DIR/alerts.journal`
 * (`sent-journal.ts`), so a `kill -9` between two writes costs no repeated alert; opening folds it in.
 * What each message printed, kept a week, is appended to `DATA_DIR/prints.log` (`print-log.ts`).
 *
 * One process per DATA_DIR: opening takes `DATA_DIR/bot.lock` (see `lock.ts`), closing releases it.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Service } from '../service/services.js';
import { AlertState } from './alert-state.js';
import { AtomicJsonFile } from './atomic-json-file.js';
import { corruptCopies, loadDatabase, removeUnfinishedWrite } from './db-file.js';
import { StoreError } from './errors.js';
import { DebouncedWriter } from './json-writer.js';
import { lockDataDir, type DataDirLock } from './lock.js';
import { JOURNAL_FILE_NAME, mergeJournaled, readJournal, removeJournal, SentJournal } from './sent-journal.js';
import { LedgerBooks } from './ledger-books.js';
import { HeldPrints } from './print-store.js';
import { PRINT_LOG_FILE_NAME } from './print-log.js';
import type { AlertStateStore, LedgerStore, PrintStore, Store, StoreLoadReport, UserChangeListener } from './port.js';
import { repairFileCurrencies } from './currency-repair.js';
import { databaseSchema, SCHEMA_VERSION, type Database, type Lang, type ServiceStatus, type UserRecord } from './schema.js';
import { UserRecords, type Mutation } from './user-records.js';

/** The database file's name inside DATA_DIR. */
export const DB_FILE_NAME = 'db.json';

/** How often the log repeats that a corrupt database was moved aside and is still waiting for the operator. */
export const CORRUPT_REMINDER_MS = 60 * 60_000;
/** `corruptFiles()` looks at the directory at most this often. */
const CORRUPT_SCAN_MS = 1_000;

/** The embedded store: the `Store` seam, plus what only a file has. */
export interface JsonStore extends Store {
  /** Absolute path of the database file. */
  readonly file: string;
  /** Writes that reached the disk since open (for tests). */
  readonly writeCount: number;
  /** Everything held, as the file's data (for `npm run migrate`). */
  snapshot(): Database;
  /** Replaces everything held with `data` (validated with databaseSchema first) and schedules the write (for `npm run migrate`). */
  replaceAll(data: Database): void;
}

/** Options of `openStore`. */
export interface OpenStoreOptions {
  dataDir: string;
  logger: Logger;
  /** Timestamps (createdAt defaults, names of moved-aside files); default the system clock. */
  clock?: Clock;
  /** Longest delay between a change and its write; default 500 ms. */
  debounceMs?: number;
  /** Longest delay of the bot's own bookkeeping (alert state, read statuses); default DEFAULT_LAZY_WRITE_MS (5 s). */
  lazyWriteMs?: number;
}

/** Opens (creating DATA_DIR when missing) and loads the store. Throws StoreError 'newer-version' for a file from a newer build. */
export async function openStore(opts: OpenStoreOptions): Promise<JsonStore> {
  const clock = opts.clock ?? systemClock;
  const log = opts.logger.child({ module: 'store' });
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // Before anything touches the files: a second process would delete the live writer's temp file below.
  const lock = await lockDataDir(dataDir, log);
  try {
    const file = join(dataDir, DB_FILE_NAME);
    const adapter = new AtomicJsonFile<Database>(file, { parse: (raw) => databaseSchema.parse(raw) });
    await removeUnfinishedWrite(adapter, log);
    const { data, report, persistNow } = await loadDatabase(adapter, clock, log);
    const repaired = repairFileCurrencies(data);
    if (repaired.length > 0) log.info({ users: repaired.length }, "copied the ledger's currency onto the users whose record had none (set before the record held it)");
    const store = new LowdbStore(file, adapter, data, report, clock, log, { debounceMs: opts.debounceMs ?? 500, ...(opts.lazyWriteMs === undefined ? {} : { lazyMs: opts.lazyWriteMs }) }, lock);
    const prints = await store.openPrints(join(dataDir, PRINT_LOG_FILE_NAME), data.prints);
    const journalFile = join(dataDir, JOURNAL_FILE_NAME);
    const replayed = store.replay(journalFile);
    // db.json takes the journal's lines before the journal starts again empty (and drops prints the log now holds).
    if (persistNow || replayed || repaired.length > 0 || prints.rewrite) await store.flush(true);
    removeJournal(journalFile);
    store.startJournal(journalFile);
    await store.remindCorrupt();
    return store;
  } catch (e) {
    await lock.release();
    throw e;
  }
}

const COMMA = Buffer.from(',');
const USERS_END = Buffer.from('},"alerts":');
const LEDGER_START = Buffer.from(',"ledger":{');
// Prints live in prints.log (print-log.ts); the section stays, empty, for the file's schema.
const PRINTS_SECTION_END = Buffer.from('},"prints":{}}');

class LowdbStore implements JsonStore {
  private readonly alertState: AlertState;
  private readonly records: UserRecords;
  private readonly books = new LedgerBooks();
  private readonly ledgerStore: LedgerStore;
  private readonly heldPrints: HeldPrints;
  private readonly writer: DebouncedWriter;
  /** Each user record's JSON (UTF-8, with its key) as last written (records are frozen: a change is a new record). */
  private readonly userTexts = new WeakMap<UserRecord, Buffer>();
  private closed = false;
  private closing: Promise<void> | null = null;
  private corruptScan: { at: number; files: Promise<string[]> } | undefined;
  private readonly reminder: NodeJS.Timeout;
  private journal: SentJournal | undefined;

  constructor(
    readonly file: string,
    private readonly adapter: AtomicJsonFile<Database>,
    data: Database,
    readonly loadReport: StoreLoadReport,
    private readonly clock: Clock,
    private readonly log: Logger,
    timing: { debounceMs: number; lazyMs?: number },
    private readonly lock: DataDirLock,
  ) {
    this.records = new UserRecords(log);
    for (const user of Object.values(data.users)) this.records.load(user);
    this.writer = new DebouncedWriter({ write: () => this.writeSnapshot(), ...timing, log, file });
    const state = new AlertState(
      () => this.writer.markDirtyLater(),
      () => this.assertOpen(),
      (subKey, itemId, entry) => this.journal?.append(subKey, itemId, entry),
    );
    state.load(data.alerts);
    this.alertState = state;
    for (const [id, book] of Object.entries(data.ledger)) this.books.load(Number(id), book);
    this.ledgerStore = this.makeLedger();
    this.heldPrints = new HeldPrints(clock, () => this.assertOpen(), log);
    this.log.info({ file, users: this.records.size, alertEntries: state.size() }, 'store open');
    this.reminder = setInterval(() => void this.remindCorrupt(), CORRUPT_REMINDER_MS);
    this.reminder.unref();
  }

  corruptFiles(): Promise<string[]> {
    const now = performance.now();
    if (!this.corruptScan || now - this.corruptScan.at >= CORRUPT_SCAN_MS) {
      this.corruptScan = { at: now, files: corruptCopies(this.file) };
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

  /** Opens prints.log (taking in db.json's section of an older file): rewritten, fsynced, before db.json drops that section. */
  async openPrints(file: string, legacy: Readonly<Record<string, unknown>>): Promise<{ rewrite: boolean }> {
    const opened = this.heldPrints.open(file, legacy, (userId) => this.records.get(userId) !== undefined);
    if (opened.rewrite) await this.heldPrints.rewriteNow();
    if (opened.rewrite || opened.skipped > 0) this.log.info({ file, prints: opened.prints, torn: opened.skipped, fromDbJson: Object.keys(legacy).length }, 'loaded the prints of sent messages');
    return { rewrite: opened.rewrite };
  }

  /** Folds the sent-journal left by the last run into the alert state; true when it changed anything. */
  replay(file: string): boolean {
    const { records, skipped, found } = readJournal(file);
    if (!found) return false;
    let applied = 0;
    for (const [subKey, itemId, sent] of records) {
      // A user deleted since db.json was written stays deleted (the colon ends the user id).
      if (!this.records.get(Number(subKey.slice(0, subKey.indexOf(':'))))) continue;
      const entry = mergeJournaled(this.alertState.view(subKey).get(itemId), sent);
      if (!entry) continue;
      this.alertState.loadEntry(subKey, itemId, entry);
      applied += 1;
    }
    this.log.info({ file, lines: records.length, applied, torn: skipped }, 'folded the sent-journal of the last run into the alert state');
    return applied > 0;
  }

  /** From now on each answered send is journaled (see the header). */
  startJournal(file: string): void {
    this.journal = SentJournal.open(file, this.log);
  }

  get alerts(): AlertStateStore {
    return this.alertState;
  }

  get ledger(): LedgerStore {
    return this.ledgerStore;
  }

  get prints(): PrintStore {
    return this.heldPrints;
  }

  get writeCount(): number {
    return this.adapter.writes;
  }

  writable(): boolean {
    return !this.closed && this.writer.healthy();
  }

  getUser(id: number): Readonly<UserRecord> | undefined {
    return this.records.get(id);
  }

  updateUser(id: number, mutate: Mutation, init?: { chatId: number; lang?: Lang }): UserRecord {
    this.assertOpen();
    const next = this.records.prepareUpdate(id, this.records.get(id), mutate, init, this.clock.now());
    this.records.put(next);
    this.writer.markDirty();
    return next;
  }

  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined {
    this.assertOpen();
    const current = this.records.get(id);
    if (!current) return undefined;
    const next = this.records.prepareStatus(current, service, change, this.clock.now());
    this.records.put(next);
    this.writer.markDirtyLater();
    return next;
  }

  deleteUser(id: number): boolean {
    this.assertOpen();
    this.alertState.deleteUser(id);
    this.heldPrints.deleteUser(id);
    const hadBook = this.books.delete(id);
    if (!this.records.remove(id)) {
      if (hadBook) this.writer.markDirty();
      return false;
    }
    this.writer.markDirty();
    return true;
  }

  listUsers(): readonly UserRecord[] {
    return this.records.all();
  }

  findUserByAccessKey(accessKey: string): UserRecord | undefined {
    return this.records.findByAccessKey(accessKey);
  }

  /** One process: nobody else changes a user. */
  onUserChanged(_listener: UserChangeListener): () => void {
    return () => undefined;
  }

  /** All alert state is loaded at open. */
  async loadAlerts(_userIds: readonly number[]): Promise<void> {}

  async refreshUsers(_userIds: readonly number[]): Promise<void> {}

  snapshot(): Database {
    const users: Database['users'] = {};
    for (const user of this.records.all()) users[String(user.id)] = structuredClone(user);
    return { version: SCHEMA_VERSION, users, alerts: this.alertState.toRecords(), ledger: this.books.toRecords(), prints: this.heldPrints.toRecords() };
  }

  replaceAll(data: Database): void {
    this.assertOpen();
    const parsed = databaseSchema.parse(data);
    this.records.clear();
    for (const user of Object.values(parsed.users)) this.records.load(user);
    this.alertState.load(parsed.alerts);
    this.books.clear();
    for (const [id, book] of Object.entries(parsed.ledger)) this.books.load(Number(id), book);
    this.heldPrints.replace(parsed.prints);
    this.writer.markDirty();
  }

  /** `force` writes even when nothing changed since open (a migrated file differs from what is on disk). */
  async flush(force = false): Promise<void> {
    await Promise.all([this.writer.flush(force), this.heldPrints.settled()]);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.writer.stop();
      clearInterval(this.reminder);
      try {
        await this.writer.flush();
        // Everything journaled is in db.json now.
        this.journal?.close();
        if (this.journal) removeJournal(this.journal.file);
      } finally {
        this.journal?.close();
        // A removed user's prints leave the log before the lock goes.
        await this.heldPrints.close().catch((err: unknown) => this.log.warn({ err }, 'could not close prints.log'));
        await this.lock.release();
      }
      this.log.info({ file: this.file, writes: this.writeCount }, 'store closed');
    })();
    return this.closing;
  }

  /** The whole file, as `JSON.stringify` of the Database would give it (key order aside), from cached parts. */
  private writeSnapshot(): Promise<void> {
    const parts: Buffer[] = [Buffer.from(`{"version":${SCHEMA_VERSION},"users":{`)];
    for (const user of this.records.all()) {
      let part = this.userTexts.get(user);
      if (part === undefined) {
        part = Buffer.from(`"${user.id}":${JSON.stringify(user)}`);
        this.userTexts.set(user, part);
      }
      if (parts.length > 1) parts.push(COMMA);
      parts.push(part);
    }
    // concat, not push(...): a ledger's parts (a buffer per position) outnumber what a call's arguments may be.
    const all = parts.concat([USERS_END], this.alertState.toJsonParts(), [LEDGER_START], this.books.toJsonParts(), [PRINTS_SECTION_END]);
    // The lines so far are in this snapshot: set aside now, dropped once it is on disk.
    const journal = this.journal;
    journal?.seal();
    return this.adapter.writeJson(Buffer.concat(all)).then(() => journal?.folded());
  }

  /** The ledger seam over the books held here: each change marks the file dirty once (closing lines lazily). */
  private makeLedger(): LedgerStore {
    const books = this.books;
    const changed = <T>(value: T): T => {
      this.writer.markDirty();
      return value;
    };
    return {
      book: async (userId) => books.book(userId),
      position: async (userId, positionId) => books.position(userId, positionId),
      settings: async (userId) => books.settings(userId),
      open: async (userId) => books.open(userId),
      put: async (userId, position) => {
        this.assertOpen();
        return changed(books.put(userId, position));
      },
      remove: async (userId, positionId) => {
        this.assertOpen();
        return books.remove(userId, positionId) ? changed(true) : false;
      },
      updateSettings: async (userId, change) => {
        this.assertOpen();
        return changed(books.updateSettings(userId, change));
      },
      takeId: async (userId) => {
        this.assertOpen();
        const n = books.settings(userId).nextId;
        books.updateSettings(userId, { nextId: n + 1 });
        return changed(n.toString(36));
      },
      giveBackId: async (userId, id) => {
        this.assertOpen();
        const n = parseInt(id, 36);
        if (books.settings(userId).nextId !== n + 1) return false;
        books.updateSettings(userId, { nextId: n });
        return changed(true);
      },
      noteClose: (userId, positionId, leg, close) => {
        if (this.closed) return;
        if (books.noteClose(userId, positionId, leg, close)) this.writer.markDirtyLater();
      },
      marks: (userId) => books.marks(userId),
      size: async (userId, positionId) => books.size(userId, positionId),
      archive: async (userId, positionIds) => {
        this.assertOpen();
        return changed(books.archive(userId, positionIds));
      },
      usersWithMarks: () => books.usersWithMarks(),
      deleteUser: async (userId) => {
        this.assertOpen();
        if (books.delete(userId)) this.writer.markDirty();
      },
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed; this change would not be saved');
  }
}
