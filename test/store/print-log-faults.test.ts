/**
 * prints.log when the disk refuses a write half-way (ENOSPC after part of a line): the print is still
 * held in memory for its buttons, later lines land at the offsets the store reads them from, and the
 * fragment leaves the file before another start would read it glued to the next line.
 */
import type * as NodeFs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { PRINT_LOG_FILE_NAME } from '../../src/store/print-log.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, samplePrint, tempDir } from './fixtures.js';

/** When set, the next write of a buffer holding this text writes half of it, then fails as a full disk. */
const tearNext: { marker?: string } = {};

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof NodeFs>();
  const writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (tearNext.marker && Buffer.isBuffer(data) && data.includes(tearNext.marker)) {
      tearNext.marker = undefined;
      real.writeSync(fd, data.subarray(0, data.length >> 1));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return (real.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
  }) as typeof real.writeSync;
  return { ...real, writeSync, default: { ...real, writeSync } };
});

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
  await removeTempDirs();
});

it('keeps a print whose line was torn by a full disk, reads the next ones where they landed, and drops the fragment before a restart', async () => {
  const clock = new ManualClock(10_000);
  const dataDir = await tempDir();
  const store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 5 });
  opened.push(store);
  store.updateUser(7, () => undefined, { chatId: 70 });
  store.prints.put(7, samplePrint({ sentAt: clock.now() }));
  tearNext.marker = '"torn-item"';
  store.prints.put(7, samplePrint({ id: 'p2', itemId: 'torn-item', sentAt: clock.now() }));
  store.prints.put(7, samplePrint({ id: 'p3', itemId: 'b3', sentAt: clock.now() }));
  // Its buttons still record it in this run; the line after it is read from where it really is.
  expect((await store.prints.get(7, 'p2'))?.itemId).toBe('torn-item');
  expect((await store.prints.get(7, 'p3'))?.itemId).toBe('b3');
  await store.flush();
  const lines = (await readFile(join(dataDir, PRINT_LOG_FILE_NAME), 'utf8')).split('\n').filter((l) => l !== '');
  expect(lines.map((l) => (JSON.parse(l) as [string])[0])).toEqual(['7:p1', '7:p3']);
  await store.close();
  const again = await openStore({ dataDir, logger: silentLogger, clock, debounceMs: 5 });
  opened.push(again);
  expect((await again.prints.get(7, 'p3'))?.itemId).toBe('b3');
  expect((await again.prints.get(7, 'p1'))?.id).toBe('p1');
});
