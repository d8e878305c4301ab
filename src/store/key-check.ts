/**
 * The encryption key against the stored data, at start-up. A wrong or changed ENCRYPTION_KEY
 * (or a replaced DATA_DIR/encryption.key) used to surface only at the first token request, as
 * "the service no longer accepts your key pair" for every user: it was our key, not the service.
 * Now the bot refuses to start with one line naming ENCRYPTION_KEY.
 *
 * The check: `DATA_DIR/encryption.check` holds a fingerprint of the key (an HMAC of a fixed text
 * under the key, which reveals nothing of it). Without that file (data from an earlier version),
 * the stored secrets are test-decrypted: when users have secrets and none opens, the key is wrong.
 *
 * The fingerprint speaks for stored secrets, so it exists only once one does: it is written when
 * the first secret is sealed (`Vault.afterFirstSeal`), or at a start that finds secrets opening
 * with the key. With no secret stored any key is accepted, and a fingerprint left with nothing
 * behind it (a first start that failed, every user gone) is removed: a person who sets
 * ENCRYPTION_KEY after a failed first start is not refused over data that does not exist.
 *
 * Earlier versions paused every user for 'auth' when the key was wrong. On the start that first
 * writes the fingerprint, subscriptions paused for 'auth' whose secret opens with this key are
 * resumed: the key was the likely cause, and a pair the service really refuses is paused again at
 * its first read.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { isErrno } from './atomic-json-file.js';
import { VaultError } from './errors.js';
import type { Store } from './port.js';
import { writePrivateFile } from './private-file.js';
import { Vault, type SecretBinding } from './vault.js';

/** The fingerprint file's name inside DATA_DIR. */
export const KEY_CHECK_FILE_NAME = 'encryption.check';

export interface KeyCheckOptions {
  dataDir: string;
  store: Pick<Store, 'listUsers' | 'updateUser'>;
  vault: Pick<Vault, 'decrypt' | 'fingerprint'>;
  logger: Logger;
}

/** What the read-only check found: how many users have a stored secret and whose secret opens. */
export interface KeyMatch {
  stored: number;
  /** Users whose secret was test-decrypted with the key (empty when the fingerprint file decided). */
  opened: ReadonlySet<number>;
  /** Whether `DATA_DIR/encryption.check` decided (then nothing was decrypted). */
  byFingerprint: boolean;
  /** A fingerprint file of another key with no secret behind it: the start removes it. */
  staleFingerprint: boolean;
}

/** The one line of a refused key, said alike by the embedded bot, the cluster and the doctor; `how` says what it was checked against. */
export function wrongKey(how: string): VaultError {
  return new VaultError(
    'wrong-key',
    `ENCRYPTION_KEY does not match the key the stored secrets were encrypted with (${how}): set it (or DATA_DIR/encryption.key) back to that key; nothing was changed`,
  );
}

/**
 * The read-only half of the check, shared with `npm run doctor`: throws VaultError 'wrong-key'
 * (one line naming ENCRYPTION_KEY) when the key cannot be the stored data's, writes nothing.
 */
export async function matchEncryptionKey({ dataDir, store, vault }: {
  dataDir: string;
  store: { listUsers(): readonly { id: number; key: { accessKey: string; secretEnc: string } | null }[] };
  vault: Pick<Vault, 'decrypt' | 'fingerprint'>;
}): Promise<KeyMatch> {
  const file = join(dataDir, KEY_CHECK_FILE_NAME);
  const wrong = wrongKey;
  const withKey = store.listUsers().filter((u) => u.key !== null);
  const stored = await readCheck(file);
  // Nothing sealed: no key can be wrong, whatever an old fingerprint says.
  if (withKey.length === 0) return { stored: 0, opened: new Set(), byFingerprint: false, staleFingerprint: stored !== null && stored !== vault.fingerprint() };
  if (stored !== null) {
    if (stored !== vault.fingerprint()) throw wrong(`checked against ${file}`);
    return { stored: withKey.length, opened: new Set(), byFingerprint: true, staleFingerprint: false };
  }

  const opens = (blob: string, binding: SecretBinding) => {
    try {
      vault.decrypt(blob, binding);
      return true;
    } catch {
      return false;
    }
  };
  const opened = new Set(withKey.filter((u) => opens(u.key!.secretEnc, { userId: u.id, accessKey: u.key!.accessKey })).map((u) => u.id));
  if (opened.size === 0) throw wrong(`none of the ${withKey.length} stored secrets can be decrypted with it`);
  return { stored: withKey.length, opened, byFingerprint: false, staleFingerprint: false };
}

/** Writes the key's fingerprint beside the data, whole or not at all (others starting beside this process may read it). */
export async function writeFingerprint(dataDir: string, vault: Pick<Vault, 'fingerprint'>): Promise<void> {
  await writePrivateFile(join(dataDir, KEY_CHECK_FILE_NAME), `${vault.fingerprint()}\n`);
}

/**
 * Throws VaultError 'wrong-key' (one line naming ENCRYPTION_KEY) when the key cannot be the stored
 * data's; returns how many subscriptions were resumed, and whether the fingerprint is on disk (when
 * not, nothing is stored yet and the caller writes it with the first secret).
 */
export async function checkEncryptionKey({ dataDir, store, vault, logger }: KeyCheckOptions): Promise<{ resumed: number; fingerprinted: boolean; stored: number }> {
  const log = logger.child({ module: 'key-check' });
  const file = join(dataDir, KEY_CHECK_FILE_NAME);
  const match = await matchEncryptionKey({ dataDir, store, vault });
  if (match.byFingerprint) return { resumed: 0, fingerprinted: true, stored: match.stored };
  if (match.stored === 0) {
    if (match.staleFingerprint) {
      await rm(file, { force: true });
      log.info({ file }, 'removed the fingerprint of another encryption key: no secret is stored under it; the new one is written with the first stored secret');
      return { resumed: 0, fingerprinted: false, stored: 0 };
    }
    return { resumed: 0, fingerprinted: (await readCheck(file)) !== null, stored: 0 };
  }
  const { opened } = match;
  const withKey = store.listUsers().filter((u) => u.key !== null);

  let resumed = 0;
  for (const user of withKey) {
    if (!opened.has(user.id)) continue;
    const paused = Object.values(user.filters).filter((f) => f.paused && f.pausedReason === 'auth').length;
    if (paused === 0) continue;
    store.updateUser(user.id, (draft) => {
      for (const filter of Object.values(draft.filters)) {
        if (filter.paused && filter.pausedReason === 'auth') {
          filter.paused = false;
          filter.pausedReason = null;
        }
      }
    });
    resumed += paused;
  }
  await writeFingerprint(dataDir, vault);
  if (resumed > 0) log.info({ resumed }, 'resumed subscriptions paused for a refused key pair by an earlier version: the encryption key is right now');
  log.info({ file }, 'stored the encryption key fingerprint; a different key will be refused at start-up');
  return { resumed, fingerprinted: true, stored: match.stored };
}

async function readCheck(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return null;
    throw e;
  }
}

/**
 * Re-seals the secrets stored in the first format (`v1`, bound to no user) as `v2`, bound to
 * their user and access key, then makes the vault refuse `v1` blobs: from then on a blob copied
 * into another user's record does not open. A blob that does not open is left as it is (its user
 * is asked to connect again at the first read, as before). Returns how many were re-sealed.
 */
export function resealLegacySecrets(
  store: Pick<Store, 'listUsers' | 'updateUser'>,
  vault: Pick<Vault, 'decrypt' | 'encrypt' | 'refuseUnbound'>,
  logger: Logger,
): number {
  let resealed = 0;
  for (const user of store.listUsers()) {
    const key = user.key;
    if (!key || !Vault.isLegacy(key.secretEnc)) continue;
    const binding = { userId: user.id, accessKey: key.accessKey };
    let plain: string;
    try {
      plain = vault.decrypt(key.secretEnc, binding);
    } catch {
      continue;
    }
    const sealed = vault.encrypt(plain, binding);
    store.updateUser(user.id, (draft) => {
      // Another process may have re-sealed or replaced it meanwhile: only this very blob is swapped.
      if (draft.key?.secretEnc === key.secretEnc && draft.key.accessKey === key.accessKey) draft.key.secretEnc = sealed;
    });
    resealed++;
  }
  vault.refuseUnbound();
  if (resealed > 0) logger.child({ module: 'key-check' }).info({ resealed }, 're-sealed stored secrets bound to their user and access key');
  return resealed;
}
