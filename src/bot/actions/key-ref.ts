/** The user's stored key pair as the client takes it (see src/store/key-ref.ts). */
import type { AccessKeyRef } from '../../service/client-types.js';
import type { UserRecord } from '../../store/schema.js';
import { storedKeyRef } from '../../store/key-ref.js';
import type { BotRuntime } from '../deps.js';

export function keyRefFor(rt: Pick<BotRuntime, 'store' | 'vault'>, user: Readonly<UserRecord> | undefined): AccessKeyRef | undefined {
  return user?.key ? storedKeyRef(rt.store, rt.vault, user.id, user.key.accessKey) : undefined;
}
