/** The user's stored key pair as the client takes it: the secret is decrypted only when revealed. */
import type { AccessKeyRef } from '../../service/client-types.js';
import type { UserRecord } from '../../store/schema.js';
import type { Vault } from '../../store/vault.js';

export function keyRefFor(vault: Vault, user: Readonly<UserRecord> | undefined): AccessKeyRef | undefined {
  const key = user?.key;
  if (!key) return undefined;
  const { accessKey, secretEnc } = key;
  return { accessKey, revealSecret: () => vault.decrypt(secretEnc) };
}
