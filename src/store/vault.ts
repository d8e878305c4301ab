/**
 * The secret vault: AES-256-GCM (node:crypto) for the users' access secrets at rest.
 *
 * The key comes from ENCRYPTION_KEY (64 hex or 44 base64 characters) or, when that is not set,
 * from `DATA_DIR/encryption.key` (64 hex characters, mode 0600), which is generated on first start.
 * A blob is `v2:<iv>:<tag>:<ciphertext>`, each part base64url. The associated data binds it to
 * the version and to its owner (user id and access key): a blob copied into another user's record,
 * or beside another access key, does not open. Blobs of the first format (`v1`, bound to the
 * version only) still open where nothing refuses them, and the start re-seals them as `v2`
 * (`resealLegacySecrets`); after that the vault refuses `v1` (`refuseUnbound`), so an old backup's
 * blob pasted into a record cannot open either.
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../logger.js';
import { knownSecrets } from '../log-redaction.js';
import { isErrno } from './atomic-json-file.js';
import { VaultError } from './errors.js';
import { createPrivateFile } from './private-file.js';

export { VaultError, type VaultErrorCode } from './errors.js';

/** The key file's name inside DATA_DIR. */
export const KEY_FILE_NAME = 'encryption.key';

const LEGACY_VERSION = 'v1';
const VERSION = 'v2';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const LEGACY_AAD = Buffer.from(`bb-alert-bot:${LEGACY_VERSION}`);

/** Whose secret a blob is: it opens only for the same user and access key. */
export interface SecretBinding {
  userId: number;
  accessKey: string;
}

function boundAad(binding: SecretBinding): Buffer {
  // JSON, so no user id and access key can be made to read as another pair.
  return Buffer.from(`bb-alert-bot:${VERSION}:${JSON.stringify([binding.userId, binding.accessKey])}`);
}
/** Fixed salt of `deriveKey` (the master key is already uniformly random; the salt only separates this use). */
const HKDF_SALT = Buffer.from('bb-alert-bot:hkdf:v1');
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Options of `Vault.open`. */
export interface VaultOpenOptions {
  dataDir: string;
  /** ENCRYPTION_KEY: 64 hex or 44 base64 characters. When absent, the key file is used (and made on first start). */
  envKey?: string;
  logger: Logger;
}

/** Encrypts and decrypts short secrets with one AES-256-GCM key; the key never leaves the instance. */
export class Vault {
  /** Where the key came from, for start-up reporting. */
  readonly keySource: 'env' | 'file' | 'generated';
  // A KeyObject prints as `SecretKeyObject { ... }` without its bytes, and a private field is not enumerable.
  readonly #key: KeyObject;
  /** Runs once, at the first `encrypt` (the key check's fingerprint is written with the first secret). */
  #afterFirstSeal: (() => Promise<void>) | null = null;
  #firstSeal: Promise<void> = Promise.resolve();
  #legacyOpens = true;

  private constructor(key: KeyObject, keySource: 'env' | 'file' | 'generated') {
    this.#key = key;
    this.keySource = keySource;
  }

  /**
   * The vault with ENCRYPTION_KEY, or with DATA_DIR/encryption.key (generated with mode 0600 and a
   * warning on first start). Throws VaultError 'bad-key' for a key in no known form and
   * 'key-file-mode' for a key file other users can read.
   */
  static async open(opts: VaultOpenOptions): Promise<Vault> {
    const log = opts.logger.child({ module: 'vault' });
    const dataDir = resolve(opts.dataDir);
    const file = join(dataDir, KEY_FILE_NAME);
    if (opts.envKey !== undefined && opts.envKey.trim() !== '') {
      const key = decodeEnvKey(opts.envKey.trim());
      if (await differsFromKeyFile(file, key)) {
        log.warn(
          { file },
          'ENCRYPTION_KEY differs from the key file in DATA_DIR; using ENCRYPTION_KEY (secrets stored under the file\'s key cannot be read with it)',
        );
      }
      return new Vault(createSecretKey(key), 'env');
    }
    await mkdir(dataDir, { recursive: true, mode: 0o700 });

    const existing = await readKeyFile(file);
    if (existing) return new Vault(createSecretKey(existing), 'file');

    const key = randomBytes(KEY_BYTES);
    let created: boolean;
    try {
      created = await createKeyFile(file, key);
    } finally {
      key.fill(0);
    }
    if (!created) {
      // Another process made it between our read and our create: use theirs.
      const theirs = await readKeyFile(file);
      if (!theirs) throw new VaultError('bad-key', `${file} vanished while starting; start again`);
      return new Vault(createSecretKey(theirs), 'file');
    }
    log.warn(
      { file },
      'generated a new encryption key for the stored secrets; back this file up, or copy its content into ENCRYPTION_KEY: without it the stored secrets cannot be read and every user must /connect again',
    );
    const written = await readKeyFile(file);
    if (!written) throw new VaultError('bad-key', `${file} vanished while starting; start again`);
    return new Vault(createSecretKey(written), 'generated');
  }

  /**
   * `hook` runs once, when the next secret is sealed (in the background: `encrypt` stays
   * synchronous; `firstSealDone` waits for it). The key check records the key's fingerprint this
   * way, with the first stored secret rather than at a start that may fail.
   */
  afterFirstSeal(hook: () => Promise<void>): void {
    this.#afterFirstSeal = hook;
  }

  /** Settles when the `afterFirstSeal` hook, if it ran, has finished. */
  firstSealDone(): Promise<void> {
    return this.#firstSeal;
  }

  /**
   * `v2:<iv>:<tag>:<ciphertext>` (base64url), with a fresh random 12-byte IV each time, bound to
   * `binding`. Without a binding: the first format (`v1`), for tests of the migration only.
   */
  encrypt(plain: string, binding?: SecretBinding): string {
    // Not registered with the logs here: a pair is sealed before the service has checked it, and
    // a "secret" that is a JSON fragment or a word must not be cut from later lines (audit 3, M1).
    const hook = this.#afterFirstSeal;
    if (hook !== null) {
      this.#afterFirstSeal = null;
      this.#firstSeal = hook();
    }
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(binding ? boundAad(binding) : LEGACY_AAD);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [binding ? VERSION : LEGACY_VERSION, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join(':');
  }

  /**
   * The plain text of a blob from `encrypt`, for the user and access key it was sealed for.
   * Throws VaultError 'malformed' or 'auth-failed' (a wrong key, an altered blob, another owner's
   * blob, or a `v1` blob once `refuseUnbound` was called).
   */
  decrypt(blob: string, binding?: SecretBinding, options: { unproven?: boolean } = {}): string {
    const parts = blob.split(':');
    const version = parts[0];
    if (parts.length !== 4 || (version !== VERSION && version !== LEGACY_VERSION) || !parts.slice(1).every((p) => BASE64URL.test(p))) {
      throw new VaultError('malformed', 'the stored secret is not in the vault format (v2:iv:tag:data)');
    }
    const [, ivText = '', tagText = '', ctText = ''] = parts;
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    const ct = Buffer.from(ctText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new VaultError('malformed', 'the stored secret is not in the vault format (v2:iv:tag:data)');
    }
    const refused = () =>
      // node:crypto's own message says little; this one says what to do.
      new VaultError(
        'auth-failed',
        'cannot decrypt the stored secret: the encryption key differs from the one it was stored with, or the data was altered; the user must /connect again',
      );
    if (version === VERSION && binding === undefined) throw refused();
    if (version === LEGACY_VERSION && !this.#legacyOpens) throw refused();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(version === VERSION && binding ? boundAad(binding) : LEGACY_AAD);
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
      // From now on every log line of this process cuts it by value; a pair the service has not yet
      // accepted (connect's check) is registered by the caller once it is.
      if (options.unproven !== true) knownSecrets.add(plain);
      return plain;
    } catch {
      throw refused();
    }
  }

  /** Whether `blob` is of the first format, bound to no user (re-sealed at start). */
  static isLegacy(blob: string): boolean {
    return blob.startsWith(`${LEGACY_VERSION}:`);
  }

  /** From now on `v1` blobs do not open: called once the start has re-sealed them all. */
  refuseUnbound(): void {
    this.#legacyOpens = false;
  }

  /** A fingerprint of the key (HMAC-SHA256 of a fixed text, 128 bits in hex): tells keys apart, reveals nothing of them. */
  fingerprint(): string {
    return createHmac('sha256', this.#key).update('bb-alert-bot:key-check').digest('hex').slice(0, 32);
  }

  /**
   * A key of its own for another kind of data (HKDF-SHA256 of this key, `purpose` as the info):
   * the cluster's token cache encrypts with one, so the secrets' key never encrypts anything else
   * and neither key can be worked out from the other.
   */
  deriveKey(purpose: string): KeyObject {
    const raw = Buffer.from(hkdfSync('sha256', this.#key, HKDF_SALT, `bb-alert-bot:${purpose}`, KEY_BYTES));
    try {
      return createSecretKey(raw);
    } finally {
      // The KeyObject holds its own copy.
      raw.fill(0);
    }
  }

  /** Keeps the key out of JSON dumps of objects that hold a vault. */
  toJSON(): { keySource: string } {
    return { keySource: this.keySource };
  }
}

function decodeEnvKey(text: string): Buffer {
  const key = HEX_KEY.test(text) ? Buffer.from(text, 'hex') : BASE64_KEY.test(text) ? Buffer.from(text, 'base64') : null;
  if (!key || key.length !== KEY_BYTES) {
    throw new VaultError(
      'bad-key',
      'ENCRYPTION_KEY must be 32 bytes as 64 hex characters or 44 base64 characters (openssl rand -hex 32)',
    );
  }
  return key;
}

/** True when a usable key file exists and holds another key; an unusable one is not this check's business. */
async function differsFromKeyFile(file: string, key: Buffer): Promise<boolean> {
  try {
    const stored = await readKeyFile(file);
    return stored !== null && !timingSafeEqual(stored, key);
  } catch {
    return false;
  }
}

/** The key in `file`, or null when there is no file. */
async function readKeyFile(file: string): Promise<Buffer | null> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return null;
    throw e;
  }
  // Windows has no POSIX modes to check.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new VaultError(
      'key-file-mode',
      `${file} can be read by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): run chmod 600 on it`,
    );
  }
  const text = (await readFile(file, 'utf8')).trim();
  knownSecrets.pin(text);
  if (!HEX_KEY.test(text)) {
    throw new VaultError(
      'bad-key',
      `${file} does not hold a key as 64 hex characters: restore it from your backup (without it the stored secrets cannot be read), or move it away to start over`,
    );
  }
  return Buffer.from(text, 'hex');
}

/** Writes the key as hex (copyable into ENCRYPTION_KEY), mode 0600; false when the file already exists. */
function createKeyFile(file: string, key: Buffer): Promise<boolean> {
  return createPrivateFile(file, `${key.toString('hex')}\n`);
}
