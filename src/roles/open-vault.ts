/**
 * The vault for the users' secrets, checked against the stored data before anything runs: a wrong
 * ENCRYPTION_KEY refuses the start (one line, main prints it) instead of pausing every user later.
 * Closes the store when it throws, so a failed start leaves nothing open. With no secret stored
 * yet, the key's fingerprint is written when the first one is sealed. In the cluster the
 * fingerprint is also kept in Redis (`shared`), for every process of the cluster to compare with.
 * The first format's secrets are re-sealed bound to their user at the first start only (`resealOnce`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { checkEncryptionKey, resealLegacySecrets, wrongKey, writeFingerprint } from '../store/key-check.js';
import { writePrivateFile } from '../store/private-file.js';
import type { Store } from '../store/port.js';
import { Vault } from '../store/vault.js';

/** The cluster's copy of the key's fingerprint (in Redis): one value for every process of the cluster. */
export interface SharedKeyCheck {
  /** Where it is kept, for the refusal's line. */
  readonly where: string;
  get(): Promise<string | null>;
  /** Sets it unless one is set; true when this call set it. */
  setIfAbsent(fingerprint: string): Promise<boolean>;
  /** Removes it while it still holds `fingerprint`. */
  deleteIf(fingerprint: string): Promise<void>;
}

export async function openCheckedVault(
  config: Pick<Config, 'DATA_DIR' | 'ENCRYPTION_KEY'>,
  store: Store,
  logger: Logger,
  shared?: SharedKeyCheck,
): Promise<Vault> {
  const log = logger.child({ module: 'key-check' });
  try {
    const vault = await Vault.open({ dataDir: config.DATA_DIR, envKey: config.ENCRYPTION_KEY, logger });
    const { fingerprinted, stored } = await checkEncryptionKey({ dataDir: config.DATA_DIR, store, vault, logger });
    const mine = vault.fingerprint();
    if (shared) {
      const theirs = await shared.get();
      if (theirs !== null && theirs !== mine) {
        if (stored > 0) throw wrongKey(`checked against ${shared.where}`);
        await shared.deleteIf(theirs);
        log.info('removed the cluster\'s fingerprint of another encryption key: no secret is stored under it');
      }
      if (stored > 0 && theirs !== mine && !(await shared.setIfAbsent(mine)) && (await shared.get()) !== mine) {
        throw wrongKey(`checked against ${shared.where}`);
      }
    }
    if (!fingerprinted || (shared && stored === 0)) {
      // Nothing stored yet: the key is recorded with the first secret, so a start that fails
      // before any user connects leaves no fingerprint to refuse the next key over.
      vault.afterFirstSeal(async () => {
        try {
          if (!fingerprinted) await writeFingerprint(config.DATA_DIR, vault);
          if (shared && !(await shared.setIfAbsent(mine)) && (await shared.get()) !== mine) {
            log.error(`another process of the cluster stored a secret under another encryption key: ${shared.where} differs; give every process the same ENCRYPTION_KEY`);
            return;
          }
          log.info('stored the encryption key fingerprint with the first secret; a different key will be refused at start-up');
        } catch (err) {
          log.warn({ err }, 'could not store the encryption key fingerprint: the next start checks the key by opening the stored secrets');
        }
      });
    }
    await resealOnce(config.DATA_DIR, store, vault, logger);
    return vault;
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The file that says this DATA_DIR's start has re-sealed the first format's secrets once. */
export const RESEALED_FILE_NAME = 'encryption.resealed';

/**
 * Re-seals the first format's secrets (`v1`, bound to no user) the first time only. After that the
 * vault refuses `v1` from the start: a `v1` blob from an old backup pasted into some record (by
 * whoever can write Redis) is not opened and bound to that record at the next start (audit 3, L2).
 * The mark is a file in DATA_DIR, where that writer cannot reach.
 */
async function resealOnce(dataDir: string, store: Store, vault: Vault, logger: Logger): Promise<void> {
  const mark = join(dataDir, RESEALED_FILE_NAME);
  if (existsSync(mark)) {
    vault.refuseUnbound();
    return;
  }
  resealLegacySecrets(store, vault, logger);
  await writePrivateFile(mark, 'the secrets of the first format (v1) were re-sealed bound to their user; v1 is refused from now on\n');
}
