/**
 * The embedded store's sent-journal (`DATA_DIR/alerts.journal`): one line per alert the moment
 * Telegram answers its send, so that a process killed before the debounced write of db.json (up to
 * 5 s of the bot's bookkeeping) still knows, when it starts again, which items it already alerted:
 * only a send whose answer had not arrived can repeat. A line is written with one synchronous
 * `write` on a file descriptor opened once (no fsync): the kernel keeps it through a `kill -9`, not
 * through a power cut, which db.json's fsynced writes cover up to their last one.
 *
 * Lines hold the subscription key, the item id and its alert entry (ids, times, odds; never a key
 * or secret); the file is mode 0600 anyway. Folding: each db.json write first moves the lines it
 * includes aside (`alerts.journal.folding`) and deletes them once the file is written; a failed
 * write leaves them for the next one. Opening folds both files into the state (a torn last line
 * from a kill mid-write is skipped) and writes db.json before starting a fresh journal. Past
 * MAX_JOURNAL_BYTES (db.json writes failing for a long time) lines are no longer added, with one
 * warning: the guarantee falls back to db.json's schedule rather than filling the disk.
 */
import { closeSync, existsSync, fchmodSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Logger } from '../logger.js';
import { checkedEntry } from './alert-state.js';
import type { AlertEntry } from './schema.js';

/** The journal's name inside DATA_DIR. */
export const JOURNAL_FILE_NAME = 'alerts.journal';
/** The suffix of the lines a db.json write under way is folding in. */
const FOLDING_SUFFIX = '.folding';
/** Beyond this the journal stops growing (see the header). About 60,000 alerts. */
export const MAX_JOURNAL_BYTES = 16 * 1024 * 1024;

/** One journaled send: the subscription key, the item id and its entry as stored after the answer. */
export type JournalRecord = [subKey: string, itemId: string, entry: AlertEntry];

/** The records of `file` and its folding part (oldest first); lines that do not parse (a torn last line) are counted, not kept. */
export function readJournal(file: string): { records: JournalRecord[]; skipped: number; found: boolean } {
  const records: JournalRecord[] = [];
  let skipped = 0;
  let found = false;
  for (const path of [file + FOLDING_SUFFIX, file]) {
    if (!existsSync(path)) continue;
    found = true;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line === '') continue;
      const record = parseLine(line);
      if (record) records.push(record);
      else skipped += 1;
    }
  }
  return { records, skipped, found };
}

function parseLine(line: string): JournalRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length !== 3) return undefined;
  const [subKey, itemId, entry] = raw as unknown[];
  if (typeof subKey !== 'string' || typeof itemId !== 'string') return undefined;
  const checked = checkedEntry(entry as AlertEntry);
  return checked && [subKey, itemId, checked];
}

/**
 * The entry to hold for a journaled send, given the one db.json gave (`current`); undefined when
 * db.json already knows this send or a later sighting. Same sighting, no message id yet: db.json's
 * newer odds and times, with the journal's message id.
 */
export function mergeJournaled(current: Readonly<AlertEntry> | undefined, sent: AlertEntry): AlertEntry | undefined {
  if (!current || current.firstSeenAt < sent.firstSeenAt) return sent;
  if (current.firstSeenAt === sent.firstSeenAt && current.messageId === null) return { ...current, odds: [...current.odds], messageId: sent.messageId };
  return undefined;
}

/** Removes the journal and its folding part (after their lines reached db.json). */
export function removeJournal(file: string): void {
  rmSync(file + FOLDING_SUFFIX, { force: true });
  rmSync(file, { force: true });
}

/** The open journal: `append` after each answered send, `seal` when a db.json snapshot is taken, `folded` once it is written. */
export class SentJournal {
  /** -1 until the first line (an idle bot leaves no file) and after `close`. */
  private fd = -1;
  private size = 0;
  private sealed = false;
  private closed = false;
  private warned = false;

  private constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly maxBytes: number,
  ) {}

  /** A journal at `file`, created with its first line; `maxBytes` (default MAX_JOURNAL_BYTES) bounds it. */
  static open(file: string, log: Logger, maxBytes = MAX_JOURNAL_BYTES): SentJournal {
    return new SentJournal(file, log, maxBytes);
  }

  private openFd(): void {
    const fd = openSync(this.file, 'a', 0o600);
    // An existing file keeps its mode when opened: say 0600 outright.
    fchmodSync(fd, 0o600);
    this.fd = fd;
    this.size = fstatSync(fd).size;
  }

  /** Bytes in the current journal (not counting lines being folded). */
  get bytes(): number {
    return this.size;
  }

  /** Records one answered send. Never throws: the message is out, and db.json still gets it on its schedule. */
  append(subKey: string, itemId: string, entry: Readonly<AlertEntry>): void {
    if (this.closed) return;
    const line = Buffer.from(`${JSON.stringify([subKey, itemId, entry])}\n`);
    if (this.size + line.length > this.maxBytes) {
      this.warnOnce(undefined, 'the sent-journal is full (db.json has not been written for a long time): a kill -9 may now repeat alerts sent since the last write');
      return;
    }
    try {
      if (this.fd < 0) this.openFd();
      writeSync(this.fd, line);
      this.size += line.length;
    } catch (err) {
      this.warnOnce(err, 'could not write the sent-journal: a kill -9 may repeat alerts sent since the last database write');
    }
  }

  /** A snapshot of the state is being taken: the lines so far go aside until it is written (kept if an earlier write failed). */
  seal(): void {
    if (this.fd < 0 || this.sealed || this.size === 0) return;
    try {
      renameSync(this.file, this.file + FOLDING_SUFFIX);
      closeSync(this.fd);
      // The next line opens a fresh file.
      this.fd = -1;
      this.size = 0;
      this.sealed = true;
    } catch (err) {
      // The lines stay where they are and are replayed harmlessly with the next open.
      this.warnOnce(err, 'could not rotate the sent-journal');
    }
  }

  /** The snapshot is on disk: the lines it holds are no longer needed. */
  folded(): void {
    if (!this.sealed) return;
    rmSync(this.file + FOLDING_SUFFIX, { force: true });
    this.sealed = false;
  }

  close(): void {
    this.closed = true;
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  private warnOnce(err: unknown, msg: string): void {
    if (this.warned) return;
    this.warned = true;
    this.log.warn({ err, file: this.file }, msg);
  }
}
