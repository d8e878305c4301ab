/**
 * The market filter end to end (issue 31 item 5): the sandbox's world read through the real client,
 * scheduler, notifier and outbox. Totals are left out by the service itself (skip_sections); odd/even
 * and the halves, sets and periods only by the bot. No item in a group left out reaches the chat;
 * the others do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sectionOf, TYPE } from '../../src/sandbox/dictionaries.js';
import { addUser } from './harness.js';
import { flushAlerts, runStack, startStack, type Stack } from './stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const KEY = { accessKey: 'alice-key', secret: 'alice-secret-0001' };

describe('a market group left out, end to end', () => {
  it('never alerts an item of it, whether the service or the bot leaves it out', async () => {
    // Items live long enough that every one born in the run is still in the world at its end.
    stack = await startStack({ sandbox: { keys: [KEY], seed: 5, world: { itemsPerService: 12, eventsPerService: 8, meanLifetimeMs: 60 * 60_000, moveEveryMs: 60_000 } } });
    const { store, sandbox, telegram } = stack;
    addUser(store, 101, ['arbs_prematch'], { ...KEY, filter: { marketsOff: ['totals', 'odd_even', 'periods'] } });
    store.updateUser(101, (u) => void (u.books = { '31': { commission: 0 }, '40': { commission: 0 } }));
    stack.scheduler.start();
    await runStack(stack, 4 * 60_000);
    await flushAlerts(stack);

    const text = telegram!.messages(101).map((m) => `${m.text} ${JSON.stringify(m.reply_markup ?? null)}`).join('\n');
    const items = sandbox.currentItems('arbs_prematch');
    const leftOut = items.filter((item) => {
      const type = item.odds[0]!.type_id;
      return sectionOf(type) === 3 || type === TYPE.odd || type === TYPE.even || item.groups_ids.some((g) => g !== 1 && g !== 7 && g !== 8);
    });
    const kept = items.filter((item) => !leftOut.includes(item));
    // The world has both kinds, so the test says something.
    expect(leftOut.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    for (const item of leftOut) expect(text, `no alert for ${item.id}`).not.toContain(item.id);
    expect(kept.filter((item) => text.includes(item.id)).length).toBeGreaterThan(0);
  });
});
