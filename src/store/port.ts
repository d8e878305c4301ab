/**
 * The store seam: what the rest of the bot may ask of its database. The bot, the scheduler, the
 * notifier, the outbox's destination watch, the health checks and start-up import these interfaces
 * and never an implementation, so the embedded store (`store.ts`: one JSON file through lowdb, one
 * process) and the cluster's store (`redis-store.ts`: an in-memory replica of Redis shared by every
 * process) are interchangeable where the bot is wired (`app.ts`).
 *
 * Reads are synchronous and cheap in both: every user is held in memory. Writes are synchronous
 * too (validated and visible at once to this process) and reach the disk or Redis behind the call;
 * `flush()` waits for them.
 */
import type { Service } from '../service/services.js';
import type { Close, LedgerSettings, Position } from '../ledger/model.js';
import type { PlacedMark } from '../ledger/marks.js';
import type { IndexedBook } from '../ledger/summary.js';
import type { AlertPrint } from '../ledger/prints.js';
import type { AlertEntry, Lang, ServiceStatus, UserRecord } from './schema.js';

/** Alert state by subscription key (`${userId}:${service}`) and item id: what the diff remembers of each alerted item. */
export interface AlertStateStore {
  /** A copy of the entry; changing it changes nothing until `set`. */
  get(subKey: string, itemId: string): AlertEntry | undefined;
  /** Stores a copy of `entry` and schedules its write. Throws StoreError 'invalid-alert-entry' for an entry that
   *  fails the schema (NaN, a missing field): written, it would make the next load refuse it. */
  set(subKey: string, itemId: string, entry: AlertEntry): void;
  delete(subKey: string, itemId: string): void;
  /** Copies of the subscription's entries, in insertion order (read back from Redis: in the order first seen). */
  entries(subKey: string): [itemId: string, entry: AlertEntry][];
  /**
   * The subscription's entries without copies, for the scheduler's hot path. Entries are only
   * ever replaced by `set`, never changed in place, so a view stays consistent; do not mutate it.
   */
  view(subKey: string): ReadonlyMap<string, Readonly<AlertEntry>>;
  deleteSubscription(subKey: string): void;
  /** Every `${userId}:*` subscription. */
  deleteUser(userId: number): void;
  /** Removes entries gone before `goneBefore` and entries last seen before `seenBefore`; returns how many. */
  prune(opts: { goneBefore: number; seenBefore: number }): number;
  /** Entries held by this process, in all subscriptions. */
  size(): number;
}

/**
 * The bettor's ledger (src/ledger/): each user's positions, settings and closing lines. Reads are
 * asynchronous (the cluster reads the user's book from Redis, where a front and workers write it);
 * each change is one write of what changed (a position, the settings, a closing line), never the
 * book again. `marks` is the in-memory index of unsettled positions that the notifier and the
 * scheduler read synchronously.
 */
export interface LedgerStore {
  /** The user's book (an empty one when they have none), with the store's index of it. */
  book(userId: number): Promise<IndexedBook>;
  /** One position of the user's (undefined when they have none by that id), without reading the rest of the book. */
  position(userId: number, positionId: string): Promise<Position | undefined>;
  /** The user's ledger settings alone. */
  settings(userId: number): Promise<LedgerSettings>;
  /** Unsettled positions with something placed or a hedge open (what /open lists), oldest first; settled ones are not read. */
  open(userId: number): Promise<Position[]>;
  /** Adds or replaces a position (validated with positionSchema; refused: StoreError 'invalid-position'). */
  put(userId: number, position: Position): Promise<Position>;
  /** Removes one position with its closing lines and its alert mark (the user's 🗑 Delete); false when there was none. */
  remove(userId: number, positionId: string): Promise<boolean>;
  /** Changes the settings; returns them. */
  updateSettings(userId: number, change: Partial<LedgerSettings>): Promise<LedgerSettings>;
  /** Takes the next position id (base 36). */
  takeId(userId: number): Promise<string>;
  /**
   * Gives `id` back when it is still the last one taken (a refused record, or 🗑 on the newest
   * position), so the numbers users see stay contiguous; true when it was given back.
   */
  giveBackId(userId: number, id: string): Promise<boolean>;
  /** Records a valuebet leg's last-seen odds (the bot's bookkeeping: written lazily). */
  noteClose(userId: number, positionId: string, leg: number, close: Close): void;
  /** Unsettled positions by `${service}:${itemId}` (see `markKey`). */
  marks(userId: number): ReadonlyMap<string, PlacedMark>;
  /** Users with any unsettled position. */
  usersWithMarks(): number[];
  /** Removes the user's whole ledger. */
  deleteUser(userId: number): Promise<void>;
  /** How many positions the user holds, and whether `positionId` is one of them (the bound on a ledger's size). */
  size(userId: number, positionId: string): Promise<{ positions: number; has: boolean }>;
  /** Removes these positions and their closing lines (/archive, after the user got them as a file); returns how many went. */
  archive(userId: number, positionIds: readonly string[]): Promise<number>;
}

/**
 * What each sent message printed (`src/ledger/prints.ts`), so its ✅ Placed records that for a week
 * whatever happened to the item. `put` is synchronous (written behind, like alert state); `get`
 * reads the shared copy (in a cluster a worker printed it, a front is pressed). Both stores drop a
 * print PRINT_TTL_MS after its `sentAt`, on the store's clock.
 */
export interface PrintStore {
  /** Keeps `print` (validated: a bad one throws) under the user; the same id again refreshes its time. */
  put(userId: number, print: AlertPrint): void;
  /** The user's print, or undefined when unknown or expired. */
  get(userId: number, id: string): Promise<AlertPrint | undefined>;
  /** Every print of the user. */
  deleteUser(userId: number): void;
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
  /** Records that failed the schema and were left out (Redis: each logged with its key, never its values). */
  skippedRecords?: number;
}

/** Called with the id of a user whose record another process changed or deleted. */
export type UserChangeListener = (userId: number) => void;

/** The users and the alert state, in memory, saved behind the calls. */
export interface Store {
  /** The stored record; frozen (change it through `updateUser`). */
  getUser(id: number): Readonly<UserRecord> | undefined;
  /** Creates the user with schema defaults when missing (init required then), applies `mutate` to a draft, validates the
   *  result with userSchema (a mutation that breaks the schema throws and changes nothing), stores it, schedules a write.
   *  `mutate` must be synchronous and change only the draft: a store shared between processes may apply it again to a
   *  newer copy of the record that another process wrote meanwhile, so that neither change is lost.
   *  Throws StoreError: 'unknown-user', 'invalid-user', 'access-key-taken' (the draft's access key belongs to another
   *  user), 'closed'. Returns the stored (frozen) record. */
  updateUser(id: number, mutate: (draft: UserRecord) => void, init?: { chatId: number; lang?: Lang }): UserRecord;
  /**
   * Changes one subscription's status fields, as `updateUser` would with
   * `draft.status[service] = { ...current, ...change }` (missing status: all null), without cloning
   * and re-validating the whole record. Undefined when there is no such user (nothing changed).
   * Throws as `updateUser` does for a value the schema refuses.
   */
  updateStatus(id: number, service: Service, change: Partial<ServiceStatus>): UserRecord | undefined;
  /** Removes the user, all their alert state and their ledger; false when there was no such user. */
  deleteUser(id: number): boolean;
  /** All users (frozen records; the embedded store keeps insertion order). */
  listUsers(): readonly UserRecord[];
  findUserByAccessKey(accessKey: string): UserRecord | undefined;
  readonly alerts: AlertStateStore;
  readonly ledger: LedgerStore;
  readonly prints: PrintStore;
  /**
   * Subscribes to changes of user records made by OTHER processes sharing the store (a worker
   * learns that the front changed a user's filters, keys or settings); returns the unsubscribe
   * function. Changes this process makes are not reported: its own callers know about them. Nor
   * is a change to a subscription's `status` alone: the worker that reads a subscription writes it
   * every few reads, and no other process needs it until a user asks (/status, /connect), so it is not
   * announced at all; a process that shows statuses calls `refreshUsers` first. The embedded store has
   * no other process, so it never calls the listener.
   */
  onUserChanged(listener: UserChangeListener): () => void;
  /**
   * Reads these users' records again from the shared store, with the statuses other processes wrote
   * (which are not announced); resolves when they are in `getUser`. Called before statuses are shown
   * and when a worker takes users over. The embedded store holds every record already: a no-op.
   */
  refreshUsers(userIds: readonly number[]): Promise<void>;
  /**
   * (Re)loads these users' alert state from the shared store, replacing what this process held
   * for them, so that a worker that takes over users continues their diffs where the last holder
   * left them. Resolves when loaded. The embedded store holds all alert state already: a no-op.
   */
  loadAlerts(userIds: readonly number[]): Promise<void>;
  /** Writes now whatever is pending (the embedded store: the file; Redis: user writes and alert state). */
  flush(): Promise<void>;
  /** Flushes and releases what the store holds (lock file, connections); later changes throw StoreError 'closed'. */
  close(): Promise<void>;
  /** Problems met on load (e.g. a corrupt file moved aside), for start-up reporting. */
  readonly loadReport: StoreLoadReport;
  /** For health checks: false once closed, and while the latest write attempt has failed (it is being retried). */
  writable(): boolean;
  /**
   * Moved-aside corrupt database files (`db.json.corrupt-*`) still in DATA_DIR, newest last: while
   * any is there, the bot may be running without the data it had. Removing them is how the operator
   * says they have dealt with it. The Redis store moves nothing aside (a broken record is skipped
   * and logged): always empty there.
   */
  corruptFiles(): Promise<string[]>;
}
