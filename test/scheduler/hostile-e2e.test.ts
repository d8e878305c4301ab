/**
 * Bad service data never stops alerts, end to end (issue 10, item 3): the sandbox in hostile mode
 * serves items with numbers of hundreds of digits, times past the year 9999, wrong types and
 * missing legs beside the world's items, and each user still gets every sound item alerted once;
 * the diff on its own leaves an item whose numbers cannot be stored out, at the cost of that item only.
 */
import { describe, expect, it } from 'vitest';
import { stopAfterEach } from '../support/teardown.js';
import { diffRead } from '../../src/scheduler/diff.js';
import { HOSTILE_IDS } from '../../src/sandbox/hostile.js';
import { AlertState } from '../../src/store/alert-state.js';
import { opp } from './fixtures.js';
import { addUser } from './harness.js';
import { flushAlerts, runStack, startStack } from './stack.js';

const stopAfter = stopAfterEach();

describe('hostile service data', () => {
  it('every sound item is alerted once, the clamped one included, whatever else the reads carry', async () => {
    const keys = [
      { accessKey: 'alice-key', secret: 'alice-secret-0001' },
      { accessKey: 'boris-key', secret: 'boris-secret-0002' },
    ];
    const stack = stopAfter(await startStack({ sandbox: { keys, hostile: true, seed: 4, world: { itemsPerService: 4, eventsPerService: 5 } } }));
    const { store, sandbox, telegram } = stack;
    addUser(store, 101, ['arbs_prematch'], keys[0]);
    addUser(store, 102, ['valuebets_live'], keys[1]);
    // No exchange commission here: a thin arb with an exchange leg is not alerted after its default
    // commission (alerts/notifier.ts), and this test is about the service's data, not commission.
    for (const id of [101, 102]) store.updateUser(id, (u) => void (u.books = { '31': { commission: 0 }, '40': { commission: 0 } }));
    stack.scheduler.start();
    await runStack(stack, 2 * 60_000);
    await flushAlerts(stack);

    for (const [userId, service] of [[101, 'arbs_prematch'], [102, 'valuebets_live']] as const) {
      const subKey = `${userId}:${service}`;
      const alerted = store.alerts.entries(subKey).filter(([, e]) => e.messageId !== null).map(([id]) => id);
      // The far-future item is drawn without its start time; the bad ones are never alerted.
      expect(alerted).toContain('hostile-far-future');
      for (const id of [...HOSTILE_IDS.nonFinite, ...HOSTILE_IDS.wrongType, ...HOSTILE_IDS.badLegs, ...HOSTILE_IDS.noEvent]) {
        expect(alerted).not.toContain(id);
      }
      for (const item of sandbox.currentItems(service)) {
        if (stack.clock.now() - sandbox.world.appearedAt(item.id)! < 15_000) continue;
        expect(alerted, `alert for ${item.id}`).toContain(item.id);
      }
      // Alerts, not the loud re-alerts that reply to them when their profit rises (alerts/loudness.ts).
      const messages = telegram!.messages(userId).filter((m) => m.reply_to_message_id === undefined);
      // One message per alert, and one for the first read's summary (issue 31 item 4) that its entries share.
      expect(messages.length).toBe(new Set(store.alerts.entries(subKey).flatMap(([, e]) => (e.messageId !== null ? [e.messageId] : []))).size);
      expect(messages.some((m) => m.text.includes('Team &lt;Far&gt;'))).toBe(true);
    }
    expect(stack.notifier.stats().failures).toBe(0);
    expect(stack.client.stats().rejectedItems.non_finite).toBeGreaterThan(0);
  });

  it('the diff leaves out an item whose numbers are not finite: the others are stored and alerted, an earlier alert is not called gone', () => {
    const state = new AlertState(() => undefined);
    const T0 = Date.UTC(2026, 0, 3, 10, 0);
    const apply = (now: number, items: ReturnType<typeof opp>[], previousReadAt?: number) => {
      const result = diffRead({ now, chatId: 42, items, entries: state.view('1:arbs_prematch'), ...(previousReadAt ? { previousReadAt } : {}) });
      // What the scheduler does with the result: one refused entry would throw here and stop the loop.
      for (const [id, entry] of result.upserts) state.set('1:arbs_prematch', id, entry);
      for (const id of result.deletes) state.delete('1:arbs_prematch', id);
      return result;
    };
    const first = apply(T0, [opp('a'), opp('inf', [2.1, 2.0], Infinity), opp('b'), opp('nan-odds', [NaN, 2.0]), opp('c')]);
    expect(first.events.map((e) => e.itemId)).toEqual(['a', 'b', 'c']);
    expect(first.unusable).toEqual(['inf', 'nan-odds']);
    expect(state.size()).toBe(3);

    // 'a' turns bad on the next read: it is left alone (not gone), the rest goes on.
    const second = apply(T0 + 5_000, [opp('a', [2.1, 2.05], Infinity), opp('b'), opp('c'), opp('d')], T0);
    expect(second.events.map((e) => `${e.type}:${e.itemId}`)).toEqual(['new:d']);
    expect(state.get('1:arbs_prematch', 'a')?.goneAt).toBeNull();
  });
});
