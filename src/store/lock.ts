/**
 * One bot process per DATA_DIR: `DATA_DIR/bot.lock` holds the pid of the process that owns the
 * directory, with its host name and the machine's boot id on the next lines. A second process
 * would write the same db.json and delete the live writer's temp file at start-up, so it is
 * refused with one line naming the holder. A lock whose pid is no longer running (a crash) is
 * taken over with a warning; so is one from an earlier boot of this machine, and one naming this
 * very pid but not held in this process (containers reuse pid 1).
 *
 * Containers sharing a volume see each other's lock but not each other's processes: every one is
 * pid 1, and "pid 1 is running" says nothing about another container. So a lock written under
 * another host name (a container's host name is its own) is never taken over by guessing: the
 * start is refused, naming that host, until it stops (releasing the lock) or the file is deleted.
 * Two containers can share a host name (host networking, an explicit `hostname:`), so the lock also
 * holds the container's id where the process runs in one (read from the mounts the runtime gives
 * it: the same across restarts of one container, different between two): another container's lock
 * is refused like another host's (audit 3, L9).
 */
import { readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
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
export async function lockDataDir(dataDir: string, log: Logger, identity: () => Identity = thisMachine): Promise<DataDirLock> {
  const file = join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (heldHere.has(file)) throw refusal(dataDir, file, process.pid);
    if (await create(file, identity())) {
      heldHere.add(file);
      let released = false;
      return {
        file,
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          if ((await readHolder(file))?.pid === process.pid) await rm(file, { force: true });
        },
      };
    }
    const holder = await readHolder(file);
    const pid = holder?.pid;
    const here = identity();
    if (holder?.host !== undefined && holder.host !== here.host) throw refusalElsewhere(dataDir, file, holder.pid, holder.host);
    if (holder?.container !== undefined && holder.container !== here.container) throw refusalElsewhere(dataDir, file, holder.pid, `${holder.host ?? '?'} in container ${holder.container.slice(0, 12)}`);
    const sameBoot = holder?.boot === undefined || here.boot === undefined || holder.boot === here.boot;
    if (pid !== undefined && pid !== process.pid && sameBoot && isRunning(pid)) throw refusal(dataDir, file, pid);
    log.warn({ file, stalePid: pid ?? null }, sameBoot ? 'took over the DATA_DIR lock of a bot process that is no longer running' : 'took over the DATA_DIR lock of a bot process from before this machine restarted');
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

function refusalElsewhere(dataDir: string, file: string, pid: number | undefined, host: string): StoreError {
  return new StoreError(
    'locked',
    `DATA_DIR ${dataDir} is in use by a bot process on host ${host} (pid ${pid ?? '?'}; another container sharing this volume?): stop it first or give this one its own DATA_DIR; if no bot runs on ${host}, delete ${file}`,
  );
}

/** Where a process runs: its host name, the machine's boot id and its container's id (each undefined where it cannot be read). */
export interface Identity {
  host: string;
  boot: string | undefined;
  container: string | undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The id of the container this process runs in: Docker and Podman mount the container's own
 * `hostname` file from a folder named by its 64-hex id (cgroup v1 also names it in /proc/self/cgroup).
 */
export function containerId(mountinfo: string | undefined, cgroup: string | undefined): string | undefined {
  return (
    /\/([0-9a-f]{64})\/(?:userdata\/)?hostname\s/.exec(mountinfo ?? '')?.[1] ??
    /(?:docker|libpod|containerd)[-/:]([0-9a-f]{64})/.exec(cgroup ?? '')?.[1]
  );
}

function thisMachine(): Identity {
  return {
    host: hostname(),
    boot: readText('/proc/sys/kernel/random/boot_id')?.trim() || undefined,
    container: containerId(readText('/proc/self/mountinfo'), readText('/proc/self/cgroup')),
  };
}

/** Creates the lock file with our pid; false when it already exists. */
async function create(file: string, { host, boot, container }: Identity): Promise<boolean> {
  try {
    const handle = await open(file, 'wx', 0o600);
    try {
      // Pid first, alone on its line, as earlier versions read it.
      await handle.writeFile(`${process.pid}\n${host}\n${boot ?? ''}\n${container ?? ''}\n`, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  }
}

/**
 * Who holds the lock: its pid (undefined when the file holds none: a crash while writing it), and
 * the host name, boot id and container id when written (an earlier version wrote the pid only). Undefined when
 * there is no file.
 */
async function readHolder(file: string): Promise<{ pid: number | undefined; host: string | undefined; boot: string | undefined; container: string | undefined } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
  const [pidLine = '', host = '', boot = '', container = ''] = text.split('\n').map((l) => l.trim());
  return {
    pid: /^\d{1,10}$/.test(pidLine) ? Number(pidLine) : undefined,
    host: host === '' ? undefined : host,
    boot: boot === '' ? undefined : boot,
    container: container === '' ? undefined : container,
  };
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
