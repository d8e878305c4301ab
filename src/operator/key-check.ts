/**
 * Whether the encryption key opens the stored secrets: one test decryption of one user's stored
 * secret (the first found). The start-up check of the store (issue 10) may replace this with a
 * key fingerprint; the doctor only needs the yes or no.
 */
import { VaultError } from '../store/errors.js';
import { OperatorError } from './data-dir.js';

export interface KeyCheck {
  /** Users with a stored secret; 0 means there was nothing to check against. */
  stored: number;
}

/** Throws OperatorError naming ENCRYPTION_KEY when the first stored secret does not decrypt. */
export function verifyEncryptionKey(users: readonly { key: { secretEnc: string } | null }[], vault: { decrypt(blob: string): string }): KeyCheck {
  const withKey = users.filter((u) => u.key !== null);
  const first = withKey[0]?.key;
  if (!first) return { stored: 0 };
  try {
    vault.decrypt(first.secretEnc);
  } catch (err) {
    if (!(err instanceof VaultError)) throw err;
    throw new OperatorError(
      'ENCRYPTION_KEY',
      `ENCRYPTION_KEY: the key does not open the stored secrets (${withKey.length} users connected): restore the key they were stored with (ENCRYPTION_KEY or DATA_DIR/encryption.key from your backup)`,
    );
  }
  return { stored: withKey.length };
}
