/**
 * Records in and out of Redis, checked at the edge: what a user hash or an alert hash holds is
 * parsed and validated with the store's zod schemas (`schema.ts`) before anything uses it. A value
 * that fails is reported (its key and the failing path, never the value: records hold access keys
 * and ciphertexts) and left out — one broken record never stops the process.
 */
import { z } from 'zod';
import { SERVICES, type Service } from '../service/services.js';
import { checkedEntry } from './alert-state.js';
import { describeIssues } from './migrations.js';
import { alertEntrySchema, serviceStatusSchema, userSchema, type AlertEntry, type ServiceStatus, type UserRecord } from './schema.js';

/** A user record without its statuses: what the `rec` field holds. */
export type Profile = Omit<UserRecord, 'status'>;
export type Statuses = Partial<Record<Service, ServiceStatus>>;

/** A user hash as read: absent (version 0, no profile), or a validated profile with its statuses. */
export interface StoredUser {
  version: number;
  profile: Profile | undefined;
  /** The `rec` text the profile was parsed from (to tell a changed record from a status write). */
  recText: string | undefined;
  statuses: Statuses;
  /** Why the hash was left out, or one of its status fields (no values). */
  problems: string[];
}

const STATUS_PREFIX = 's:';
const SERVICE_SET: ReadonlySet<string> = new Set(SERVICES);

export const statusField = (service: Service): string => `${STATUS_PREFIX}${service}`;

/** Whether `name` is a service (a status field's name, or a key of an announced status). */
export function isService(name: string): name is Service {
  return SERVICE_SET.has(name);
}

/** A status field's text as a status, or undefined when it fails the schema. */
export function parseStatus(text: string): ServiceStatus | undefined {
  const parsed = serviceStatusSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : undefined;
}

/** The `rec` field of a record: its JSON without `status`. */
export function encodeProfile(user: UserRecord): string {
  return JSON.stringify({ ...user, status: undefined });
}

export function profileOf(user: UserRecord): Profile {
  const { status: _status, ...profile } = user;
  return profile;
}

/** A Lua reply's flat [field, value, …] list as an object (fields defined as own properties, so `__proto__` stays a key). */
export function hashFromList(reply: unknown): Record<string, string> {
  const hash: Record<string, string> = {};
  if (!Array.isArray(reply)) return hash;
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const field: unknown = reply[i];
    const value: unknown = reply[i + 1];
    if (typeof field === 'string' && typeof value === 'string') {
      Object.defineProperty(hash, field, { value, enumerable: true, configurable: true, writable: true });
    }
  }
  return hash;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const versionSchema = z.coerce.number().int().nonnegative();

/**
 * Reads user `id`'s hash. `previous` (the profile last read, with its text) is reused when `rec`
 * has not changed, so a status write costs a status parse, not a whole-record validation.
 */
export function parseUserHash(id: number, hash: Record<string, string>, previous?: { recText: string | undefined; profile: Profile | undefined }): StoredUser {
  const problems: string[] = [];
  const absent = (version: number): StoredUser => ({ version, profile: undefined, recText: undefined, statuses: {}, problems });
  if (Object.keys(hash).length === 0) return absent(0);
  const version = versionSchema.safeParse(hash.v);
  if (!version.success) {
    problems.push('v: not a version number');
    return absent(0);
  }
  const recText = hash.rec;
  if (recText === undefined) {
    problems.push('rec: missing');
    return absent(version.data);
  }

  const statuses: Statuses = {};
  for (const [field, text] of Object.entries(hash)) {
    if (!field.startsWith(STATUS_PREFIX)) continue;
    const service = field.slice(STATUS_PREFIX.length);
    if (!SERVICE_SET.has(service)) {
      problems.push(`${field}: not a service`);
      continue;
    }
    const parsed = serviceStatusSchema.safeParse(parseJson(text));
    if (parsed.success) statuses[service as Service] = parsed.data;
    else problems.push(`${field}: ${describeIssues(parsed.error)}`);
  }

  if (previous?.profile && previous.recText === recText) {
    return { version: version.data, profile: previous.profile, recText, statuses, problems };
  }
  const raw = parseJson(recText);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push('rec: not a JSON object');
    return absent(version.data);
  }
  const parsed = userSchema.safeParse({ ...raw, status: statuses });
  if (!parsed.success) {
    problems.push(`rec: ${describeIssues(parsed.error)}`);
    return absent(version.data);
  }
  if (parsed.data.id !== id) {
    problems.push(`rec: holds user ${parsed.data.id}`);
    return absent(version.data);
  }
  return { version: version.data, profile: profileOf(parsed.data), recText, statuses, problems };
}

/** The user record a stored user stands for; undefined when absent. */
export function recordOf(stored: { profile: Profile | undefined; statuses: Statuses }): UserRecord | undefined {
  return stored.profile && { ...stored.profile, status: { ...stored.statuses } };
}

/**
 * Alert entries of one subscription's hash, in the order they were first seen (a Redis hash keeps
 * no order, and entries are added as items are first seen); `skipped` names the item ids that
 * failed the schema.
 */
export function parseEntries(hash: Record<string, string>): { entries: Map<string, AlertEntry>; skipped: string[] } {
  const found: [string, AlertEntry][] = [];
  const skipped: string[] = [];
  for (const [itemId, text] of Object.entries(hash)) {
    const raw = parseJson(text);
    // The hand check first (the hot path's), zod for anything it does not take as it is.
    const entry = checkedEntry(raw as AlertEntry) ?? alertEntrySchema.safeParse(raw).data;
    if (entry) found.push([itemId, entry]);
    else skipped.push(itemId);
  }
  found.sort(([a, x], [b, y]) => x.firstSeenAt - y.firstSeenAt || (a < b ? -1 : a > b ? 1 : 0));
  return { entries: new Map(found), skipped };
}
