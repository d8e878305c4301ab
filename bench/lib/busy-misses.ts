/**
 * Why qualifying alerts were missed, worked out from the outside like the figures themselves: for
 * each (user, item) pair that qualified but got no alert, whether the user's key read the item's
 * service while the item lived (the sandbox's read log), and if not, whether the key's token was
 * then in its last `tailMs` (the stretch the bot leaves unused before a token expires) or not held
 * at all. A pair that was read but got no alert is told apart by whether the chat got a message
 * naming no item meanwhile (a digest line carries no id, so the bench cannot credit it).
 */
import type { Service } from '../../src/service/services.js';
import type { TokenGrant } from '../../src/sandbox/index.js';
import { QUALIFY_MS, type Watch, type Window } from './busy-figures.js';

export interface ReadRecord {
  at: number;
  accessKey: string;
  base: string;
}

export interface MissReasons {
  /** Missed pairs in all. */
  missed: number;
  /** Not read during the item's life, the token then in its unused tail. */
  unreadInTail: number;
  /** Not read during the item's life, other causes (between tokens, parked, backing off). */
  unreadOther: number;
  /** Read while it lived, no alert naming it, and the chat got a message naming no item meanwhile. */
  readDigestNearby: number;
  /** Read while it lived, no alert naming it, nothing else sent to the chat meanwhile. */
  readNoAlert: number;
  /** Named by a send after the counted grace. */
  sentLate: number;
  /** Missed pairs per service. */
  byService: Partial<Record<Service, number>>;
  /** A few examples, for the log. */
  examples: string[];
}

type Items = Map<Service, Map<string, { at: number; goneAt?: number }>>;

/** Each key's token intervals per service, shortened by `tailMs` at the end (the time the bot can use). */
export function usableCoverage(grants: readonly TokenGrant[], tailMs: number): TokenGrant[] {
  return grants.map((g) => ({ ...g, expiresAt: Math.max(g.at, g.expiresAt - tailMs) }));
}

function inAny(intervals: readonly [number, number][], t: number): boolean {
  return intervals.some(([a, b]) => t >= a && t < b);
}

export function explainMisses(opts: {
  watches: readonly Watch[];
  items: Items;
  /** First send naming each (chat, item) — all of them, also past the grace. */
  sends: Map<string, number>;
  /** Messages naming no item, per chat: when they were sent. */
  unnamedByChat: Map<number, number[]>;
  coverage: Map<string, [number, number][]>;
  usable: Map<string, [number, number][]>;
  reads: readonly ReadRecord[];
  baseOf: (s: Service) => string;
  window: Window;
}): MissReasons {
  const { watches, items, sends, coverage, usable, window } = opts;
  const r: MissReasons = { missed: 0, unreadInTail: 0, unreadOther: 0, readDigestNearby: 0, readNoAlert: 0, sentLate: 0, byService: {}, examples: [] };
  const readsBy = new Map<string, number[]>();
  for (const x of opts.reads) {
    const k = `${x.accessKey}|${x.base}`;
    const list = readsBy.get(k) ?? [];
    list.push(x.at);
    readsBy.set(k, list);
  }
  for (const w of watches) {
    const held = coverage.get(`${w.coverKey}|${w.service}`) ?? [];
    const canUse = usable.get(`${w.coverKey}|${w.service}`) ?? [];
    const reads = readsBy.get(`${w.coverKey}|${opts.baseOf(w.service)}`) ?? [];
    for (const [id, item] of items.get(w.service) ?? []) {
      const lifeEnd = Math.min(item.goneAt ?? window.graceEnd, window.graceEnd);
      if (lifeEnd - item.at < QUALIFY_MS) continue;
      let heldMs = 0;
      for (const [a, b] of held) heldMs += Math.max(0, Math.min(b, lifeEnd) - Math.max(a, item.at));
      if (heldMs < QUALIFY_MS) continue;
      const sentAt = sends.get(`${w.chatId}|${id}`);
      if (sentAt !== undefined && sentAt <= window.graceEnd) continue;
      r.missed += 1;
      r.byService[w.service] = (r.byService[w.service] ?? 0) + 1;
      const life = `${w.service} item ${id} lived ${((lifeEnd - item.at) / 1000).toFixed(1)} s from +${((item.at - window.start) / 1000).toFixed(1)} s`;
      if (sentAt !== undefined) {
        r.sentLate += 1;
        if (r.examples.length < 12) r.examples.push(`${life}: sent late, +${((sentAt - item.at) / 1000).toFixed(1)} s`);
        continue;
      }
      const readsInLife = reads.filter((t) => t >= item.at && t < lifeEnd).length;
      if (readsInLife === 0) {
        // Held (per the sandbox) but not usable by the bot at the item's birth: the token's tail.
        const inTail = inAny(held, item.at) && !inAny(canUse, item.at);
        if (inTail) r.unreadInTail += 1;
        else r.unreadOther += 1;
        const last = reads.filter((t) => t < item.at).pop();
        const next = reads.find((t) => t >= lifeEnd);
        if (r.examples.length < 12) {
          r.examples.push(
            `${life}: no read while it lived (${inTail ? 'token in its last stretch' : 'other'}; reads before −${last === undefined ? '∞' : ((item.at - last) / 1000).toFixed(1)} s, after +${next === undefined ? '∞' : ((next - lifeEnd) / 1000).toFixed(1)} s past its end)`,
          );
        }
        continue;
      }
      const digest = (opts.unnamedByChat.get(w.chatId) ?? []).some((t) => t >= item.at && t <= lifeEnd + 30_000);
      if (digest) r.readDigestNearby += 1;
      else r.readNoAlert += 1;
      if (r.examples.length < 12) r.examples.push(`${life}: read ${readsInLife}× while it lived, no alert${digest ? ' (a message naming no item went to the chat)' : ''}`);
    }
  }
  return r;
}
