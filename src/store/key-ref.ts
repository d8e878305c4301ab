/**
 * A user's stored key pair as the service client takes it. The secret is decrypted only when the
 * client reveals it for a token request, from the record as it is then: a key replaced or
 * removed since is never used.
 */
import type { AccessKeyRef } from '../service/client-types.js';
import { ServiceError } from '../service/errors.js';
import type { UserRecord } from './schema.js';
import type { Store } from './port.js';
import type { SecretBinding } from './vault.js';

/** Opens a stored secret (the `Vault` fits). */
export interface SecretOpener {
  decrypt(blob: string, binding: SecretBinding): string;
}

export function storedKeyRef(
  store: Pick<Store, 'getUser'>,
  vault: SecretOpener,
  userId: number,
  accessKey: string,
): AccessKeyRef {
  return {
    accessKey,
    revealSecret() {
      const key = store.getUser(userId)?.key;
      if (!key || key.accessKey !== accessKey) throw new ServiceError('auth', 'the key pair was removed');
      try {
        return vault.decrypt(key.secretEnc, { userId, accessKey });
      } catch {
        throw new ServiceError('auth', 'the stored secret cannot be decrypted (the encryption key changed): connect the key again');
      }
    },
  };
}

/** The key pair `user` has stored, as the client takes it; undefined when none is connected. */
export function userKeyRef(
  rt: { store: Pick<Store, 'getUser'>; vault: SecretOpener },
  user: Readonly<UserRecord> | undefined,
): AccessKeyRef | undefined {
  return user?.key ? storedKeyRef(rt.store, rt.vault, user.id, user.key.accessKey) : undefined;
}
