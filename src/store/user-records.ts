/**
 * The users in memory, as both stores hold them: frozen records by id, an index by access key, a
 * cached list, and the one place that turns `updateUser`'s mutation (or `updateStatus`'s change)
 * into a validated record. Computing a change (`prepare*`) and storing it (`put`) are separate
 * steps, so the Redis store can apply the same mutation again to a newer copy of the record (see
 * `redis-users.ts`) with exactly the checks the embedded store makes.
 *
 * Records are deep-frozen, so a caller's stray assignment throws instead of silently skipping the
 * write; a change is always a new record.
 */
import type { Logger } from '../logger.js';
import type { Service } from '../service/services.js';
import { StoreError } from './errors.js';
import { describeIssues } from './migrations.js';
import { userSchema, type Lang, type ServiceStatus, type UserRecord } from './schema.js';

/** The mutation and creation arguments of `updateUser`. */
export type Mutation = (draft: UserRecord) => void;
export interface UserInit {
  chatId: number;
  lang?: Lang;
}

/** Freezes a stored record all the way down, so a caller's stray assignment throws instead of skipping the write. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export const emptyStatus = (): ServiceStatus => ({ lastGoodReadAt: null, lastAlertAt: null, lastError: null });

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

function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The users by id, with their access-key index. */
export class UserRecords {
  private readonly users = new Map<number, UserRecord>();
  private readonly byAccessKey = new Map<string, number>();
  private list: readonly UserRecord[] | null = null;

  constructor(private readonly log: Logger) {}

  get(id: number): UserRecord | undefined {
    return this.users.get(id);
  }

  get size(): number {
    return this.users.size;
  }

  /** All users (frozen, in insertion order); the array is cached until the next change. */
  all(): readonly UserRecord[] {
    this.list ??= Object.freeze(Array.from(this.users.values()));
    return this.list;
  }

  findByAccessKey(accessKey: string): UserRecord | undefined {
    const id = this.byAccessKey.get(accessKey);
    return id === undefined ? undefined : this.users.get(id);
  }

  /** Adds a loaded (validated) record; of two users holding one access key, lookups find the first. */
  load(user: UserRecord): void {
    this.users.set(user.id, deepFreeze(user));
    this.list = null;
    const accessKey = user.key?.accessKey;
    if (accessKey === undefined) return;
    const owner = this.byAccessKey.get(accessKey);
    if (owner === undefined) this.byAccessKey.set(accessKey, user.id);
    else if (owner !== user.id) this.log.warn({ userId: user.id, otherUserId: owner }, 'two users hold the same access key; lookups by key find the first');
  }

  /**
   * The record `updateUser(id, mutate, init)` would store when the user's current record is
   * `base` (undefined: not stored), frozen; nothing is changed here. Throws StoreError
   * 'unknown-user', 'invalid-user' or 'access-key-taken' (checked against this index), or what
   * `mutate` throws.
   */
  prepareUpdate(id: number, base: UserRecord | undefined, mutate: Mutation, init: UserInit | undefined, now: number): UserRecord {
    let draft: UserRecord;
    if (base) {
      draft = structuredClone(base);
    } else {
      if (!init) throw new StoreError('unknown-user', `user ${id} is not stored; pass init to create them`);
      const fresh = userSchema.safeParse({ id, chatId: init.chatId, lang: init.lang, createdAt: now });
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

    const newKey = next.key?.accessKey;
    if (newKey !== undefined && newKey !== base?.key?.accessKey) {
      const owner = this.byAccessKey.get(newKey);
      if (owner !== undefined && owner !== id) {
        throw new StoreError('access-key-taken', `this access key is already connected by another user; nothing was changed`);
      }
    }
    return next;
  }

  /**
   * The record `updateStatus` would store for `current`, frozen: the status fields merged without
   * cloning and re-validating the whole record when `change` holds plain values; through
   * `prepareUpdate` otherwise (so the schema says what is wrong, or applies its defaults).
   */
  prepareStatus(current: UserRecord, service: Service, change: Partial<ServiceStatus>, now: number): UserRecord {
    if (!plainStatusChange(change)) {
      return this.prepareUpdate(
        current.id,
        current,
        (draft) => {
          draft.status[service] = { ...(draft.status[service] ?? emptyStatus()), ...change };
        },
        undefined,
        now,
      );
    }
    const lastError = change.lastError;
    const status: ServiceStatus = {
      ...(current.status[service] ?? emptyStatus()),
      ...change,
      ...(lastError ? { lastError: { kind: lastError.kind, at: lastError.at } } : {}),
    };
    return deepFreeze({ ...current, status: { ...current.status, [service]: status } });
  }

  /** Stores `next` (frozen) in place of the user's record, following a change of access key in the index. */
  put(next: UserRecord): void {
    const id = next.id;
    const oldKey = this.users.get(id)?.key?.accessKey;
    const newKey = next.key?.accessKey;
    this.users.set(id, deepFreeze(next));
    if (oldKey !== newKey) {
      if (oldKey !== undefined && this.byAccessKey.get(oldKey) === id) this.byAccessKey.delete(oldKey);
      if (newKey !== undefined) this.byAccessKey.set(newKey, id);
    }
    this.list = null;
  }

  /** Removes the user; their record, or undefined when there was none. */
  remove(id: number): UserRecord | undefined {
    const user = this.users.get(id);
    if (!user) return undefined;
    this.users.delete(id);
    const accessKey = user.key?.accessKey;
    if (accessKey !== undefined && this.byAccessKey.get(accessKey) === id) this.byAccessKey.delete(accessKey);
    this.list = null;
    return user;
  }

  /** Forgets every user. */
  clear(): void {
    this.users.clear();
    this.byAccessKey.clear();
    this.list = null;
  }
}
