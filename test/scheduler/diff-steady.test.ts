/**
 * The diff's shortcut for a read that changes nothing (diff.ts `steadyRead`): the same items and
 * the same entry objects as a quiet read, before the first moment a time rule would act, give the
 * quiet answer at once. Held here against the full diff over random sequences of reads — items
 * that stay, move, vanish, come back or cannot be stored, time that jumps by a second or an hour,
 * alerts whose message ids arrive late and edits that fail — so the shortcut never changes an
 * event, an entry or what is kept to draw a "gone" edit.
 */
import { describe, expect, it } from 'vitest';
import { diffRead, diffReadInFull, SEEN_REFRESH_MS, type DiffResult } from '../../src/scheduler/diff.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { AlertEntry } from '../../src/store/schema.js';
import { opp } from './fixtures.js';
import { seededRandom } from './harness.js';

const T0 = Date.UTC(2026, 0, 3, 10, 0);

/** A subscription's state as the scheduler and the store carry it: entries are replaced, never changed in place. */
class Sub {
  readonly entries = new Map<string, AlertEntry>();
  known: Map<string, Opportunity> = new Map();
  lastReadAt: number | undefined;
  /** Reads answered by the shortcut: it hands back the very `known` map it was given (the full diff always makes a new one). */
  shortcuts = 0;
  /** Lookup events (an alert's message to find by its send's key). */
  lookups = 0;

  constructor(private readonly diffOf: typeof diffRead) {}

  read(now: number, items: Opportunity[]): DiffResult {
    const result = this.diffOf({
      now,
      chatId: 42,
      items,
      entries: this.entries,
      known: this.known,
      ...(this.lastReadAt !== undefined ? { previousReadAt: this.lastReadAt } : {}),
    });
    if (result.known === this.known) this.shortcuts += 1;
    this.lookups += result.events.filter((e) => e.type === 'lookup').length;
    for (const [id, e] of result.upserts) this.entries.set(id, { ...e, odds: [...e.odds] });
    for (const id of result.deletes) this.entries.delete(id);
    this.known = result.known;
    this.lastReadAt = now;
    return result;
  }

  /** What the notifier does later: the message id of a sent alert (its send's key no longer needed), or none after a failed edit. */
  setMessage(itemId: string, messageId: number | null): void {
    const entry = this.entries.get(itemId);
    if (!entry) return;
    const { sentKey: _sentKey, ...rest } = entry;
    this.entries.set(itemId, { ...rest, messageId });
  }

  /** What a cluster's notifier does as it sends an alert: the key to find its message by, if its answer comes late. */
  setSentKey(itemId: string): void {
    const entry = this.entries.get(itemId);
    if (entry) this.entries.set(itemId, { ...entry, sentKey: `k-${itemId}` });
  }
}

const plain = (r: DiffResult) => ({ ...r, known: Array.from(r.known) });

describe('diffRead on a read that changes nothing', () => {
  it('answers as the full diff does, over random sequences of reads', () => {
    let reads = 0;
    let shortcuts = 0;
    let lookups = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      // A few versions of each item, made once: the client and the interner hand back the same objects.
      const versions = new Map<string, Opportunity[]>();
      for (const id of ['a', 'b', 'c', 'd', 'e']) {
        versions.set(id, [opp(id), opp(id, [2.1, 2.05], 2.36), opp(id, [2.2, 2.05], 2.6), opp(id, [2.3, 1.9], 3.5), opp(id, [null, 2.05], 2.6)]);
      }
      const broken = opp('x', [Number.NaN, 2], 2);
      const fast = new Sub(diffRead);
      const slow = new Sub(diffReadInFull);
      let now = T0;
      let items: Opportunity[] = [];
      let nextMessageId = 1;
      const late: string[] = [];
      for (let step = 0; step < 150; step++) {
        now += pick([500, 1_000, 2_000, 2_000, 2_000, 5_000, 10_000, 61_000, 5 * 60_000, 11 * 60_000, 61 * 60_000]);
        const change = random();
        if (change < 0.15) items = items.filter(() => random() < 0.7);
        else if (change < 0.3) {
          const id = pick(['a', 'b', 'c', 'd', 'e']);
          items = [...items.filter((i) => i.id !== id), pick(versions.get(id)!)];
        } else if (change < 0.33) items = [...items, broken];
        else if (change < 0.36) items = items.filter((i) => i !== broken);
        else if (change < 0.38) items = [...items].reverse();
        // else: the same items again (most reads)
        const a = fast.read(now, [...items]);
        const b = slow.read(now, [...items]);
        reads += 1;
        expect(plain(a), `seed ${seed}, step ${step}`).toEqual(plain(b));
        expect(Array.from(fast.entries)).toEqual(Array.from(slow.entries));
        // Message ids arrive with the alert's send, now or a read later; now and then an edit fails.
        for (const ev of a.events) {
          // Half the alerts' answers come too late for their calls (a cluster's front behind a flood):
          // their message ids are found by their sends' keys, when a lookup asks and the front has sent them.
          if (ev.type === 'new' && random() < 0.5) {
            fast.setSentKey(ev.itemId);
            slow.setSentKey(ev.itemId);
          } else if (ev.type === 'new') late.push(ev.itemId);
          else if (ev.type === 'lookup' && random() < 0.4) {
            const messageId = nextMessageId++;
            fast.setMessage(ev.itemId, messageId);
            slow.setMessage(ev.itemId, messageId);
          }
        }
        for (const id of late.splice(0, random() < 0.6 ? late.length : 0)) {
          const messageId = random() < 0.9 ? nextMessageId++ : null;
          fast.setMessage(id, messageId);
          slow.setMessage(id, messageId);
        }
        if (random() < 0.03 && items.length > 0) {
          const id = pick(items).id;
          fast.setMessage(id, null);
          slow.setMessage(id, null);
        }
      }
      lookups += fast.lookups;
      expect(slow.shortcuts).toBe(0);
      shortcuts += fast.shortcuts;
    }
    // The shortcut answered a good share of the reads, so the comparison above means something.
    expect(shortcuts).toBeGreaterThan(reads * 0.2);
    // And alerts waited for their message to be found, each move and end of theirs a lookup.
    expect(lookups).toBeGreaterThan(20);
  });

  it('takes the shortcut only for the same item and entry objects, and only until a time rule is due', () => {
    const sub = new Sub(diffRead);
    const a = opp('a');
    sub.read(T0, [a]);
    sub.setMessage('a', 7);
    sub.read(T0 + 2_000, [a]);
    // Quiet, the same objects: the shortcut.
    expect(sub.read(T0 + 4_000, [a]).events).toEqual([]);
    expect(sub.shortcuts).toBe(1);
    // An equal but different object: the full diff.
    const b = opp('a');
    sub.read(T0 + 6_000, [b]);
    expect(sub.shortcuts).toBe(1);
    sub.read(T0 + 8_000, [b]);
    expect(sub.shortcuts).toBe(2);
    // A new entry object for the item (the notifier stored something): the full diff.
    sub.setMessage('a', 8);
    sub.read(T0 + 10_000, [b]);
    expect(sub.shortcuts).toBe(2);
    // Up to the moment the lastSeenAt refresh falls due: the shortcut; then the full diff writes it.
    sub.read(T0 + SEEN_REFRESH_MS - 1, [b]);
    expect(sub.shortcuts).toBe(3);
    const refresh = sub.read(T0 + SEEN_REFRESH_MS, [b]);
    expect(sub.shortcuts).toBe(3);
    expect(refresh.upserts.map(([id]) => id)).toEqual(['a']);
  });
});
