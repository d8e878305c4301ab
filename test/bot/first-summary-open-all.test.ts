/**
 * "📂 Open all" under the first read's summary (issue 31 item 4): every item the pressed summary
 * lists and that is still open comes as its card with stakes; which items is read from the
 * presser's own alert entries (the button carries only the service), so a forged or another
 * message's button opens nothing of anyone else's.
 */
import { describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import type { AlertEntry } from '../../src/store/schema.js';
import { makeItem } from './fakes.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const ALL = encodeAlertAction({ type: 'openAll', service: 'arbs_prematch' })!;
const entry = (messageId: number, over: Partial<AlertEntry> = {}): AlertEntry => ({
  eventId: 'e', chatId: ALICE.id, messageId, firstSeenAt: 0, lastSeenAt: 0, goneAt: null, profit: 3, odds: [2.1, 2.05], lastEditAt: 0, summary: true, ...over,
});

describe('📂 Open all', () => {
  it('opens the card of each item the pressed summary lists and that is still open', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' }), makeItem({ id: 'a2' }), makeItem({ id: 'a3' })]);
    const summary = await h.plant(ALICE.id, 'summary', [['📂 Open all 3', ALL]]);
    const other = await h.plant(ALICE.id, 'another summary', [['📂 Open all 1', ALL]]);
    h.store.alerts.set(`${ALICE.id}:arbs_prematch`, 'a1', entry(summary.message_id));
    h.store.alerts.set(`${ALICE.id}:arbs_prematch`, 'a2', entry(summary.message_id));
    // Gone since: not opened; listed by another summary: not this one's.
    h.store.alerts.set(`${ALICE.id}:arbs_prematch`, 'a3', entry(summary.message_id, { goneAt: 5 }));
    h.store.alerts.set(`${ALICE.id}:arbs_prematch`, 'x9', entry(other.message_id));
    const before = h.sent(ALICE.id).length;
    await h.press(ALICE, summary, ALL);
    const cards = h.sent(ALICE.id).slice(before);
    expect(cards).toHaveLength(2);
    expect(cards.map((m) => m.text.match(/<code>(a\d)<\/code>/)?.[1])).toEqual(['a1', 'a2']);
  });

  it('says so when none of them is open any more, and sends nothing', async () => {
    const summary = await h.plant(ALICE.id, 'summary', [['📂 Open all 2', ALL]]);
    h.store.alerts.set(`${ALICE.id}:arbs_prematch`, 'a1', entry(summary.message_id, { goneAt: 5 }));
    const before = h.sent(ALICE.id).length;
    await h.press(ALICE, summary, ALL);
    expect(h.sent(ALICE.id).length).toBe(before);
    expect(h.callbackText()).toBe('None of them is open any more: they are gone.');
  });
});
