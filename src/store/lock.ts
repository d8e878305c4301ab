/**
 * One bot process per DATA_DIR: `DATA_DIR/bot.lock` holds the pid of the process that owns the
 * directory. A second process would write the same db.json and delete the live writer's temp
 * file at start-up, so it is refused with one line naming the holder. A lock whose pid is no
 * longer running (a crash, a killed container) is taken over with a warning; a lock naming this
 * very pid but not held in this process is stale too (containers reuse pid 1).
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { isErrno } from './atomic-json-file.js';
import { StoreError } from './errors.js';

/** The lock file's name inside DATA_DIR. */
export const LOCK_FILE_NAME = 'bot.lock';

/** Lock files held by this process (a second store on the same directory in one process is refused too). */
const heldHere = new Set<string>();

/** A held DATA_DIR lock. */
export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

/** Takes the lock of `dataDir` (which must exist). Throws StoreError 'locked' while another live process holds it. */
export async function lockDataDir(dataDir: string, log: Logger): Promise<DataDirLock> {
  const file = join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (heldHere.has(file)) throw refusal(dataDir, file, process.pid);
    if (await create(file)) {
      heldHere.add(file);
      let released = false;
      return {
        file,
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          if ((await readPid(file)) === process.pid) await rm(file, { force: true });
        },
      };
    }
    const pid = await readPid(file);
    if (pid !== undefined && pid !== process.pid && isRunning(pid)) throw refusal(dataDir, file, pid);
    log.warn({ file, stalePid: pid ?? null }, 'took over the DATA_DIR lock of a bot process that is no longer running');
    await rm(file, { force: true });
  }
  throw new StoreError('locked', `could not take the lock ${file}: another process keeps replacing it; stop the other bot process`);
}

function refusal(dataDir: string, file: string, pid: number): StoreError {
  return new StoreError(
    'locked',
    `DATA_DIR ${dataDir} is in use by another bot process (pid ${pid}): stop it first or give this one its own DATA_DIR; if no bot runs as pid ${pid}, delete ${file}`,
  );
}

/** Creates the lock file with our pid; false when it already exists. */
async function create(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(`${process.pid}\n`, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  }
}

/** The pid in the lock file; undefined when it is gone or holds no pid (a crash while writing it). */
async function readPid(file: string): Promise<number | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return isErrno(e, 'EPERM');
  }
}
