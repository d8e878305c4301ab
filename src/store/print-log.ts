/**
 * The embedded store's prints on disk: `DATA_DIR/prints.log`, one line `[key, print]` a put, written
 * with one synchronous `write` the moment the print is made (before its message is sent), so a
 * `kill -9` keeps it (the kernel holds it; a power cut keeps what the last rewrite fsynced). The
 * store holds only where each live line is (a `Slot`) and reads a print back when a button asks.
 *
 * Why not db.json, nor memory: a print is about 460 bytes kept a week, up to four an alert. In
 * db.json, rewritten whole on every change, 100,000 of them made each write cost 0.64 s of CPU and
 * held the event loop for half a second; in memory they took 1.2 KB each, 120 MB of the shipped
 * 256 MB heap, which a busy bot fills in days. The log is only appended to, and rewritten with what
 * is live once it holds twice that (plus 1 MiB), so each print is written about three times in all.
 *
 * The rewrite runs beside the bot: the live lines are copied to `prints.log.compacting` a chunk at a
 * time, which is then fsynced; puts meanwhile still go to the old log; then, in one synchronous step
 * (no put or read can fall between), their lines follow, the new file is renamed over the log, every
 * slot takes its new place and appends continue there. Removing a user rewrites the log at once, so
 * their prints leave the disk; expired prints leave it within the hour (REWRITE_EXPIRED_MS).
 */
import { closeSync, existsSync, fchmodSync, fdatasync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

/** The log's name inside DATA_DIR. */
export const PRINT_LOG_FILE_NAME = 'prints.log';
/** Where a rewrite is staged (a leftover from a crash is removed at open: the log itself is whole). */
const REWRITE_SUFFIX = '.compacting';
/** The log is rewritten once it holds more than twice its live lines' bytes plus this. */
export const REWRITE_SLACK_BYTES = 1 << 20;
/** Expired prints make the log rewrite at most this often (on the store's clock). */
const REWRITE_EXPIRED_MS = 3_600_000;
/** Reads and writes of a rewrite or an open go this much at a time, letting the event loop run between. */
const CHUNK_BYTES = 1 << 20;
/** After a failed rewrite, the next waits at least this long (the disk is likely full). */
const RETRY_AFTER_MS = 60_000;

const datasync = promisify(fdatasync);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where a live line is: its offset in the log and its length (newline included). */
export interface Slot {
  at: number;
  bytes: number;
}

/**
 * Calls `line` for each line of `file` (none when it is missing) with its text, offset and length.
 * A leftover rewrite is removed first. Returns the file's size.
 */
export function scanPrintLog(file: string, line: (text: string, at: number, bytes: number) => void): number {
  rmSync(file + REWRITE_SUFFIX, { force: true });
  if (!existsSync(file)) return 0;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    let chunk = Buffer.alloc(CHUNK_BYTES);
    let start = 0;
    while (start < size) {
      const want = Math.min(chunk.length, size - start);
      const got = readSync(fd, chunk, 0, want, start);
      if (got <= 0) break;
      let from = 0;
      for (let end = chunk.indexOf(10, from); end >= 0 && end < got; end = chunk.indexOf(10, from)) {
        line(chunk.toString('utf8', from, end), start + from, end + 1 - from);
        from = end + 1;
      }
      if (from === 0 && got === chunk.length) {
        // One line longer than the buffer (never written by the bot, but the file is outside input): read it whole.
        chunk = Buffer.alloc(chunk.length * 2);
        continue;
      }
      if (from === 0) {
        // The last line has no newline (a torn write): handed on as it is, to be found wanting.
        line(chunk.toString('utf8', 0, got), start, got);
        from = got;
      }
      start += from;
    }
    return size;
  } finally {
    closeSync(fd);
  }
}

/** The open log of the slots in `live()` (the held prints). */
export class PrintLog {
  /** -1 until the first append, read or rewrite, and after `close`. */
  private fd = -1;
  /** The log's bytes on disk, live or not. */
  private bytes: number;
  private liveBytes = 0;
  private rewriting: Promise<void> | undefined;
  /** Another rewrite was asked for while one ran (a user removed meanwhile). */
  private again = false;
  /** Slots appended while a rewrite runs (in the old file), to be copied into the new one. */
  private during: Slot[] | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** When the last rewrite began (store clock); expired prints wait for an hour since. */
  private rewroteAt = Number.NEGATIVE_INFINITY;
  private readonly warned = new Set<string>();
  private closed = false;

  constructor(
    readonly file: string,
    private readonly live: () => Iterable<Slot>,
    private readonly clock: Clock,
    private readonly log: Logger,
    bytesOnDisk: number,
  ) {
    this.bytes = bytesOnDisk;
  }

  /** A slot is held (loaded from the file, or just appended). */
  added(slot: Slot): void {
    this.liveBytes += slot.bytes;
  }

  /** A slot is no longer held (replaced by a newer version, expired, its user removed). */
  removed(slot: Slot): void {
    this.liveBytes -= slot.bytes;
  }

  /** Nothing is held any more (a migration replaces everything). */
  forgetAll(): void {
    this.liveBytes = 0;
  }

  /** Writes `line` and points `slot` at it; false (the line not on disk) when the write failed. Never throws. */
  append(line: Buffer, slot: Slot): boolean {
    if (this.closed) return false;
    try {
      if (this.fd < 0) this.openForAppend();
      const wrote = writeSync(this.fd, line);
      if (wrote !== line.length) throw new Error(`wrote ${wrote} of ${line.length} bytes`);
    } catch (err) {
      this.warnOnce(err, 'could not write prints.log: the buttons of messages sent since will not record a bet after a restart');
      this.afterTornAppend();
      return false;
    }
    slot.at = this.bytes;
    slot.bytes = line.length;
    this.bytes += line.length;
    this.during?.push(slot);
    return true;
  }

  /** After a put is held: a log more than twice what is live (plus the slack) is rewritten. */
  grew(): void {
    if (this.bytes > 2 * this.liveBytes + REWRITE_SLACK_BYTES) this.rewriteSoon();
  }

  /** The line of `slot` (without checking it), or undefined when it cannot be read. */
  read(slot: Slot): Buffer | undefined {
    // Closed (the bot stopping): no file is opened again behind the released lock.
    if (this.closed) return undefined;
    try {
      if (this.fd < 0) this.openForAppend();
      const buf = Buffer.alloc(slot.bytes);
      return readSync(this.fd, buf, 0, slot.bytes, slot.at) === slot.bytes ? buf : undefined;
    } catch (err) {
      this.warnOnce(err, 'could not read prints.log: a ✅ Placed of an older alert asks to record from a newer one');
      return undefined;
    }
  }

  /** Prints past their week were dropped: their lines leave the disk with a rewrite, at most hourly. */
  expired(): void {
    if (this.clock.now() - this.rewroteAt >= REWRITE_EXPIRED_MS) this.rewriteSoon();
  }

  /** Rewrites the log with the live lines now, or again after the rewrite under way (a user's prints must leave the disk). */
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

  /**
   * A write that failed may have left part of its line: later offsets count from the file's real end,
   * and a rewrite (retried while the disk refuses) takes the fragment out before a restart reads it.
   */
  private afterTornAppend(): void {
    try {
      if (this.fd >= 0) this.bytes = fstatSync(this.fd).size;
    } catch {
      // The next append opens the file again and takes its size then.
      try {
        closeSync(this.fd);
      } catch {
        // Already unusable.
      }
      this.fd = -1;
    }
    this.rewriteSoon();
  }

  private openForAppend(): void {
    // 'a+': appends go to the end whatever the position, and reads take the offset they are given.
    const fd = openSync(this.file, 'a+', 0o600);
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
    // A copy, in file order: the held prints change while the chunks are copied.
    // (A print whose line could not be written has no slot in the file: it stays in memory only.)
    const slots = Array.from(this.live())
      .filter((slot) => slot.bytes > 0)
      .sort((a, b) => a.at - b.at);
    const moved = new Float64Array(slots.length);
    this.rewroteAt = this.clock.now();
    this.during = [];
    let fd = -1;
    try {
      if (this.fd < 0) this.openForAppend();
      // 'w+': the new log is read from too; its appends follow the copied lines (reads at an offset do not move the position).
      fd = openSync(temp, 'w+', 0o600);
      fchmodSync(fd, 0o600);
      let written = 0;
      for (let i = 0; i < slots.length; ) {
        const { buf, end } = this.copyOut(slots, i, (n, at) => (moved[n] = written + at));
        written += writeSync(fd, buf);
        i = end;
        await nextTurn();
      }
      await datasync(fd);
      // From here to the switch nothing awaits: no put or read falls between the lines copied and the new file.
      const late = this.during;
      const { buf } = this.copyOut(late, 0, (n, at) => (late[n]!.at = written + at), Number.POSITIVE_INFINITY);
      written += writeSync(fd, buf);
      renameSync(temp, this.file);
      const old = this.fd;
      this.fd = fd;
      fd = -1;
      slots.forEach((slot, n) => (slot.at = moved[n]!));
      this.bytes = written;
      this.failedAt = Number.NEGATIVE_INFINITY;
      try {
        closeSync(old);
      } catch {
        // The old file already left the directory; nothing reads it any more.
      }
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      rmSync(temp, { force: true });
      this.failedAt = performance.now();
      this.warnOnce(err, "could not rewrite prints.log (retried in a minute): it grows meanwhile, and a removed user's prints stay in it until then");
    } finally {
      this.during = undefined;
    }
  }

  /**
   * The lines of `slots[from…]` read from the current log into one buffer of at most `maxBytes` (at
   * least one line); `placed` learns each one's offset in that buffer.
   */
  private copyOut(slots: readonly Slot[], from: number, placed: (n: number, at: number) => void, maxBytes = CHUNK_BYTES): { buf: Buffer; end: number } {
    let end = from;
    let size = 0;
    while (end < slots.length && (end === from || size + slots[end]!.bytes <= maxBytes)) size += slots[end++]!.bytes;
    const buf = Buffer.alloc(size);
    let at = 0;
    for (let n = from; n < end; n++) {
      const slot = slots[n]!;
      if (readSync(this.fd, buf, at, slot.bytes, slot.at) !== slot.bytes) throw new Error('prints.log is shorter than its slots');
      placed(n, at);
      at += slot.bytes;
    }
    return { buf, end };
  }

  private warnOnce(err: unknown, msg: string): void {
    if (this.warned.has(msg)) return;
    this.warned.add(msg);
    this.log.warn({ err, file: this.file }, msg);
  }
}
