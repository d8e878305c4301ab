/** Helpers for the store and vault tests: temp dirs, a log capture, sample records (the bot tests take their alert entries from `entry` too). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertEntry } from '../../src/store/schema.js';

/** Temp directories made by `tempDir`, removed by `removeTempDirs` (call it in afterEach). */
const made: string[] = [];

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bb-store-test-'));
  made.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export function entry(overrides: Partial<AlertEntry> = {}): AlertEntry {
  return {
    eventId: 'ev-1',
    chatId: 111,
    messageId: 42,
    firstSeenAt: 1_000,
    lastSeenAt: 2_000,
    goneAt: null,
    profit: 2.5,
    odds: [2.1, null, 3.4],
    lastEditAt: 2_000,
    ...overrides,
  };
}
