/** Helpers for the store and vault tests: temp dirs, a log capture, sample records (the bot tests take their alert entries from `entry` too). */
import type { AlertPrint } from '../../src/ledger/prints.js';
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

/** What one alert message printed (src/ledger/prints.ts): an arb of two legs with their stakes. */
export function samplePrint(overrides: Partial<AlertPrint> = {}): AlertPrint {
  return {
    id: 'p1',
    kind: 'arbs',
    service: 'arbs_prematch',
    itemId: 'a1',
    eventId: 'ev-1',
    sport: 'Tennis',
    league: 'ATP Doha',
    event: 'Alpha – Beta',
    eventStart: null,
    profitPct: 2.44,
    sentAt: 1_000,
    legs: [
      { outcome: 0, bookmakerId: 7, bookmaker: 'Pinnacle', market: 'W1', odds: 2.1, stake: 495, commission: 0, lay: false },
      { outcome: 1, bookmakerId: 3, bookmaker: 'Bet365', market: 'W2', odds: 2.05, stake: 505, commission: 0, lay: false },
    ],
    ...overrides,
  };
}
