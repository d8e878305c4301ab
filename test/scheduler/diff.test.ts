import { describe, expect, it } from 'vitest';
import {
  diffRead,
  EDIT_MIN_INTERVAL_MS,
  GONE_KEEP_MS,
  hasMoved,
  MAX_ENTRIES_PER_SUBSCRIPTION,
  RETURN_WINDOW_MS,
  SEEN_REFRESH_MS,
  shownAs,
  type DiffEvent,
  type DiffResult,
} from '../../src/scheduler/diff.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { AlertEntry } from '../../src/store/schema.js';
import { opp } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 3, 10, 0);
const CHAT = 42;

/** One subscription's state carried from read to read, as the scheduler carries it. */
class Sub {
  entries = new Map<string, AlertEntry>();
  known = new Map<string, Opportunity>();
  lastReadAt: number | undefined;
  nextMessageId = 100;
  constructor(private readonly reviveMs?: number) {}

  read(now: number, items: Opportunity[]): DiffResult {
    const result = diffRead({
      now,
      chatId: CHAT,
      items,
      entries: this.entries,
      known: this.known,
      ...(this.lastReadAt !== undefined ? { previousReadAt: this.lastReadAt } : {}),
      ...(this.reviveMs !== undefined ? { reviveMs: this.reviveMs } : {}),
    });
    for (const [id, e] of result.upserts) this.entries.set(id, e);
    for (const id of result.deletes) this.entries.delete(id);
    this.known = result.known;
    this.lastReadAt = now;
    // The notifier stores the message id once the alert is sent.
    for (const ev of result.events) {
      if (ev.type === 'new') this.entries.set(ev.itemId, { ...this.entries.get(ev.itemId)!, messageId: this.nextMessageId++ });
    }
    return result;
  }
}

const types = (events: DiffEvent[]) => events.map((e) => `${e.type}:${e.itemId}`);

describe('diffRead', () => {
  it('alerts a new item once, however many reads see it', () => {
    const sub = new Sub();
    const first = sub.read(T0, [opp('a'), opp('b')]);
    expect(types(first.events)).toEqual(['new:a', 'new:b']);
    const entry = first.upserts.find(([id]) => id === 'a')![1];
    expect(entry).toMatchObject({ eventId: 'e-a', chatId: CHAT, messageId: null, firstSeenAt: T0, goneAt: null, profit: 2.35, odds: [2.1, 2.05] });
    for (let i = 1; i <= 20; i++) expect(sub.read(T0 + i * 5_000, [opp('a'), opp('b')]).events).toEqual([]);
  });

  it('edits on a move of at least 0.01 in odds or 0.05 pp in profit, and ignores smaller drifts', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a', [2.1, 2.05], 2.35)]);
    expect(sub.read(T0 + 15_000, [opp('a', [2.105, 2.05], 2.38)]).events).toEqual([]);
    const moved = sub.read(T0 + 20_000, [opp('a', [2.11, 2.05], 2.38)]);
    expect(types(moved.events)).toEqual(['moved:a']);
    const ev = moved.events[0] as Extract<DiffEvent, { type: 'moved' }>;
    expect(ev.prev.legs.map((l) => l.odds)).toEqual([2.1, 2.05]);
    expect(ev.prev.profit).toBe(2.35);
    expect(ev.item.legs[0]!.odds).toBe(2.11);
    expect(sub.entries.get('a')).toMatchObject({ odds: [2.11, 2.05], profit: 2.38, lastEditAt: T0 + 20_000 });
    // Profit alone.
    expect(types(sub.read(T0 + 40_000, [opp('a', [2.11, 2.05], 2.43)]).events)).toEqual(['moved:a']);
    // Masked odds appearing count as a change; a leg added too.
    expect(types(sub.read(T0 + 60_000, [opp('a', [null, 2.05], 2.43)]).events)).toEqual(['moved:a']);
    expect(types(sub.read(T0 + 80_000, [opp('a', [null, 2.05, 3.1], 2.43)]).events)).toEqual(['moved:a']);
  });

  it('edits an alert at most once per 10 s; the held change rides on a later read', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a', [2.1, 2.05])]);
    // Moves 4 s and 8 s after the alert: too soon.
    expect(sub.read(T0 + 4_000, [opp('a', [2.2, 2.05])]).events).toEqual([]);
    expect(sub.read(T0 + 8_000, [opp('a', [2.3, 2.05])]).events).toEqual([]);
    const at10 = sub.read(T0 + EDIT_MIN_INTERVAL_MS, [opp('a', [2.3, 2.05])]);
    expect(types(at10.events)).toEqual(['moved:a']);
    const ev = at10.events[0] as Extract<DiffEvent, { type: 'moved' }>;
    // Compared with what the message shows (2.10), carrying the newest state (2.30).
    expect(ev.prev.legs[0]!.odds).toBe(2.1);
    expect(ev.item.legs[0]!.odds).toBe(2.3);
    // A burst of moves within the next 10 s: no edit; then one.
    const edits: number[] = [];
    for (let t = 11_000; t <= 40_000; t += 1_000) {
      if (sub.read(T0 + t, [opp('a', [2.3 + t / 1e6, 2.05])]).events.length > 0) edits.push(t);
    }
    expect(edits).toEqual([20_000, 30_000, 40_000]);
  });

  it('does not edit an alert whose message is not sent yet, and keeps its shown state until it is', () => {
    const r = diffRead({ now: T0, chatId: CHAT, items: [opp('a')], entries: [] });
    const entries = new Map(r.upserts);
    const later = diffRead({ now: T0 + 30_000, chatId: CHAT, items: [opp('a', [2.5, 2.05])], entries, known: r.known, previousReadAt: T0 });
    expect(later.events).toEqual([]);
    expect(later.upserts).toEqual([]);
    // Once the message id is known, the difference from the sent state is edited in.
    entries.set('a', { ...entries.get('a')!, messageId: 7 });
    const sent = diffRead({ now: T0 + 35_000, chatId: CHAT, items: [opp('a', [2.5, 2.05])], entries, known: later.known, previousReadAt: T0 + 30_000 });
    expect(sent.events).toMatchObject([{ type: 'moved', itemId: 'a', prev: { legs: [{ odds: 2.1 }, { odds: 2.05 }] } }]);
  });

  it('marks a gone item with how long it lived', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a'), opp('b')]);
    for (let t = 5_000; t < 250_000; t += 5_000) sub.read(T0 + t, [opp('a'), opp('b')]);
    const gone = sub.read(T0 + 250_000, [opp('b')]);
    expect(types(gone.events)).toEqual(['gone:a']);
    const ev = gone.events[0] as Extract<DiffEvent, { type: 'gone' }>;
    expect(ev.livedMs).toBe(250_000);
    expect(ev.last.id).toBe('a');
    expect(sub.entries.get('a')).toMatchObject({ goneAt: T0 + 250_000, goneShown: true });
    // Reported once.
    expect(sub.read(T0 + 255_000, [opp('b')]).events).toEqual([]);
  });

  it('holds a gone edit that comes within 10 s of the last edit, then sends it', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    expect(types(sub.read(T0 + 20_000, [opp('a', [2.3, 2.05])]).events)).toEqual(['moved:a']);
    expect(sub.read(T0 + 25_000, []).events).toEqual([]);
    expect(sub.entries.get('a')).toMatchObject({ goneAt: T0 + 25_000, goneShown: false });
    const later = sub.read(T0 + 30_000, []);
    expect(types(later.events)).toEqual(['gone:a']);
    expect((later.events[0] as Extract<DiffEvent, { type: 'gone' }>).livedMs).toBe(25_000);
  });

  it('marks an item gone once the alert that was still on its way has a message id', () => {
    const r1 = diffRead({ now: T0, chatId: CHAT, items: [opp('a')], entries: [] });
    const entries = new Map(r1.upserts);
    const r2 = diffRead({ now: T0 + 15_000, chatId: CHAT, items: [], entries, known: r1.known, previousReadAt: T0 });
    expect(r2.events).toEqual([]);
    for (const [id, e] of r2.upserts) entries.set(id, e);
    expect(r2.known.has('a')).toBe(true);
    entries.set('a', { ...entries.get('a')!, messageId: 9 });
    const r3 = diffRead({ now: T0 + 20_000, chatId: CHAT, items: [], entries, known: r2.known, previousReadAt: T0 + 15_000 });
    expect(r3.events).toMatchObject([{ type: 'gone', itemId: 'a', livedMs: 15_000, entry: { messageId: 9, goneShown: true } }]);
  });

  it('after a gap in reading, dates the disappearance to the last sighting', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    sub.read(T0 + 5_000, [opp('a')]);
    // The next read comes 30 minutes later (the service was outside its token window).
    const gone = sub.read(T0 + 5_000 + 30 * 60_000, []);
    expect((gone.events[0] as Extract<DiffEvent, { type: 'gone' }>).livedMs).toBe(5_000);
  });

  it('does not alert an item that returns soon without better profit; edits its alert back', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a', [2.1, 2.05], 2.35)]);
    sub.read(T0 + 60_000, []);
    expect(sub.entries.get('a')?.goneShown).toBe(true);
    const back = sub.read(T0 + 60_000 + 5 * 60_000, [opp('a', [2.1, 2.06], 2.36)]);
    expect(types(back.events)).toEqual(['returned:a']);
    expect(sub.entries.get('a')).toMatchObject({ goneAt: null, goneShown: false, messageId: 100, profit: 2.36 });
    // Present again: it can go again.
    expect(types(sub.read(T0 + 60_000 + 6 * 60_000, []).events)).toEqual(['gone:a']);
  });

  it('revives the alert of a returning item within the window even when its profit improved (one message per arb)', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a', [2.1, 2.05], 2.35)]);
    sub.read(T0 + 60_000, []);
    const back = sub.read(T0 + 120_000, [opp('a', [2.2, 2.05], 2.4)]);
    expect(back.events).toMatchObject([{ type: 'returned', itemId: 'a', awayMs: 60_000 }]);
    expect(sub.entries.get('a')).toMatchObject({ firstSeenAt: T0, goneAt: null, messageId: 100 });
  });

  it('takes the revive window from REVIVE_MINUTES (reviveMs)', () => {
    const sub = new Sub(5 * 60_000);
    sub.read(T0, [opp('a')]);
    expect(sub.read(T0 + 20_000, []).events).toMatchObject([{ type: 'gone' }]);
    expect(sub.read(T0 + 20_000 + 4 * 60_000, [opp('a')]).events).toMatchObject([{ type: 'returned', awayMs: 4 * 60_000 }]);
    expect(sub.read(T0 + 40_000 + 4 * 60_000, []).events).toMatchObject([{ type: 'gone' }]);
    expect(sub.read(T0 + 40_000 + 10 * 60_000, [opp('a')]).events).toMatchObject([{ type: 'new', returned: true }]);
  });

  it('alerts a returning item anew after the return window', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    sub.read(T0 + 5_000, []);
    const back = sub.read(T0 + 5_000 + RETURN_WINDOW_MS + 1, [opp('a')]);
    expect(back.events).toMatchObject([{ type: 'new', itemId: 'a', returned: true }]);
  });

  it('lets an item that left and came back before its gone edit carry on silently', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    sub.read(T0 + 20_000, [opp('a', [2.3, 2.05])]); // edit at +20 s
    expect(sub.read(T0 + 25_000, []).events).toEqual([]); // gone, edit held
    expect(sub.read(T0 + 28_000, [opp('a', [2.3, 2.05])]).events).toEqual([]);
    expect(sub.entries.get('a')).toMatchObject({ goneAt: null, goneShown: false, messageId: 100 });
  });

  it('keeps a flapping item to one edit per 10 s', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    let edits = 0;
    for (let t = 20_000; t < 80_000; t += 2_000) {
      const present = (t / 2_000) % 2 === 0;
      edits += sub.read(T0 + t, present ? [opp('a')] : []).events.length;
    }
    expect(edits).toBeGreaterThan(0);
    expect(edits).toBeLessThanOrEqual(6);
  });

  it('survives a restart: stored entries mean no new alert and no duplicate', () => {
    const before = new Sub();
    before.read(T0, [opp('a'), opp('b')]);
    // A new process: the same stored entries, nothing in memory.
    const after = new Sub();
    after.entries = new Map(before.entries);
    const first = after.read(T0 + 60_000, [opp('a'), opp('b', [2.3, 2.05])]);
    expect(types(first.events)).toEqual(['moved:b']);
    // Seen since the restart: its disappearance can be shown.
    expect(types(after.read(T0 + 65_000, [opp('b', [2.3, 2.05])]).events)).toEqual(['gone:a']);

    // Gone while the bot was down: recorded, but with no last form in memory its message is left as it was.
    const again = new Sub();
    again.entries = new Map(before.entries);
    expect(again.read(T0 + 60_000, [opp('b')]).events).toEqual([]);
    expect(again.entries.get('a')).toMatchObject({ goneAt: T0, goneShown: false });
    expect(again.read(T0 + 65_000, [opp('b')]).events).toEqual([]);
  });

  it('prunes gone entries after an hour and bounds the count per subscription', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a'), opp('b')]);
    sub.read(T0 + 5_000, [opp('b')]);
    expect(sub.entries.has('a')).toBe(true);
    const later = sub.read(T0 + 5_000 + GONE_KEEP_MS + 1, [opp('b')]);
    expect(later.deletes).toEqual(['a']);
    expect(sub.entries.has('a')).toBe(false);

    const big = new Sub();
    let t = T0;
    for (let batch = 0; batch < 4; batch++) {
      const items = Array.from({ length: 400 }, (_, i) => opp(`x${batch}-${i}`));
      big.read((t += 1_000), items);
    }
    big.read((t += 1_000), []);
    expect(big.entries.size).toBeLessThanOrEqual(MAX_ENTRIES_PER_SUBSCRIPTION);
    // The newest gone entries are the ones kept.
    expect(big.entries.has('x3-0')).toBe(true);
    expect(big.entries.has('x0-0')).toBe(false);
  });

  it('keeps only the best items of a read larger than the cap', () => {
    const items = Array.from({ length: MAX_ENTRIES_PER_SUBSCRIPTION + 10 }, (_, i) => opp(`y${i}`, [2, 2], i / 100));
    const r = diffRead({ now: T0, chatId: CHAT, items, entries: [] });
    expect(r.events).toHaveLength(MAX_ENTRIES_PER_SUBSCRIPTION);
    expect(r.known.has('y0')).toBe(false);
    expect(r.known.has(`y${MAX_ENTRIES_PER_SUBSCRIPTION + 9}`)).toBe(true);
  });

  it('writes lastSeenAt back only every few minutes while nothing changes', () => {
    const sub = new Sub();
    sub.read(T0, [opp('a')]);
    let writes = 0;
    for (let t = 5_000; t <= 10 * 60_000; t += 5_000) writes += sub.read(T0 + t, [opp('a')]).upserts.length;
    expect(writes).toBe(Math.floor((10 * 60_000) / SEEN_REFRESH_MS));
  });

  it('uses overvalue as the headline of valuebets', () => {
    const sub = new Sub();
    sub.read(T0, [opp('v', [2.5], 4.0, 'valuebets_live')]);
    expect(sub.entries.get('v')?.profit).toBe(4.0);
    const moved = sub.read(T0 + 20_000, [opp('v', [2.5], 4.1, 'valuebets_live')]);
    expect(types(moved.events)).toEqual(['moved:v']);
    expect((moved.events[0] as Extract<DiffEvent, { type: 'moved' }>).prev.overvalue).toBe(4.0);
  });
});

describe('move helpers', () => {
  it('hasMoved and shownAs agree with the thresholds', () => {
    const entry: AlertEntry = {
      eventId: 'e', chatId: 1, messageId: 1, firstSeenAt: 0, lastSeenAt: 0, goneAt: null, profit: 1, odds: [2, 3], lastEditAt: 0,
    };
    expect(hasMoved(opp('a', [2.0, 3.0], 1.04), entry)).toBe(false);
    expect(hasMoved(opp('a', [2.0, 3.0], 1.05), entry)).toBe(true);
    expect(hasMoved(opp('a', [2.009, 3.0], 1), entry)).toBe(false);
    expect(hasMoved(opp('a', [2.01, 3.0], 1), entry)).toBe(true);
    expect(hasMoved(opp('a', [2.0, 2.99], 1), entry)).toBe(true);
    const shown = shownAs(opp('a', [2.5, 3.5], 7), entry);
    expect(shown.legs.map((l) => l.odds)).toEqual([2, 3]);
    expect(shown.profit).toBe(1);
  });
});
