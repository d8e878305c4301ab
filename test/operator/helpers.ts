/** Shared by the operator tests: a DATA_DIR that cannot be written, a closed port, a store with one stored secret. */
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { Vault } from '../../src/store/vault.js';
import { silentLogger } from '../../src/logger.js';

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/**
 * A DATA_DIR the bot cannot write: a read-only folder, or (as root, whom modes do not stop) a
 * path under a regular file.
 */
export async function unwritableDataDir(): Promise<string> {
  const base = await tempDir('bb-ro-');
  if (process.getuid?.() === 0) {
    await writeFile(join(base, 'a-file'), '');
    return join(base, 'a-file', 'data');
  }
  const dir = join(base, 'data');
  await mkdir(dir);
  await chmod(dir, 0o500);
  return dir;
}

/** Writes db.json with one connected user whose secret is encrypted with `hexKey`; `version` overrides the schema version. */
export async function storeWithSecret(dataDir: string, hexKey: string, version = 1): Promise<void> {
  const vault = await Vault.open({ dataDir, envKey: hexKey, logger: silentLogger });
  const user = {
    id: 42,
    chatId: 42,
    key: { accessKey: 'demo-access', secretEnc: vault.encrypt('the-secret'), connectedAt: 1 },
    createdAt: 1,
  };
  await writeFile(join(dataDir, 'db.json'), JSON.stringify({ version, users: { '42': user } }));
}

/** A Data Service sandbox and a Bot API stand-in for a whole test file: started before its tests, closed after. */
export function useStandIns(): { readonly sandbox: Sandbox; readonly telegram: FakeTelegram } {
  const standIns = {} as { sandbox: Sandbox; telegram: FakeTelegram };
  beforeAll(async () => {
    standIns.sandbox = await startSandbox({});
    standIns.telegram = await startFakeTelegram({});
  });
  afterAll(async () => {
    await standIns.telegram.close();
    await standIns.sandbox.close();
  });
  return standIns;
}
