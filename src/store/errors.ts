/**
 * Errors of the store and the vault. Messages say what went wrong and what to do next, and never
 * carry a stored value: user records hold access keys and encrypted secrets.
 */

/** Why a store operation failed. */
export type StoreErrorCode =
  /** The database file (or the data in Redis) was written by a newer build; this one refuses to touch it. */
  | 'newer-version'
  /** The data in Redis carries a schema version this build cannot read (not a newer one). */
  | 'unknown-version'
  /** Redis could not be reached at open. */
  | 'unreachable'
  /** `updateUser` produced a record that fails the schema; nothing was changed. */
  | 'invalid-user'
  /** `updateUser` was asked for a user that does not exist and given no `init`. */
  | 'unknown-user'
  /** `alerts.set` got an entry that fails the schema (e.g. NaN); nothing was changed. */
  | 'invalid-alert-entry'
  /** `ledger.put` got a position that fails the schema; nothing was changed. */
  | 'invalid-position'
  /** The access key is already connected by another user (the service keeps one filter per key). */
  | 'access-key-taken'
  /** The store was closed; a change now would never reach the disk. */
  | 'closed'
  /** Another live bot process holds DATA_DIR's lock file. */
  | 'locked';

/** The setting an operator changes to fix a refused open: the embedded store's folder, or the cluster's Redis. */
export type StoreSetting = 'DATA_DIR' | 'REDIS_URL';

/** Thrown by the store for a refused operation; `code` is for callers, `message` for people. */
export class StoreError extends Error {
  override name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** Which setting a refused open is about (for the start-up line). */
    readonly setting: StoreSetting = 'DATA_DIR',
  ) {
    super(message);
  }
}

/** Why the vault refused. */
export type VaultErrorCode =
  /** ENCRYPTION_KEY or the key file does not hold 32 bytes in a known encoding. */
  | 'bad-key'
  /** The key file can be read by other system users. */
  | 'key-file-mode'
  /** The blob is not a `v1:` vault string. */
  | 'malformed'
  /** Authentication failed: a different key, or the blob was altered. */
  | 'auth-failed'
  /** The key is not the one the stored data was encrypted with (checked at start-up). */
  | 'wrong-key';

/** Thrown by the vault; the message never contains a key, a secret or the blob. */
export class VaultError extends Error {
  override name = 'VaultError';

  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
  }
}
