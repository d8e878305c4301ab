/**
 * What users saw, worked out after a busy-world run from the outside only: the world's changes
 * (when each item appeared and went, sandbox time), the tokens the sandbox handed out (when each
 * key could read each service), and the messages that reached the fake Bot API (an alert names
 * its item id). The same arithmetic serves the bot and the poller, so the two compare line by line.
 */
import type { FakeTelegram } from '../../src/fake-telegram/server.js';
import type { SandboxKey, TokenGrant, WorldChange } from '../../src/sandbox/index.js';
import type { Service } from '../../src/service/services.js';

/** An item that lived at least this long, while its service was readable, should be alerted. */
export const QUALIFY_MS = 3_000;

/** One user's subscription to one service; `coverKey` is the key whose tokens read it. */
export interface Watch {
  chatId: number;
  service: Service;
  coverKey: string;
}

export interface Window {
  start: number;
  end: number;
  /** Sends up to here still count for items that appeared before `end`. */
  graceEnd: number;
}

export interface Delivery {
  /** Appearance → first message naming the item (sent, or an alert revived for it), ms, per (user, item) delivered. */
  latencies: number[];
  /** (user, item) pairs that lived ≥ 3 s while the user's key held a token for the service. */
  qualifying: number;
  delivered: number;
  /** (user, item) pairs that lived ≥ 3 s, whatever the tokens. */
  lived: number;
  deliveredOfLived: number;
  /**
   * Pairs first named before the item counted (before the move that made it an arb for the user):
   * a push for what was then no arb. Delivered, but left out of the latencies (they would read negative).
   */
  early: number;
  /** Mean share of the window in which the users' keys held a token for their services. */
  coverage: number;
}

const ITEM_ID = /\b[0-9a-f]{16}\b/g;

/**
 * When each (chat, item id) was first named by a message, recorded as the messages arrive (a
 * message's buttons change when its item goes, so they are read as first sent). An alert names
 * its item in its text or in its buttons' callback data; both are scanned for a 16-hex id.
 *
 * A message edited into naming an item the chat never saw named is that item's delivery, timed at
 * the edit: one message per arb (issue 31) revives the "⛔ Gone" alert of the same arb (same event,
 * market, line and bookmakers) when it comes back under a new item id, instead of sending a new
 * one. Those are counted apart (`byEdit`) so the figure shows how many there were.
 */
export function recordFirstSends(telegram: Pick<FakeTelegram, 'onActivity'>): {
  firsts: Map<string, number>;
  /** The (chat, item) keys of `firsts` first named by an edit. */
  byEdit: Set<string>;
  unnamed: number[];
  unnamedByChat: Map<number, number[]>;
  stop: () => void;
} {
  const firsts = new Map<string, number>();
  const byEdit = new Set<string>();
  /** When messages naming no item were sent (command replies, digests, summaries). */
  const unnamed: number[] = [];
  const unnamedByChat = new Map<number, number[]>();
  const stop = telegram.onActivity((e) => {
    if ((e.kind !== 'sent' && e.kind !== 'edited') || !e.message) return;
    const m = e.message;
    const text = `${m.text} ${JSON.stringify(m.reply_markup ?? null)}`;
    const ids = text.match(ITEM_ID) ?? [];
    if (e.kind === 'edited') {
      const at = m.edited_at ?? m.at;
      for (const id of ids) {
        const key = `${m.chat_id}|${id}`;
        if (firsts.has(key)) continue;
        firsts.set(key, at);
        byEdit.add(key);
      }
      return;
    }
    if (ids.length === 0) {
      unnamed.push(m.at);
      const list = unnamedByChat.get(m.chat_id) ?? [];
      list.push(m.at);
      unnamedByChat.set(m.chat_id, list);
    }
    for (const id of ids) {
      const key = `${m.chat_id}|${id}`;
      const at = firsts.get(key);
      if (at === undefined || m.at < at) {
        firsts.set(key, m.at);
        byEdit.delete(key);
      }
    }
  });
  return { firsts, byEdit, unnamed, unnamedByChat, stop };
}

/** Merged [from, to) intervals in which each key held a token for each service. */
export function coverageOf(grants: readonly TokenGrant[]): Map<string, [number, number][]> {
  const byKey = new Map<string, [number, number][]>();
  for (const g of grants) {
    const k = `${g.accessKey}|${g.service}`;
    const list = byKey.get(k) ?? [];
    list.push([g.at, g.expiresAt]);
    byKey.set(k, list);
  }
  for (const [k, list] of byKey) {
    list.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [from, to] of list) {
      const last = merged[merged.length - 1];
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    byKey.set(k, merged);
  }
  return byKey;
}

function overlap(intervals: readonly [number, number][], from: number, to: number): number {
  let total = 0;
  for (const [a, b] of intervals) total += Math.max(0, Math.min(b, to) - Math.max(a, from));
  return total;
}

/**
 * Items that appeared in the window, per service: appearance and (when it went) disappearance; none
 * of `left`; an item in `from` counts from then if that is later than its appearance (it became an
 * arb for the user only when its odds moved).
 */
export function itemsOf(
  changes: readonly WorldChange[],
  window: Window,
  left: ReadonlySet<string> = new Set(),
  from: ReadonlyMap<string, number> = new Map(),
): Map<Service, Map<string, { at: number; goneAt?: number }>> {
  const out = new Map<Service, Map<string, { at: number; goneAt?: number }>>();
  for (const c of changes) {
    if (left.has(c.id)) continue;
    const items = out.get(c.service) ?? new Map<string, { at: number; goneAt?: number }>();
    out.set(c.service, items);
    if (c.type === 'appeared' && c.at >= window.start && c.at < window.end) items.set(c.id, { at: Math.max(c.at, from.get(c.id) ?? c.at) });
    if (c.type === 'gone') {
      const item = items.get(c.id);
      if (item) item.goneAt = c.at;
    }
  }
  return out;
}

/** The delivery figures of one side (bot or poller). */
export function delivery(
  watches: readonly Watch[],
  items: Map<Service, Map<string, { at: number; goneAt?: number }>>,
  sends: Map<string, number>,
  coverage: Map<string, [number, number][]>,
  window: Window,
): Delivery {
  const d: Delivery = { latencies: [], qualifying: 0, delivered: 0, lived: 0, deliveredOfLived: 0, early: 0, coverage: 0 };
  let covered = 0;
  for (const w of watches) {
    const intervals = coverage.get(`${w.coverKey}|${w.service}`) ?? [];
    covered += overlap(intervals, window.start, window.end) / (window.end - window.start);
    for (const [id, item] of items.get(w.service) ?? []) {
      const lifeEnd = Math.min(item.goneAt ?? window.graceEnd, window.graceEnd);
      const sentAt = sends.get(`${w.chatId}|${id}`);
      const sent = sentAt !== undefined && sentAt <= window.graceEnd;
      if (sent && sentAt < item.at) d.early += 1;
      else if (sent) d.latencies.push(sentAt - item.at);
      if (lifeEnd - item.at < QUALIFY_MS) continue;
      d.lived += 1;
      if (sent) d.deliveredOfLived += 1;
      if (overlap(intervals, item.at, lifeEnd) < QUALIFY_MS) continue;
      d.qualifying += 1;
      if (sent) d.delivered += 1;
    }
  }
  d.coverage = watches.length > 0 ? covered / watches.length : 0;
  return d;
}

/**
 * Every (side, chat, item) delivered, for BENCH_BUSY_DUMP: when the item counts from (its
 * appearance, or the move that made it an arb for the user), when a message first named it in that
 * chat and whether that was an edit, so a percentile can be traced to the items behind it.
 */
export function pairsOf(
  items: ReturnType<typeof itemsOf>,
  sends: Record<'bot' | 'poller', ReturnType<typeof recordFirstSends>>,
  window: Window,
): { side: string; chat: number; item: string; service: Service; from: number; goneAt?: number; firstAt: number; latencyMs: number; byEdit?: true }[] {
  const out: ReturnType<typeof pairsOf> = [];
  for (const side of ['bot', 'poller'] as const) {
    for (const [key, at] of sends[side].firsts) {
      const [chat, id] = key.split('|') as [string, string];
      for (const [service, list] of items) {
        const item = list.get(id);
        if (!item || at > window.graceEnd) continue;
        out.push({
          side, chat: Number(chat), item: id, service, from: item.at, ...(item.goneAt !== undefined ? { goneAt: item.goneAt } : {}),
          firstAt: at, latencyMs: at - item.at, ...(sends[side].byEdit.has(key) ? { byEdit: true as const } : {}),
        });
      }
    }
  }
  return out.sort((x, y) => y.latencyMs - x.latencyMs);
}

/** Item reads in the window by `keys`, from the sandbox's uses per (key, host, kind). */
export function readsOf(byKeyHost: Record<string, number>, keys: SandboxKey[]): number {
  let n = 0;
  for (const k of keys) for (const [name, v] of Object.entries(byKeyHost)) if (name.startsWith(`${k.accessKey}|`) && name.endsWith('|items')) n += v;
  return n;
}
