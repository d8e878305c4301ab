/**
 * The vault for the users' secrets, checked against the stored data before anything runs: a wrong
 * ENCRYPTION_KEY refuses the start (one line, main prints it) instead of pausing every user later.
 * Closes the store when it throws, so a failed start leaves nothing open. With no secret stored
 * yet, the key's fingerprint is written when the first one is sealed.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { checkEncryptionKey, writeFingerprint } from '../store/key-check.js';
import type { Store } from '../store/port.js';
import { Vault } from '../store/vault.js';

export async function openCheckedVault(config: Pick<Config, 'DATA_DIR' | 'ENCRYPTION_KEY'>, store: Store, logger: Logger): Promise<Vault> {
  try {
    const vault = await Vault.open({ dataDir: config.DATA_DIR, envKey: config.ENCRYPTION_KEY, logger });
    const { fingerprinted } = await checkEncryptionKey({ dataDir: config.DATA_DIR, store, vault, logger });
    if (!fingerprinted) {
      // Nothing stored yet: the key is recorded with the first secret, so a start that fails
      // before any user connects leaves no fingerprint to refuse the next key over.
      vault.afterFirstSeal(() =>
        writeFingerprint(config.DATA_DIR, vault).then(
          () => logger.info({ module: 'key-check' }, 'stored the encryption key fingerprint with the first secret; a different key will be refused at start-up'),
          (err: unknown) => logger.warn({ err, module: 'key-check' }, 'could not store the encryption key fingerprint: the next start checks the key by opening the stored secrets'),
        ),
      );
    }
    return vault;
  } catch (err) {
    await store.close();
    throw err;
  }
}
