import { afterEach, describe, expect, it } from 'vitest';
import type { WireItem } from '../../src/sandbox/index.js';
import { SERVICES } from '../../src/service/services.js';
import { Harness, readItems, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

const oddsOf = (items: WireItem[]) => new Map(items.map((i) => [i.id, i.odds.map((l) => l.value).join('/')]));

describe('sandbox world', () => {
  it('items appear, move and vanish as the clock advances', async () => {
    const sb = await h.start();
    const before = sb.currentItems('arbs_prematch');
    expect(before.length).toBe(12);
    const start = h.clock.now();
    await h.clock.advance(20_000);
    const after20s = sb.currentItems('arbs_prematch');
    const moved = after20s.filter((i) => {
      const was = oddsOf(before).get(i.id);
      return was !== undefined && was !== oddsOf([i]).get(i.id);
    });
    expect(moved.length).toBeGreaterThan(0);
    for (const item of moved) {
      const changed = item.odds.filter((l) => l.prev !== l.value);
      expect(changed).toHaveLength(1);
      const leg = changed[0];
      if (!leg) continue;
      expect(Math.abs(leg.value - leg.prev)).toBeLessThan(0.2);
      const updated = Date.parse(`${(leg.updated ?? '').replace(' ', 'T')}Z`);
      expect(updated).toBeGreaterThan(start);
      expect(updated).toBeLessThanOrEqual(h.clock.now());
    }
    await h.clock.advance(15 * 60_000);
    const later = sb.currentItems('arbs_prematch');
    const beforeIds = new Set(before.map((i) => i.id));
    const gone = before.filter((i) => !later.some((l) => l.id === i.id));
    const fresh = later.filter((i) => !beforeIds.has(i.id));
    expect(gone.length).toBeGreaterThan(6);
    expect(fresh.length).toBeGreaterThan(6);
    for (const item of fresh) expect(sb.world.appearedAt(item.id)).toBeGreaterThan(start);
    for (const item of gone) expect(sb.world.appearedAt(item.id)).toBeLessThanOrEqual(start);
    const changes = sb.world.changes(start, 'arbs_prematch');
    expect(changes.filter((c) => c.type === 'gone').map((c) => c.id)).toEqual(expect.arrayContaining(gone.map((i) => i.id)));
    expect(changes.filter((c) => c.type === 'appeared').map((c) => c.id)).toEqual(expect.arrayContaining(fresh.map((i) => i.id)));
    expect(changes.some((c) => c.type === 'moved')).toBe(true);
  });

  it('keeps about itemsPerService items alive over eventsPerService events for hours', async () => {
    const sb = await h.start({ world: { itemsPerService: 12, eventsPerService: 20 } });
    const counts: number[] = [];
    for (let i = 0; i < 36; i++) {
      await h.clock.advance(5 * 60_000);
      for (const service of SERVICES) {
        const env = sb.currentEnvelope(service);
        counts.push(env.items.length);
        expect(env.events.length).toBeLessThanOrEqual(20);
      }
    }
    const mean = counts.reduce((s, c) => s + c, 0) / counts.length;
    expect(mean).toBeGreaterThan(9);
    expect(Math.max(...counts)).toBeLessThanOrEqual(12);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(4);
  });

  it('is deterministic for a seed, whatever the pattern of reads, and differs for another seed', async () => {
    const a = await h.start({ seed: 42, limits: { tokensPerHour: 100 } });
    const b = await h.start({ seed: 42 });
    const c = await h.start({ seed: 43 });
    // a is looked at often, b only at the end: the world must not care.
    for (let i = 0; i < 30; i++) {
      await h.clock.advance(37_000);
      a.currentItems('middles_live');
      await readItems(a, 'arbs_live', await tokenFor(a, 'arbs_live'));
    }
    for (const service of SERVICES) {
      expect(b.currentItems(service)).toEqual(a.currentItems(service));
      expect(b.currentEnvelope(service).events).toEqual(a.currentEnvelope(service).events);
    }
    expect(c.currentItems('arbs_prematch').map((i) => i.id)).not.toEqual(a.currentItems('arbs_prematch').map((i) => i.id));
  });

  it('live hosts serve live events that started in the past; prematch events start in the future', async () => {
    const sb = await h.start();
    await h.clock.advance(3 * 3_600_000);
    const now = h.clock.now();
    const startOf = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);
    for (const service of SERVICES) {
      const env = sb.currentEnvelope(service);
      expect(env.events.length).toBeGreaterThan(0);
      for (const e of env.events) {
        if (service.endsWith('_live')) {
          expect(e.live).toBe(true);
          expect(startOf(e.start)).toBeLessThanOrEqual(now);
        } else {
          expect(e.live).toBe(false);
          expect(startOf(e.start)).toBeGreaterThan(now);
        }
      }
    }
  });

  it('inject makes an item appear now with the requested value, without disturbing the natural world', async () => {
    const plain = await h.start({ seed: 7 });
    const injected = await h.start({ seed: 7 });
    const item = injected.world.inject('arbs_live', { profit: 4.2 });
    // Odds are rounded to 2 decimals, so the profit lands near, not exactly on, the request.
    expect(Math.abs(item.value - 4.2)).toBeLessThan(0.3);
    expect(injected.world.appearedAt(item.id)).toBe(h.clock.now());
    const token = await tokenFor(injected, 'arbs_live');
    expect((await readItems(injected, 'arbs_live', token)).items.map((i) => i.id)).toContain(item.id);
    const vb = injected.world.inject('valuebets_prematch', { profit: 9 });
    expect(Math.abs(vb.value - 9)).toBeLessThan(0.3);
    const mid = injected.world.inject('middles_live');
    expect(mid.middle_value).toBeGreaterThan(mid.value);
    await h.clock.advance(30 * 60_000);
    const natural = (s: typeof SERVICES[number]) => injected.currentItems(s).filter((i) => ![item.id, vb.id, mid.id].includes(i.id));
    for (const service of SERVICES) expect(natural(service)).toEqual(plain.currentItems(service));
    expect(injected.world.appearedAt('never-existed')).toBeUndefined();
  });

  it('inject puts the legs on the bookmakers a test names, in order', async () => {
    const sb = await h.start({ seed: 11 });
    for (let i = 0; i < 6; i++) {
      const item = sb.world.inject('arbs_prematch', { profit: 3, bookmakers: [7, 39, 85] });
      const subs = new Map(sb.currentEnvelope('arbs_prematch').events.flatMap((e) => e.sub_events.map((x) => [x.id, x.bookmaker_id] as const)));
      const books = item.odds.map((leg) => subs.get(leg.sub_event_id));
      // Two or three outcomes: the first ones named, Pinnacle always the first leg.
      expect(books).toEqual([7, 39, 85].slice(0, books.length));
    }
    expect(() => sb.world.inject('arbs_prematch', { bookmakers: [7] })).toThrow(/1 given: give one per outcome/);
  });

  it('kills the items of a live event when it ends and replaces the event', async () => {
    const sb = await h.start({ world: { eventsPerService: 3, itemsPerService: 6 } });
    const firstEvents = new Set(sb.currentEnvelope('arbs_live').events.map((e) => e.id));
    await h.clock.advance(4 * 3_600_000);
    const env = sb.currentEnvelope('arbs_live');
    expect(env.items.length).toBeGreaterThan(0);
    // Every live event lasts at most 150 minutes: none of the first ones is left.
    for (const e of env.events) expect(firstEvents.has(e.id)).toBe(false);
  });
});
