/**
 * The vault for the users' secrets, checked against the stored data before anything runs: a wrong
 * ENCRYPTION_KEY refuses the start (one line, main prints it) instead of pausing every user later.
 * Closes the store when it throws, so a failed start leaves nothing open.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { checkEncryptionKey } from '../store/key-check.js';
import type { Store } from '../store/port.js';
import { Vault } from '../store/vault.js';

export async function openCheckedVault(config: Pick<Config, 'DATA_DIR' | 'ENCRYPTION_KEY'>, store: Store, logger: Logger): Promise<Vault> {
  try {
    const vault = await Vault.open({ dataDir: config.DATA_DIR, envKey: config.ENCRYPTION_KEY, logger });
    await checkEncryptionKey({ dataDir: config.DATA_DIR, store, vault, logger });
    return vault;
  } catch (err) {
    await store.close();
    throw err;
  }
}
