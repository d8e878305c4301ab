import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, WireEnvelope, WireItem } from '../../src/sandbox/index.js';
import type { Service } from '../../src/service/services.js';
import { Harness, readItems, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

const inv = (item: WireItem) => item.odds.reduce((s, l) => s + 1 / l.value, 0);

/** The sandbox dictionary's lay odds types (Lay 1, Lay X, Lay 2, Lay TO, Lay TU). */
const LAY_TYPES = new Set([21, 22, 23, 24, 25]);
/** Σ 1/odds with a lay leg at L counted as the back of "not this selection" at 1 + 1/(L − 1). */
const invBackLay = (item: WireItem) => item.odds.reduce((s, l) => s + 1 / (LAY_TYPES.has(l.type_id) ? 1 + 1 / (l.value - 1) : l.value), 0);

/** Values are rounded to 2 decimals: within half a cent of the exact figure (plus float noise). */
function expectRounded(actual: number | undefined, exact: number, digits = 2): void {
  expect(Math.abs((actual ?? NaN) - exact)).toBeLessThanOrEqual(0.5 * 10 ** -digits + 1e-9);
}

/** Reads a service at several moments of clock time and hands every envelope to `check`. */
async function overTime(sb: Sandbox, service: Service, check: (env: WireEnvelope) => void): Promise<number> {
  let seen = 0;
  for (let step = 0; step < 8; step++) {
    const token = await tokenFor(sb, service);
    const env = await readItems(sb, service, token);
    check(env);
    seen += env.items.length;
    await h.clock.advance(97_000);
  }
  return seen;
}

function bookmakers(env: WireEnvelope, item: WireItem): number[] {
  const subs = new Map(env.events.flatMap((e) => e.sub_events.map((s) => [s.id, s.bookmaker_id] as const)));
  return item.odds.map((l) => {
    const b = subs.get(l.sub_event_id);
    if (b === undefined) throw new Error(`leg ${l.sub_event_id} has no sub-event in the envelope`);
    return b;
  });
}

describe('sandbox item arithmetic', () => {
  for (const service of ['arbs_prematch', 'arbs_live'] as const) {
    it(`${service}: every item's value = roi = (1/Σ(1/odds) − 1) × 100 on 2–3 legs at different bookmakers (a lay leg read as a lay bet), at every moment`, async () => {
      const sb = await h.start({ world: { itemsPerService: 20 } });
      let backLay = 0;
      const seen = await overTime(sb, service, (env) => {
        for (const item of env.items) {
          expect([2, 3]).toContain(item.odds.length);
          expectRounded(item.value, (1 / invBackLay(item) - 1) * 100);
          const lays = item.odds.filter((l) => LAY_TYPES.has(l.type_id));
          if (lays.length > 0) {
            // a back at a bookmaker and the lay of the same selection at an exchange (Betfair Exchange 31, Matchbook 40)
            backLay += 1;
            expect(item.odds).toHaveLength(2);
            expect(lays).toHaveLength(1);
            expect([31, 40]).toContain(bookmakers(env, item)[1]);
            expect(item.odds[1]!.value).toBeLessThan(item.odds[0]!.value);
          }
          expect(item.roi).toBe(item.value);
          expect(item.value).toBeGreaterThan(0);
          const books = bookmakers(env, item);
          expect(new Set(books).size).toBe(books.length);
          expect(item.odds.filter((l) => l.initiator)).toHaveLength(1);
          for (const leg of item.odds) expect(leg.value).toBeGreaterThan(1);
        }
      });
      expect(seen).toBeGreaterThan(100);
      expect(backLay, 'the world has back/lay arbs at exchanges').toBeGreaterThan(0);
    });
  }

  it('middles: value = miss profit (1/S − 1)×100, middle_value = hit profit (2/S − 1)×100, two legs with a gap between their lines', async () => {
    const sb = await h.start({ world: { itemsPerService: 20 } });
    const seen = await overTime(sb, 'middles_prematch', (env) => {
      for (const item of env.items) {
        expect(item.odds).toHaveLength(2);
        const s = inv(item);
        expectRounded(item.value, (1 / s - 1) * 100);
        expectRounded(item.middle_value, (2 / s - 1) * 100);
        expect(item.value).toBeLessThan(5);
        expect(item.middle_value ?? 0).toBeGreaterThan(item.value);
        const [a, b] = item.odds as [WireItem['odds'][0], WireItem['odds'][0]];
        const types = [a.type_id, b.type_id];
        if (types[0] === 11) {
          // total over X with total under Y > X
          expect(types[1]).toBe(12);
          expect(Number(b.index)).toBeGreaterThan(Number(a.index));
        } else {
          // AH1(a) with AH2(b), a + b > 0: both win on a narrow band
          expect(types).toEqual([9, 10]);
          expect(Number(a.index) + Number(b.index)).toBeGreaterThan(0);
        }
        expect(new Set(bookmakers(env, item)).size).toBe(2);
      }
    });
    expect(seen).toBeGreaterThan(100);
  });

  it('valuebets: one leg, value = (odds × probability − 1)×100, fair_odds = 1/probability', async () => {
    const sb = await h.start({ world: { itemsPerService: 20 } });
    const seen = await overTime(sb, 'valuebets_live', (env) => {
      for (const item of env.items) {
        expect(item.odds).toHaveLength(1);
        const p = item.probability ?? NaN;
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThan(1);
        const odds = item.odds[0]?.value ?? NaN;
        expectRounded(item.value, (odds * p - 1) * 100);
        expectRounded(item.fair_odds, 1 / p, 3);
        expect(item.value).toBeGreaterThan(0);
        expect(item.roi).toBeUndefined();
      }
    });
    expect(seen).toBeGreaterThan(100);
  });

  it('a masked key gets odds 0 and masked: true, with the same items and values', async () => {
    const sb = await h.start({ keys: [{ accessKey: 'free', secret: 'free-secret-0000', masked: true }] });
    const token = await tokenFor(sb, 'arbs_live');
    const env = await readItems(sb, 'arbs_live', token, 'bb-free');
    expect(env.masked).toBe(true);
    expect(env.items.length).toBeGreaterThan(0);
    expect(env.items.every((i) => i.odds.every((l) => l.value === 0 && l.prev === 0))).toBe(true);
    const truth = sb.currentItems('arbs_live');
    expect(env.items.map((i) => [i.id, i.value]).sort()).toEqual(truth.map((i) => [i.id, i.value]).sort());
    sb.addKey({ accessKey: 'paid', secret: 'paid-secret-0000' });
    const paid = await readItems(sb, 'arbs_live', await tokenFor(sb, 'arbs_live', { accessKey: 'paid', secret: 'paid-secret-0000' }), 'paid');
    expect(paid.masked).toBe(false);
    expect(paid.items.every((i) => i.odds.every((l) => l.value > 1))).toBe(true);
  });

  it('writes times as "YYYY-MM-DD HH:MM:SS" UTC and timestamp as unix seconds of the clock', async () => {
    const sb = await h.start();
    const env = await readItems(sb, 'arbs_live', await tokenFor(sb, 'arbs_live'));
    expect(env.timestamp).toBe(Math.floor(h.clock.now() / 1000));
    const time = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
    for (const item of env.items) {
      expect(item.created).toMatch(time);
      for (const leg of item.odds) expect(leg.updated).toMatch(time);
    }
    for (const e of env.events) {
      expect(e.start).toMatch(time);
      expect(e.live).toBe(true);
      expect(Date.parse(`${e.start.replace(' ', 'T')}Z`)).toBeLessThanOrEqual(h.clock.now());
    }
  });
});
