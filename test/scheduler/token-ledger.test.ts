import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import { TokenLedger } from '../../src/scheduler/token-ledger.js';
import { HOUR_MS } from '../../src/scheduler/token-plan.js';
import { FakeClient } from './fake-client.js';
import { addUser, plainVault, RecordingNotifier, runFor, tempStore } from './harness.js';
import { maxInWindow } from '../support/window.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bb-ledger-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 3, 10, 0);

describe('TokenLedger', () => {
  it('counts a rolling hour per key and takes back a request never sent', () => {
    const ledger = new TokenLedger();
    ledger.record('k1', T0);
    ledger.record('k1', T0 + 60_000);
    ledger.record('k1', T0 + 30_000);
    ledger.record('k2', T0);
    expect(ledger.count('k1', T0 + 60_000)).toBe(3);
    expect(ledger.oldest('k1', T0 + 60_000)).toBe(T0);
    // The service's hour: a request at T0 no longer counts at T0 + 1 h.
    expect(ledger.count('k1', T0 + HOUR_MS)).toBe(2);
    expect(ledger.oldest('k1', T0 + HOUR_MS)).toBe(T0 + 30_000);
    ledger.unrecord('k1', T0 + 60_000);
    expect(ledger.count('k1', T0 + HOUR_MS)).toBe(1);
    expect(ledger.count('k2', T0 + 1)).toBe(1);
    expect(ledger.count('unknown', T0)).toBe(0);
  });

  it('survives a restart through its file, which names no key and only the owner can read', async () => {
    const file = join(dir, 'token-ledger.json');
    const first = new TokenLedger(file);
    first.record('secretive-access-key', T0);
    first.record('secretive-access-key', T0 + 1_000);
    first.record('old-key', T0 - 2 * HOUR_MS);
    await first.save(T0 + 2_000);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('secretive-access-key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = new TokenLedger(file);
    expect(second.load(T0 + 10_000)).toEqual({ loaded: 2 });
    expect(second.count('secretive-access-key', T0 + 10_000)).toBe(2);
    expect(second.count('old-key', T0 + 10_000)).toBe(0);
  });

  it('starts empty on a missing or broken file, and says so for a broken one', async () => {
    const file = join(dir, 'token-ledger.json');
    expect(new TokenLedger(file).load(T0)).toEqual({ loaded: 0 });
    await writeFile(file, '{"version":1,"keys":{"zz":[1]}}');
    const ledger = new TokenLedger(file);
    expect(ledger.load(T0).problem).toMatch(/not valid/);
    expect(ledger.count('k', T0)).toBe(0);
    // Nothing changed: nothing written over the broken file.
    await ledger.save(T0);
    expect(await readFile(file, 'utf8')).toBe('{"version":1,"keys":{"zz":[1]}}');
  });

  it('keeps the token hour across a scheduler restart with a fresh client', async () => {
    const clock = new ManualClock(T0);
    const { store, cleanup } = await tempStore(clock);
    try {
      addUser(store, 1, ['arbs_live', 'arbs_prematch']);
      const file = join(dir, 'token-ledger.json');
      const notifier = new RecordingNotifier(() => clock.now());
      const requests: number[] = [];
      for (let run = 0; run < 3; run++) {
        // A fresh client knows no token and no limit: only the ledger remembers.
        const client = new FakeClient(clock, () => [], 300_000, 1_000);
        const scheduler = createScheduler({
          config: { LIMIT_TOKENS_PER_HOUR: 20, LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_SCOPE: 'key', POLL_INTERVAL_SECONDS: 5 },
          logger: silentLogger,
          store,
          client,
          notifier,
          vault: plainVault,
          clock,
          ledgerFile: file,
        });
        scheduler.start();
        // Restarts 47 and 94 minutes in: mid-window, while the last tokens are still valid.
        await runFor(clock, scheduler, 47 * 60_000, 2_000);
        await scheduler.stop();
        requests.push(...client.tokenRequests.map((t) => t.at));
      }
      expect(maxInWindow(requests, HOUR_MS)).toBeLessThanOrEqual(18);
      // Yet polling went on: about 18 an hour over the 2 h 21 min.
      expect(requests.length).toBeGreaterThanOrEqual(36);
    } finally {
      await cleanup();
    }
  });
});

describe('TokenLedger writes', () => {
  it('writes once at a time, however many ask together', async () => {
    const file = join(dir, 'token-ledger.json');
    const ledger = new TokenLedger(file);
    ledger.record('k', T0);
    await Promise.all([ledger.save(T0), ledger.save(T0), ledger.save(T0)]);
    ledger.record('k', T0 + 1);
    await Promise.all([ledger.save(T0 + 2), ledger.save(T0 + 2)]);
    const back = new TokenLedger(file);
    expect(back.load(T0 + 3)).toEqual({ loaded: 2 });
  });

  it('two writers of one ledger (the bot and the doctor) each stage their own temp file: the file is always whole', async () => {
    const file = join(dir, 'token-ledger.json');
    const a = new TokenLedger(file);
    const b = new TokenLedger(file);
    a.load(T0);
    b.load(T0);
    // Ledgers of very different sizes: a shared temp file would get one's bytes over the other's.
    for (let i = 0; i < 400; i++) a.record(`key-a-${i}-${'x'.repeat(40)}`, T0);
    const seen: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) seen.push(await readFile(file, 'utf8').catch(() => ''));
    })();
    for (let round = 0; round < 40; round++) {
      a.record('key-a', T0 + round);
      b.record('key-b', T0 + round);
      await Promise.all([a.save(T0 + round), b.save(T0 + round)]);
    }
    reading = false;
    await reader;
    for (const text of seen.filter((t) => t !== '')) expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(() => JSON.parse(readFileSync(file, 'utf8')) as unknown).not.toThrow();
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
