/**
 * The settle digest: one message a day per user with positions whose event started more than the
 * configured hours ago, none before, none twice in a day (a restart included: it is remembered in
 * the ledger), none once they are settled, in the user's language; of several fronts, only the
 * one holding the sender lease sends it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createSettleDigest, DIGEST_EVERY_MS } from '../../src/bot/settle-digest.js';
import { settle } from '../../src/ledger/actions.js';
import { silentLogger } from '../../src/logger.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { workedBook } from '../ledger/worked.js';
import { removeTempDirs, tempDir } from '../store/fixtures.js';

let store: JsonStore | undefined;
afterEach(async () => {
  await store?.close();
  await removeTempDirs();
});

describe('settle digest', () => {
  it('tells once a day of positions whose event started more than N hours ago', async () => {
    const dir = await tempDir();
    const s = await openStore({ dataDir: dir, logger: silentLogger, debounceMs: 5 });
    store = s;
    s.updateUser(5, (u) => void (u.lang = 'ru'), { chatId: 50 });
    const open = workedBook().positions[6]!; // event at 2026-12-06 19:00 UTC
    await s.ledger.put(5, open);
    const start = open.eventStart!;
    const clock = new ManualClock(start + 5 * 3_600_000);
    const sent: [number, string][] = [];
    const digest = createSettleDigest({ store: s, clock, logger: silentLogger, hours: 6, send: (chatId, text) => sent.push([chatId, text]) });
    expect(await digest.run()).toBe(0);
    await clock.advance(2 * 3_600_000);
    expect(await digest.run()).toBe(1);
    expect(sent).toEqual([[50, '🧾 1 позиция ждёт результата: события начались более 6 ч назад. Рассчитайте их в /open.']]);
    await clock.advance(3_600_000);
    expect(await digest.run()).toBe(0);
    await clock.advance(DIGEST_EVERY_MS);
    expect(await digest.run()).toBe(1);
    await s.ledger.put(5, settle(open, 'won', clock.now())!);
    await clock.advance(DIGEST_EVERY_MS);
    expect(await digest.run()).toBe(0);
    expect(sent).toHaveLength(2);
  });

  it('is sent only by the front that sends alerts, and by the next holder once the lease moves', async () => {
    const dir = await tempDir();
    const s = await openStore({ dataDir: dir, logger: silentLogger, debounceMs: 5 });
    store = s;
    s.updateUser(6, () => undefined, { chatId: 60 });
    const open = workedBook().positions[6]!;
    await s.ledger.put(6, open);
    const clock = new ManualClock(open.eventStart! + 7 * 3_600_000);
    let holder: 'a' | 'b' = 'a';
    const sent: string[] = [];
    const front = (name: 'a' | 'b') =>
      createSettleDigest({ store: s, clock, logger: silentLogger, hours: 6, send: () => sent.push(name), active: () => holder === name });
    const [a, b] = [front('a'), front('b')];
    expect(await b.run()).toBe(0);
    expect(await a.run()).toBe(1);
    await clock.advance(DIGEST_EVERY_MS);
    holder = 'b';
    expect(await a.run()).toBe(0);
    expect(await b.run()).toBe(1);
    expect(sent).toEqual(['a', 'b']);
  });
});
