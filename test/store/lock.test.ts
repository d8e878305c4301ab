/**
 * One bot process per DATA_DIR (a lock file with the pid; a dead holder's lock is taken over),
 * and a corrupt database moved aside keeps /healthz's store check false, with the reason, until
 * the operator removes the moved-aside file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { storeCheck } from '../../src/health/collect.js';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';
import { silentLogger } from '../../src/logger.js';
import { StoreError } from '../../src/store/errors.js';
import { containerId, LOCK_FILE_NAME, lockDataDir, type Identity } from '../../src/store/lock.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { captureLogs, WARN } from '../support/logs.js';
import { removeTempDirs, tempDir } from './fixtures.js';

const stores: Store[] = [];
let child: ChildProcess | undefined;
let server: HealthServer | undefined;
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined)));
  child?.kill('SIGKILL');
  child = undefined;
  await server?.close();
  server = undefined;
  await removeTempDirs();
});

async function openAt(dataDir: string, logger = silentLogger): Promise<Store> {
  const store = await openStore({ dataDir, logger, debounceMs: 10 });
  stores.push(store);
  return store;
}

async function refusal(dataDir: string): Promise<StoreError> {
  const err = await openStore({ dataDir, logger: silentLogger }).then(
    () => new Error('opened'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreError);
  expect((err as StoreError).code).toBe('locked');
  return err as StoreError;
}

/** A live process that is not this one (it only sleeps). */
function otherProcess(): Promise<number> {
  child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child!.once('spawn', () => resolve(child!.pid!));
    child!.once('error', reject);
  });
}

describe('the DATA_DIR lock', () => {
  it('refuses a second store on the same directory while the first is open, and allows it after close', async () => {
    const dir = await tempDir();
    const first = await openAt(dir);
    expect((await readFile(join(dir, LOCK_FILE_NAME), 'utf8')).split('\n')[0]).toBe(String(process.pid));
    const err = await refusal(dir);
    expect(err.message).toContain(`in use by another bot process (pid ${process.pid})`);
    expect(err.message.split('\n')).toHaveLength(1);
    await first.close();
    await expect(access(join(dir, LOCK_FILE_NAME))).rejects.toThrow();
    await openAt(dir);
  });

  it('refuses while another live process holds it, and leaves that writer\'s temp file alone', async () => {
    const dir = await tempDir();
    const pid = await otherProcess();
    await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\n`);
    await writeFile(join(dir, '.db.json.tmp'), '{"half":');
    const err = await refusal(dir);
    expect(err.message).toContain(`(pid ${pid})`);
    expect(err.message).toContain('DATA_DIR');
    expect(await readFile(join(dir, '.db.json.tmp'), 'utf8')).toBe('{"half":');
  });

  it('takes over the lock of a process that is gone, with a warning', async () => {
    const dir = await tempDir();
    const pid = await otherProcess();
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
    await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\n`);
    const log = captureLogs();
    await openAt(dir, log.logger);
    expect((await readFile(join(dir, LOCK_FILE_NAME), 'utf8')).split('\n')[0]).toBe(String(process.pid));
    expect(log.records().some((r) => r.level === WARN && String(r.msg).includes('took over the DATA_DIR lock'))).toBe(true);
  });
});

describe('the DATA_DIR lock across containers sharing a volume', () => {
  const bootId = existsSync('/proc/sys/kernel/random/boot_id') ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : '';

  it('names its holder\'s host and boot beside the pid', async () => {
    const dir = await tempDir();
    await openAt(dir);
    expect((await readFile(join(dir, LOCK_FILE_NAME), 'utf8')).split('\n').slice(0, 3)).toEqual([String(process.pid), hostname(), bootId]);
  });

  it('never takes over a lock written under another host name, whatever its pid (every container is pid 1)', async () => {
    const dir = await tempDir();
    // A pid that runs here says nothing of the other container; one that does not run here neither.
    for (const pid of [1, process.pid, 999_999]) {
      await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\nother-container-7f3a\n${bootId}\n`);
      const err = await refusal(dir);
      expect(err.message).toContain('on host other-container-7f3a');
      expect(err.message).toContain(`delete ${join(dir, LOCK_FILE_NAME)}`);
      expect(err.message.split('\n')).toHaveLength(1);
    }
  });

  it('tells apart two containers with the same host name: another container\'s lock is refused, its own (after a restart) taken over (audit 3, L9)', async () => {
    const dir = await tempDir();
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const as = (container: string) => (): Identity => ({ host: hostname(), boot: bootId || undefined, container });
    // Container A holds it as "pid 1", and container B (same host name, same boot) is pid 1 too.
    await writeFile(join(dir, LOCK_FILE_NAME), `${process.pid}\n${hostname()}\n${bootId}\n${a}\n`);
    const err = await lockDataDir(dir, silentLogger, as(b)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toContain(`in container ${a.slice(0, 12)}`);
    expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).toContain(a);
    // Container A started again: the lock naming its own pid is a leftover of its last run.
    const lock = await lockDataDir(dir, silentLogger, as(a));
    expect(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8').split('\n')[3]).toBe(a);
    await lock.release();
  });

  it('reads the container id from the mounts Docker and Podman give, or the cgroup', () => {
    const id = 'c0ffee'.repeat(10) + 'abcd';
    expect(containerId(`1 2 0:1 /var/lib/docker/containers/${id}/hostname /etc/hostname rw - ext4 /dev/sda rw\n`, '0::/\n')).toBe(id);
    expect(containerId(`1 2 0:1 /containers/storage/overlay-containers/${id}/userdata/hostname /etc/hostname rw - xfs x rw\n`, undefined)).toBe(id);
    expect(containerId('1 2 0:1 / / rw - ext4 /dev/sda rw\n', `12:pids:/docker/${id}\n`)).toBe(id);
    expect(containerId('1 2 0:1 / / rw - ext4 /dev/sda rw\n', '0::/user.slice\n')).toBeUndefined();
  });

  it('takes over a lock of this host from before the machine restarted, even when its pid runs again', async (ctx) => {
    if (bootId === '') return ctx.skip();
    const dir = await tempDir();
    const pid = await otherProcess();
    await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\n${hostname()}\n00000000-0000-0000-0000-000000000000\n`);
    const log = captureLogs();
    await openAt(dir, log.logger);
    expect(log.records().some((r) => r.level === WARN && String(r.msg).includes('from before this machine restarted'))).toBe(true);
  });

  it('reads a lock of an earlier version (the pid alone): a live holder is still refused', async () => {
    const dir = await tempDir();
    const pid = await otherProcess();
    await writeFile(join(dir, LOCK_FILE_NAME), `${pid}\n`);
    expect((await refusal(dir)).message).toContain(`(pid ${pid})`);
  });
});

describe('a corrupt database on /healthz', () => {
  it('keeps the store check false with the reason, and logs it, until the moved-aside file is removed', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'db.json'), '{ not json');
    const log = captureLogs();
    const store = await openAt(dir, log.logger);
    const [moved] = await store.corruptFiles();
    expect(moved).toBe(store.loadReport.movedAside);
    expect(log.records().some((r) => r.level === WARN && String(r.msg).includes('remove the moved-aside files'))).toBe(true);

    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [storeCheck(store)], metrics: { render: async () => '', contentType: 'text/plain' } });
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${server!.port}/healthz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, boolean>; reasons?: Record<string, string> } };
    };
    const before = await health();
    expect(before.status).toBe(503);
    expect(before.body.checks.store).toBe(false);
    expect(before.body.reasons?.store).toContain(moved);

    // A restart does not make it green either.
    await store.close();
    const again = await openAt(dir);
    server.close().catch(() => undefined);
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [storeCheck(again)], metrics: { render: async () => '', contentType: 'text/plain' } });
    expect((await health()).status).toBe(503);

    await rm(moved!);
    await new Promise((r) => setTimeout(r, 1_100));
    const after = await health();
    expect(after.status).toBe(200);
    expect(after.body.reasons).toBeUndefined();
  });
});
