/**
 * Reading `DATA_DIR/db.json` at open, for the embedded store: a temp file left by a crashed write
 * is removed (db.json is the authority), the file is migrated (`migrations.ts`) and checked
 * against `databaseSchema`. A file that is not JSON or fails the schema is moved aside to
 * `db.json.corrupt-<timestamp>`, never overwritten, and the store starts empty; a file from a newer
 * build is refused and left as it is. A migrated file is first copied to
 * `db.json.v<N>-backup-<timestamp>`.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, link, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { isErrno, type AtomicJsonFile } from './atomic-json-file.js';
import { StoreError } from './errors.js';
import { describeIssues, migrate, MigrationError } from './migrations.js';
import type { StoreLoadReport } from './port.js';
import { databaseSchema, SCHEMA_VERSION, type Database } from './schema.js';

/** What the file held, and what happened while reading it. */
export interface LoadedDatabase {
  data: Database;
  report: StoreLoadReport;
  /** True when the data differs from the file (migrated) and should be written at once. */
  persistNow: boolean;
}

/** Removes the temp file of a write that a crash cut short, if there is one. */
export async function removeUnfinishedWrite(adapter: AtomicJsonFile<Database>, log: Logger): Promise<void> {
  if (!(await exists(adapter.tempFile))) return;
  await rm(adapter.tempFile, { force: true });
  log.info({ file: adapter.tempFile }, 'removed an unfinished write left by an earlier run');
}

/** Reads, migrates and checks the file (see the header). Throws StoreError 'newer-version' for a file from a newer build. */
export async function loadDatabase(adapter: AtomicJsonFile<Database>, clock: Clock, log: Logger): Promise<LoadedDatabase> {
  const empty = (): Database => databaseSchema.parse({ version: SCHEMA_VERSION });
  const text = await adapter.readText();
  if (text === null) {
    log.info({ file: adapter.file }, 'no database yet; starting empty');
    return { data: empty(), report: {}, persistNow: false };
  }

  const corrupt = async (reason: string): Promise<LoadedDatabase> => {
    const movedAside = await moveAside(adapter.file, `corrupt-${stamp(clock)}`);
    log.warn(
      { file: adapter.file, movedAside, reason },
      'the database file is unreadable: moved it aside and started with an empty database; restore it from a backup or inspect the moved file',
    );
    return { data: empty(), report: { movedAside, corruptReason: reason }, persistNow: false };
  };

  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the file's text, which may hold access keys: say only what it is.
    return corrupt('not valid JSON');
  }

  let migrated: ReturnType<typeof migrate>;
  try {
    migrated = migrate(raw);
  } catch (e) {
    if (e instanceof MigrationError) return corrupt(e.message);
    throw e;
  }
  if (migrated.from > SCHEMA_VERSION) {
    throw new StoreError(
      'newer-version',
      `${adapter.file} has schema version ${migrated.from}, but this build reads up to ${SCHEMA_VERSION}: run a newer build or restore an older backup (the file was left as it is)`,
    );
  }

  const parsed = databaseSchema.safeParse(migrated.data);
  if (!parsed.success) return corrupt(`fails the schema: ${describeIssues(parsed.error)}`);
  const mismatch = Object.entries(parsed.data.users).find(([key, user]) => key !== String(user.id));
  if (mismatch) return corrupt(`fails the schema: users.${mismatch[0]} holds user ${mismatch[1].id}`);

  if (migrated.applied.length === 0) return { data: parsed.data, report: {}, persistNow: false };

  const migrationBackup = await backup(adapter.file, `v${migrated.from}-backup-${stamp(clock)}`);
  log.info(
    { file: adapter.file, from: migrated.from, to: SCHEMA_VERSION, steps: migrated.applied.map((s) => s.describe), migrationBackup },
    'migrated the database file',
  );
  return { data: parsed.data, report: { migratedFrom: migrated.from, migrationBackup }, persistNow: true };
}

/** The moved-aside corrupt copies of `file` (`<file>.corrupt-*`) in its directory, oldest first; none when it cannot be read. */
export async function corruptCopies(file: string): Promise<string[]> {
  const dir = dirname(file);
  const prefix = `${basename(file)}.corrupt-`;
  try {
    const names = await readdir(dir);
    return names.filter((n) => n.startsWith(prefix)).sort().map((n) => join(dir, n));
  } catch {
    // An unreadable directory is the write check's business.
    return [];
  }
}

/** A file-name-safe UTC timestamp, e.g. 2026-01-03T10-00-00-000Z. */
function stamp(clock: Clock): string {
  return new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
}

/**
 * Moves `file` to `file.<suffix>` without ever replacing an existing file (rename would):
 * a hard link fails on an existing name, so two corrupt files in one millisecond both survive.
 */
async function moveAside(file: string, suffix: string): Promise<string> {
  for (let n = 0; ; n++) {
    const target = n === 0 ? `${file}.${suffix}` : `${file}.${suffix}-${n}`;
    try {
      await link(file, target);
      await unlink(file);
      return target;
    } catch (e) {
      if (isErrno(e, 'EEXIST')) continue;
      // File systems without hard links: check, then rename.
      if (await exists(target)) continue;
      await rename(file, target);
      return target;
    }
  }
}

/** Copies `file` to `file.<suffix>` (never over an existing file), mode 0600. */
async function backup(file: string, suffix: string): Promise<string> {
  for (let n = 0; ; n++) {
    const target = n === 0 ? `${file}.${suffix}` : `${file}.${suffix}-${n}`;
    try {
      await copyFile(file, target, constants.COPYFILE_EXCL);
    } catch (e) {
      if (isErrno(e, 'EEXIST')) continue;
      throw e;
    }
    await chmod(target, 0o600);
    return target;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return false;
    throw e;
  }
}
