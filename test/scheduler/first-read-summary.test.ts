/**
 * The first read after a filter is saved (or resumed) sends one summary instead of a buzz per item
 * (issue 31 item 4; newcomer trial #11: "11 alerts at once"): the sandbox serves a world with many
 * arbs open, the real scheduler, notifier and outbox deliver to the fake Bot API. From three new
 * items the first read is one message with a numbered 🔎 button per item; the items it lists are
 * never alerted later as new; what appears afterwards comes one alert at a time. English and Russian.
 */
import { describe, expect, it } from 'vitest';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { addUser } from './harness.js';
import { flushAlerts, runStack, startStack } from './stack.js';

const keyOf = (name: string, n: number) => ({ accessKey: `${name}-key`, secret: `${name}-secret-000${n}` });

const buttonsOf = (m: { reply_markup?: unknown }) => ((m.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat();

describe('first read after a save', () => {
  it('is one summary, not an alert per item; later items come one by one', async () => {
    const stack = await startStack({
      sandbox: { keys: [keyOf('alice', 1), keyOf('boris', 2)], seed: 5, world: { itemsPerService: 8, eventsPerService: 10, meanLifetimeMs: 20 * 60_000, moveEveryMs: 60_000 } },
    });
    try {
    const { store, telegram } = stack;
    addUser(store, 101, ['arbs_prematch'], keyOf('alice', 1));
    addUser(store, 102, ['arbs_prematch'], { ...keyOf('boris', 2), lang: 'ru' });
    for (const id of [101, 102]) store.updateUser(id, (u) => void (u.books = { '31': { commission: 0 }, '40': { commission: 0 } }));
    stack.scheduler.start();
    await runStack(stack, 10_000);
    await flushAlerts(stack);

    for (const [id, words] of [
      [101, /opportunities open now<\/b> for Arbs · prematch — best [+−]\d/],
      [102, /Сейчас открыт[оы] \d+ возможност(и|ей)<\/b> в «Вилки · прематч» — лучшая [+−]\d/],
    ] as const) {
      const messages = telegram!.messages(id);
      expect(messages, `user ${id}`).toHaveLength(1);
      const summary = messages[0]!;
      expect(summary.text).toMatch(words);
      const entries = store.alerts.entries(`${id}:arbs_prematch`);
      expect(entries.length).toBeGreaterThanOrEqual(3);
      // A numbered 🔎 per listed item, each opening that item.
      const buttons = buttonsOf(summary);
      const numbers = buttons.slice(0, -1);
      expect(numbers.map((b) => b.text)).toEqual(entries.slice(0, 10).map((_, i) => String(i + 1)));
      for (const b of numbers) expect('callback_data' in b && b.callback_data).toMatch(/^a:op:\d:/);
      // And one to open them all (what it opens is read from the presser's entries, not the button).
      expect(buttons.at(-1)).toMatchObject({ text: id === 101 ? `📂 Open all ${numbers.length}` : `📂 Открыть все ${numbers.length}`, callback_data: 'a:oa:0' });
      expect(summary.text).not.toMatch(/\(was |\(было /);
      // Each listed entry records the summary (kept through a restart, never edited for the item).
      for (const [, e] of entries) expect(e).toMatchObject({ messageId: summary.message_id, summary: true });
    }

    // Later reads: only items first seen after the summary are alerted, one message each.
    const listed = new Set(store.alerts.entries('101:arbs_prematch').map(([itemId]) => itemId));
    await runStack(stack, 4 * 60_000);
    await flushAlerts(stack);
    const later = telegram!.messages(101).slice(1);
    expect(later.length).toBeGreaterThan(0);
    for (const m of later) expect(m.text).not.toContain('open now');
    const alertedIds = store.alerts.entries('101:arbs_prematch').filter(([, e]) => e.messageId !== null && e.summary !== true).map(([itemId]) => itemId);
    for (const itemId of alertedIds) expect(listed.has(itemId), `summarised ${itemId} alerted again`).toBe(false);
    } finally {
      await stack.close();
    }
  });
});
