/**
 * A lowdb adapter that writes JSON atomically and privately: the text goes to a temp file
 * created with mode 0600, is fsynced, then renamed over the target. lowdb's own JSONFile (steno)
 * is atomic too, but its temp file takes the process umask (usually 0644), and the rename would
 * hand that mode to a file holding access keys; it also never fsyncs, so a power cut right after
 * the rename can leave an empty file on some file systems.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';

export interface AtomicJsonFileOptions<T> {
  /** Turns parsed JSON into `T` (validating it); used by `read()`. */
  parse: (raw: unknown) => T;
  /** File mode of the written file; default 0600. */
  mode?: number;
}

/** `Adapter<T>` for lowdb's `Low`: atomic, fsynced, mode-0600 JSON writes, one at a time. */
export class AtomicJsonFile<T> implements Adapter<T> {
  /** Where a write is staged before the rename (`.db.json.tmp` beside `db.json`). */
  readonly tempFile: string;
  private readonly mode: number;
  private readonly parse: (raw: unknown) => T;
  private queue: Promise<void> = Promise.resolve();
  private count = 0;

  constructor(
    readonly file: string,
    options: AtomicJsonFileOptions<T>,
  ) {
    this.tempFile = join(dirname(file), `.${basename(file)}.tmp`);
    this.mode = options.mode ?? 0o600;
    this.parse = options.parse;
  }

  /** How many writes reached the disk (renamed into place) since this adapter was made. */
  get writes(): number {
    return this.count;
  }

  /** The file's text, or null when there is no file. */
  async readText(): Promise<string | null> {
    try {
      return await readFile(this.file, 'utf8');
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return null;
      throw e;
    }
  }

  async read(): Promise<T | null> {
    const text = await this.readText();
    return text === null ? null : this.parse(JSON.parse(text));
  }

  /** Serializes `data` now (a snapshot) and writes it after any write already under way. */
  write(data: T): Promise<void> {
    return this.writeJson(JSON.stringify(data));
  }

  /** Writes JSON the caller serialized (e.g. from cached parts; bytes are UTF-8), after any write already under way. */
  writeJson(text: string | Buffer): Promise<void> {
    const run = this.queue.then(() => this.writeText(text));
    // The queue only orders writes; a failed write's error goes to its own caller through `run`.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async writeText(text: string | Buffer): Promise<void> {
    try {
      const handle = await open(this.tempFile, 'w', this.mode);
      try {
        // A temp file left by a crash keeps its old mode when reopened with 'w'.
        await handle.chmod(this.mode);
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(this.tempFile, this.file);
    } catch (e) {
      // Tidying after a failed write: the write's own error, thrown below, says what went wrong, and a
      // temp file left behind is truncated and reused by the next write (a missing one is no error).
      await rm(this.tempFile, { force: true }).catch(() => undefined);
      throw e;
    }
    this.count += 1;
    await syncDirectory(dirname(this.file));
  }
}

/** Makes the rename itself durable; not every platform can fsync a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the rename is best effort; the data itself was fsynced.
  }
}

/** True when `e` is a Node system error with this `code`. */
export function isErrno(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && (e as { code?: unknown }).code === code;
}
