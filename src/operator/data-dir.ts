/**
 * DATA_DIR must be writable before anything is stored: the store writes late (debounced), so
 * without this probe a read-only folder would show only as lost changes much later.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errnoCode } from './causes.js';

/** A setting the operator must fix; the message is one line that names it. */
export class OperatorError extends Error {
  override name = 'OperatorError';
  constructor(
    /** The setting to fix (BOT_TOKEN, DATA_DIR, …). */
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

/** Creates DATA_DIR when missing and writes and removes a probe file; throws OperatorError naming DATA_DIR otherwise. */
export async function assertDataDirWritable(dataDir: string): Promise<void> {
  const dir = resolve(dataDir);
  const probe = join(dir, `.write-probe-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, 'probe\n');
    await rm(probe, { force: true });
  } catch (err) {
    const code = errnoCode(err) ?? 'unknown error';
    const who = typeof process.getuid === 'function' ? ` (user id ${process.getuid()})` : '';
    throw new OperatorError(
      'DATA_DIR',
      `DATA_DIR: cannot write to ${dir} (${code}): make it writable by the user running the bot${who}, or point DATA_DIR at a folder that is`,
    );
  }
}
