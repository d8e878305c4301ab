/**
 * The embedded store's prints on disk: `DATA_DIR/prints.log`, one line `[key, print]` a put, written
 * with one synchronous `write` the moment the print is made (before its message is sent), so a
 * `kill -9` keeps it (the kernel holds it; a power cut keeps what the last rewrite fsynced).
 *
 * Why not db.json: a print is about 460 bytes kept a week, up to four an alert, and db.json is
 * rewritten whole on every change. At 100,000 prints (46 MB) each of its writes took 0.64 s of CPU
 * and held the event loop for half a second, every few seconds, for as long as the bot ran. The log
 * is only appended to, and rewritten with what is live once it holds twice that (plus 1 MiB), so each
 * print is written about three times in all, whatever the bot's age.
 *
 * The rewrite runs beside the bot: the live prints go to `prints.log.compacting` a chunk at a time,
 * which is then fsynced; puts meanwhile still go to the old log and are kept aside; then, in one
 * synchronous step (no put can fall between), those lines follow, the new file is renamed over the
 * log and appends continue there. Removing a user rewrites the log at once, so their prints leave the
 * disk, and opening leaves out the lines of users who no longer exist. Expired prints leave it at the
 * first sweep that drops one (`HeldPrints`), then at most an hour after their week (REWRITE_EXPIRED_MS).
 */
import { closeSync, existsSync, fchmodSync, fdatasync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AlertPrint } from '../ledger/prints.js';

/** The log's name inside DATA_DIR. */
export const PRINT_LOG_FILE_NAME = 'prints.log';
/** Where a rewrite is staged (a leftover from a crash is removed at open: the log itself is whole). */
const REWRITE_SUFFIX = '.compacting';
/** The log is rewritten once it holds more than twice its live lines' bytes plus this. */
export const REWRITE_SLACK_BYTES = 1 << 20;
/** A rewrite writes this much, then lets the event loop run. */
const CHUNK_BYTES = 1 << 20;
/** Expired prints make the log rewrite at most this often (on the store's clock). */
export const REWRITE_EXPIRED_MS = 3_600_000;
/** After a failed rewrite, the next waits at least this long (the disk is likely full). */
const RETRY_AFTER_MS = 60_000;

const datasync = promisify(fdatasync);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One line of the log: the print's key, the print as parsed JSON (not yet checked), the line's bytes. */
export type PrintLogLine = [key: string, raw: unknown, bytes: number];

/** The lines of `file` in order (none when it is missing); lines that do not parse (a torn last line) are counted, not kept. */
export function readPrintLog(file: string): { lines: PrintLogLine[]; skipped: number; bytes: number } {
  rmSync(file + REWRITE_SUFFIX, { force: true });
  const lines: PrintLogLine[] = [];
  if (!existsSync(file)) return { lines, skipped: 0, bytes: 0 };
  const text = readFileSync(file);
  let skipped = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf(10, start);
    if (end < 0) end = text.length;
    const line = parse(text.toString('utf8', start, end));
    if (line) lines.push([line[0], line[1], end + 1 - start]);
    else if (end > start) skipped += 1;
    start = end + 1;
  }
  return { lines, skipped, bytes: text.length };
}

function parse(line: string): [string, unknown] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  return Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' ? [raw[0], raw[1]] : undefined;
}

/** The open log of the prints in `live()` (the held prints, by key). */
export class PrintLog {
  /** -1 until the first append or rewrite, and after `close`. */
  private fd = -1;
  /** The log's bytes on disk, live or not. */
  private bytes: number;
  /** Each live print's line length, and their sum: what a rewrite would write. */
  private readonly lineBytes = new Map<string, number>();
  private liveBytes = 0;
  private rewriting: Promise<void> | undefined;
  /** Another rewrite was asked for while one ran (a user removed meanwhile). */
  private again = false;
  /** Lines appended while a rewrite runs, for the new file. */
  private during: Buffer[] | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  private readonly warned = new Set<string>();
  private closed = false;
  private rewrites = 0;
  /** When the last rewrite began (store clock); expired prints wait for an hour since. */
  private rewroteAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly file: string,
    private readonly live: () => Iterable<[string, AlertPrint]>,
    private readonly clock: Clock,
    private readonly log: Logger,
    bytesOnDisk: number,
  ) {
    this.bytes = bytesOnDisk;
  }

  /** What the log holds and how often it was rewritten (for tests and benchmarks). */
  stats(): { bytes: number; liveBytes: number; rewrites: number } {
    return { bytes: this.bytes, liveBytes: this.liveBytes, rewrites: this.rewrites };
  }

  /** A print read from the file is live, its line `bytes` long. */
  loaded(key: string, bytes: number): void {
    this.setLive(key, bytes);
  }

  /** Nothing is held any more (a migration replaces everything; the rewrite it asks for follows). */
  forgetAll(): void {
    this.lineBytes.clear();
    this.liveBytes = 0;
  }

  /** Writes a put print's line. Never throws: the print is held in memory either way. */
  append(key: string, print: AlertPrint): void {
    if (this.closed) return;
    const line = Buffer.from(`${JSON.stringify([key, print])}\n`);
    this.setLive(key, line.length);
    this.during?.push(line);
    try {
      if (this.fd < 0) this.openForAppend();
      writeSync(this.fd, line);
      this.bytes += line.length;
    } catch (err) {
      this.warnOnce(err, 'could not write prints.log: the buttons of messages sent since will not record a bet after a restart');
    }
    if (this.bytes > 2 * this.liveBytes + REWRITE_SLACK_BYTES) this.rewriteSoon();
  }

  /** The print is no longer held (replaced by a newer version, expired, its user removed). */
  forget(key: string): void {
    const bytes = this.lineBytes.get(key);
    if (bytes === undefined) return;
    this.lineBytes.delete(key);
    this.liveBytes -= bytes;
  }

  /** Prints past their week were dropped from memory: their lines leave the disk with a rewrite, at most hourly. */
  expired(): void {
    if (this.clock.now() - this.rewroteAt >= REWRITE_EXPIRED_MS) this.rewriteSoon();
  }

  /** Rewrites the log with the live prints now, or again after the rewrite under way (a user's prints must leave the disk). */
  rewriteSoon(): void {
    if (this.closed) return;
    if (this.rewriting) {
      this.again = true;
      return;
    }
    if (performance.now() - this.failedAt < RETRY_AFTER_MS) return;
    this.rewriting = this.rewriteLoop();
  }

  /** Resolves once no rewrite runs or waits. */
  async settled(): Promise<void> {
    while (this.rewriting) await this.rewriting;
  }

  async close(): Promise<void> {
    await this.settled();
    this.closed = true;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private setLive(key: string, bytes: number): void {
    this.liveBytes += bytes - (this.lineBytes.get(key) ?? 0);
    this.lineBytes.set(key, bytes);
  }

  private openForAppend(): void {
    const fd = openSync(this.file, 'a', 0o600);
    // An existing file keeps its mode when opened: say 0600 outright.
    fchmodSync(fd, 0o600);
    this.fd = fd;
    this.bytes = fstatSync(fd).size;
  }

  private async rewriteLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.rewrite();
      } while (this.again && !this.closed && this.failedAt === Number.NEGATIVE_INFINITY);
    } finally {
      this.rewriting = undefined;
    }
  }

  private async rewrite(): Promise<void> {
    const temp = this.file + REWRITE_SUFFIX;
    // A copy: the held prints change while the chunks are written.
    const entries = Array.from(this.live());
    this.rewroteAt = this.clock.now();
    this.during = [];
    let fd = -1;
    try {
      fd = openSync(temp, 'w', 0o600);
      fchmodSync(fd, 0o600);
      let written = 0;
      let chunk: string[] = [];
      let size = 0;
      for (const [key, print] of entries) {
        const line = `${JSON.stringify([key, print])}\n`;
        chunk.push(line);
        size += line.length;
        if (size < CHUNK_BYTES) continue;
        written += writeSync(fd, chunk.join(''));
        chunk = [];
        size = 0;
        await nextTurn();
      }
      written += writeSync(fd, chunk.join(''));
      await datasync(fd);
      // From here to the switch nothing awaits, so no put falls between the lines copied and the new file.
      for (const line of this.during) written += writeSync(fd, line);
      renameSync(temp, this.file);
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = fd;
      fd = -1;
      this.bytes = written;
      this.rewrites += 1;
      this.failedAt = Number.NEGATIVE_INFINITY;
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      rmSync(temp, { force: true });
      this.failedAt = performance.now();
      this.warnOnce(err, 'could not rewrite prints.log (retried in a minute): it grows meanwhile, and a removed user\'s prints stay in it until then');
    } finally {
      this.during = undefined;
    }
  }

  private warnOnce(err: unknown, msg: string): void {
    if (this.warned.has(msg)) return;
    this.warned.add(msg);
    this.log.warn({ err, file: this.file }, msg);
  }
}
