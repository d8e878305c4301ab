/**
 * Small private files in DATA_DIR that processes starting together may write at the same moment
 * (`npm run cluster` starts a front and its workers on one DATA_DIR): the encryption key and its
 * fingerprint. The text is staged in a temp file of this process's own (mode 0600, fsynced) and only
 * then put in place, by link (create once) or rename (replace), so another process finds the file
 * whole or not at all. Written in place, a reader could catch it empty and refuse to start.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isErrno } from './atomic-json-file.js';

/** What `link` fails with on a file system without hard links (some network and FAT mounts). */
const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'];

/** Writes `text` to `file` with mode 0600 unless `file` exists; false when it does (another process made it first). */
export async function createPrivateFile(file: string, text: string): Promise<boolean> {
  const staged = await stage(file, text);
  try {
    await link(staged, file);
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    if (!NO_HARD_LINKS.some((code) => isErrno(e, code))) throw e;
  } finally {
    await rm(staged, { force: true });
  }
  // Without hard links: made in place, still exclusively; only a one-process start is safe there.
  try {
    await writeNew(file, text);
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  }
}

/** Replaces `file` with `text`, mode 0600, in one step. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const staged = await stage(file, text);
  try {
    await rename(staged, file);
  } catch (e) {
    await rm(staged, { force: true });
    throw e;
  }
}

/** The text in a temp file beside `file`, named for this process and this call. */
async function stage(file: string, text: string): Promise<string> {
  const staged = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  await writeNew(staged, text);
  return staged;
}

/** Creates `path` (EEXIST when it exists) with mode 0600, writes and fsyncs `text`; a failed write leaves no file. */
async function writeNew(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    // The umask only removes bits, but say it outright.
    await chmod(path, 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close();
    await rm(path, { force: true });
    throw e;
  }
  await handle.close();
}
