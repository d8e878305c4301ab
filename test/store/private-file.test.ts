/**
 * The key file on a file system without hard links (some network and FAT mounts refuse `link`
 * with EPERM): it is still made, once, with mode 0600, and nothing of the staging is left.
 */
import type * as fsPromises from 'node:fs/promises';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPrivateFile } from '../../src/store/private-file.js';
import { removeTempDirs, tempDir } from './fixtures.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  return { ...actual, link: vi.fn(() => Promise.reject(Object.assign(new Error('operation not permitted, link'), { code: 'EPERM' }))) };
});

afterEach(removeTempDirs);

describe('a private file where hard links are refused', () => {
  it('is created in place instead, once, mode 0600, with no staging left', async () => {
    const dir = await tempDir();
    const file = join(dir, 'encryption.key');
    expect(await createPrivateFile(file, 'first\n')).toBe(true);
    expect(await createPrivateFile(file, 'second\n')).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('first\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['encryption.key']);
  });
});
