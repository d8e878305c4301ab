/**
 * Closing lines from ordinary reads: a placed valuebet's selection seen in a read is noted with
 * its odds and the service's fair odds, again only when the odds move (or after RENOTE_MS), never
 * after the event started, never for an item nobody placed or a user without positions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { positionFromAlert } from '../../src/alerts/position-from-alert.js';
import { createCloseRecorder, RENOTE_MS } from '../../src/alerts/closing-lines.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { makeItem } from '../bot/fakes.js';
import { removeTempDirs, tempDir } from '../store/fixtures.js';

let store: JsonStore | undefined;
afterEach(async () => {
  await store?.close();
  await removeTempDirs();
});

const START = Date.UTC(2026, 0, 3, 12, 0, 0);
const at = (odds: number, id = 'v1'): Opportunity => {
  const item = makeItem({ id, service: 'valuebets_prematch', startsAt: START });
  return { ...item, legs: [{ ...item.legs[0]!, odds }] };
};

describe('closing lines from reads', () => {
  it('notes the selection’s odds while the event has not started, once per move', async () => {
    const s = await openStore({ dataDir: await tempDir(), logger: silentLogger, debounceMs: 5 });
    store = s;
    const p = positionFromAlert(at(2.1), namesFor(undefined, 'en'), { bankroll: 1000, roundingStep: 5 }, { id: '1', now: START - 3_600_000, chatId: 1, messageId: 2 });
    if ('ok' in p) throw new Error('not placed');
    await s.ledger.put(7, p);
    const writes: number[] = [];
    const ledger = { marks: s.ledger.marks, noteClose: (...args: Parameters<typeof s.ledger.noteClose>) => (writes.push(args[3].odds), s.ledger.noteClose(...args)) };
    const record = createCloseRecorder(ledger);
    const sub = { userId: 7, service: 'valuebets_prematch' };
    record(sub, [at(2.0, 'other'), at(2.05)], START - 600_000);
    record(sub, [at(2.05)], START - 590_000);
    record(sub, [at(1.95)], START - 300_000);
    record(sub, [at(1.95)], START - 300_000 + RENOTE_MS - 1);
    // After the start: live odds are no closing line.
    record(sub, [at(1.5)], START + 1);
    record({ userId: 8, service: 'valuebets_prematch' }, [at(1.7)], START - 1_000);
    expect(writes).toEqual([2.05, 1.95]);
    const close = (await s.ledger.book(7)).closes.get('1:0');
    expect(close?.odds).toBe(1.95);
    expect(close?.at).toBe(START - 300_000);
    // The service's fair odds from its overvalue (4 %): 1.95 / 1.04.
    expect(close?.fairOdds).toBeCloseTo(1.875, 3);
  });
});
