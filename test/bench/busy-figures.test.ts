import { describe, expect, it } from 'vitest';
import { coverageOf, delivery, itemsOf, recordFirstSends, type Window } from '../../bench/lib/busy-figures.js';
import type { ActivityEvent, SentMessage } from '../../src/fake-telegram/server.js';
import type { WorldChange } from '../../src/sandbox/index.js';

const ID_A = 'aaaaaaaaaaaaaaa1';
const ID_B = 'bbbbbbbbbbbbbbb2';
const ID_C = 'ccccccccccccccc3';
const window: Window = { start: 10_000, end: 70_000, graceEnd: 90_000 };

function message(chatId: number, at: number, text: string, reply_markup?: unknown): SentMessage {
  return { message_id: at, chat_id: chatId, text, edited: false, deleted: false, history: [], at, ...(reply_markup ? { reply_markup } : {}) };
}

/** A recordFirstSends fed by hand: `emit` plays the fake Bot API's activity. */
function recorder(): { log: ReturnType<typeof recordFirstSends>; emit: (e: ActivityEvent) => void } {
  let listener: ((e: ActivityEvent) => void) | undefined;
  const log = recordFirstSends({
    onActivity: (cb) => {
      listener = cb;
      return () => (listener = undefined);
    },
  });
  return { log, emit: (e) => listener?.(e) };
}

describe('busy-world figures', () => {
  it('finds an alert by the item id in its text or in its buttons, as first sent', () => {
    const { log, emit } = recorder();
    emit({ kind: 'sent', message: message(1, 20_000, `card <code>${ID_A}</code>`) });
    emit({ kind: 'sent', message: message(1, 21_000, 'alert', { inline_keyboard: [[{ text: 'Stakes', callback_data: `a:stk:1:${ID_B}` }]] }) });
    emit({ kind: 'sent', message: message(1, 25_000, `again ${ID_A}`) });
    emit({ kind: 'sent', message: message(1, 23_000, '📦 3 more alerts') });
    log.stop();
    expect(log.firsts).toEqual(new Map([[`1|${ID_A}`, 20_000], [`1|${ID_B}`, 21_000]]));
    expect(log.byEdit.size).toBe(0);
    expect(log.unnamed).toEqual([23_000]);
  });

  it('counts a message edited into naming an item the chat never saw named (the same arb revived under a new id), timed at the edit', () => {
    const { log, emit } = recorder();
    emit({ kind: 'sent', message: message(1, 20_000, `alert ${ID_A}`) });
    // A's own alert edited later (a move, "⛔ Gone"): A's delivery stays its send.
    emit({ kind: 'edited', message: { ...message(1, 20_000, `alert ${ID_A} gone`), edited: true, edited_at: 40_000 } });
    // The same message revived for C, the same arb back under a new item id.
    emit({ kind: 'edited', message: { ...message(1, 20_000, `alert ${ID_C} back`), edited: true, edited_at: 50_000 } });
    log.stop();
    expect(log.firsts).toEqual(new Map([[`1|${ID_A}`, 20_000], [`1|${ID_C}`, 50_000]]));
    expect([...log.byEdit]).toEqual([`1|${ID_C}`]);
  });

  it('counts an item that lived ≥ 3 s while the key held a token, and times it from its appearance', () => {
    const changes: WorldChange[] = [
      { at: 5_000, service: 'arbs_live', type: 'appeared', id: 'before-the-window' },
      { at: 20_000, service: 'arbs_live', type: 'appeared', id: ID_A },
      { at: 30_000, service: 'arbs_live', type: 'appeared', id: ID_B },
      { at: 32_000, service: 'arbs_live', type: 'gone', id: ID_B },
      { at: 50_000, service: 'arbs_live', type: 'appeared', id: ID_C },
    ];
    const items = itemsOf(changes, window);
    expect([...(items.get('arbs_live')?.keys() ?? [])]).toEqual([ID_A, ID_B, ID_C]);
    // The key could read from 0 to 60 s: C (from 50 s, alive to the end) lived 10 s readable, B only 2 s.
    const coverage = coverageOf([
      { accessKey: 'k', service: 'arbs_live', at: 0, expiresAt: 40_000 },
      { accessKey: 'k', service: 'arbs_live', at: 35_000, expiresAt: 60_000 },
    ]);
    expect(coverage.get('k|arbs_live')).toEqual([[0, 60_000]]);
    const sends = new Map([
      [`1|${ID_A}`, 21_500],
      [`1|${ID_B}`, 31_000],
    ]);
    const d = delivery([{ chatId: 1, service: 'arbs_live', coverKey: 'k' }], items, sends, coverage, window);
    expect(d.latencies).toEqual([1_500, 1_000]);
    expect(d).toMatchObject({ qualifying: 2, delivered: 1, lived: 2, deliveredOfLived: 1 });
    expect(d.coverage).toBeCloseTo(50 / 60);
  });

  it('leaves out of the latencies an alert sent before its item became an arb for the user, and counts it apart', () => {
    const changes: WorldChange[] = [
      { at: 20_000, service: 'arbs_live', type: 'appeared', id: ID_A },
      { at: 21_000, service: 'arbs_live', type: 'appeared', id: ID_B },
    ];
    // A became an arb for the user only at its move at 50 s; the alert at 22 s pushed what was then no arb.
    const items = itemsOf(changes, window, new Set(), new Map([[ID_A, 50_000]]));
    const coverage = coverageOf([{ accessKey: 'k', service: 'arbs_live', at: 0, expiresAt: 90_000 }]);
    const sends = new Map([
      [`1|${ID_A}`, 22_000],
      [`1|${ID_B}`, 22_500],
    ]);
    const d = delivery([{ chatId: 1, service: 'arbs_live', coverKey: 'k' }], items, sends, coverage, window);
    expect(d.latencies).toEqual([1_500]);
    expect(d).toMatchObject({ early: 1, qualifying: 2, delivered: 2 });
  });
});
