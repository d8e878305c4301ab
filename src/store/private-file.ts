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

/** Writes `text` to `file` with mode 0600 unless `file` exists; false when it does (another process made it first). */
export async function createPrivateFile(file: string, text: string): Promise<boolean> {
  const staged = await stage(file, text);
  try {
    await link(staged, file);
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  } finally {
    await rm(staged, { force: true });
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
  const handle = await open(staged, 'wx', 0o600);
  try {
    // The umask only removes bits, but say it outright.
    await chmod(staged, 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (e) {
    // A half-written file must never be put in place.
    await handle.close();
    await rm(staged, { force: true });
    throw e;
  }
  await handle.close();
  return staged;
}
