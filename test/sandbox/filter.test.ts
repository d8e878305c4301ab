import { afterEach, describe, expect, it } from 'vitest';
import type { WireEnvelope, WireItem } from '../../src/sandbox/index.js';
import { Harness, call, hostOf, readItems, tokenFor, writeFilter } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

function bookmakersOf(env: WireEnvelope, item: WireItem): number[] {
  const subs = new Map(env.events.flatMap((e) => e.sub_events.map((s) => [s.id, s.bookmaker_id] as const)));
  return item.odds.map((l) => subs.get(l.sub_event_id) ?? -1);
}

describe('sandbox filters', () => {
  it('returns every alive item before any filter, and only items above `min` after one', async () => {
    const sb = await h.start({ world: { itemsPerService: 30 } });
    const token = await tokenFor(sb, 'arbs_prematch');
    const all = await readItems(sb, 'arbs_prematch', token);
    expect(all.items.map((i) => i.id).sort()).toEqual(sb.currentItems('arbs_prematch').map((i) => i.id).sort());
    expect(all.filtered).toBe(all.items.length);
    const values = all.items.map((i) => i.value);
    const threshold = [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    expect((await writeFilter(sb, 'arbs_prematch', token, { min: threshold, sort: 'percent' })).status).toBe(200);
    const filtered = await readItems(sb, 'arbs_prematch', token);
    expect(filtered.items.length).toBe(values.filter((v) => v >= threshold).length);
    expect(filtered.items.length).toBeLessThan(all.items.length);
    expect(filtered.items.every((i) => i.value >= threshold)).toBe(true);
    // sort 'percent': highest first.
    const got = filtered.items.map((i) => i.value);
    expect(got).toEqual([...got].sort((a, b) => b - a));
  });

  it('applies max, sports, allowed_bookmakers, coeffs_ranges and age', async () => {
    const sb = await h.start({ world: { itemsPerService: 40 } });
    const token = await tokenFor(sb, 'arbs_prematch');
    const all = await readItems(sb, 'arbs_prematch', token);
    const sportOf = new Map(all.events.map((e) => [e.id, e.sport_id]));

    await writeFilter(sb, 'arbs_prematch', token, { max: 1 });
    expect((await readItems(sb, 'arbs_prematch', token)).items.every((i) => i.value <= 1)).toBe(true);

    const sport = sportOf.get(all.items[0]?.event_id ?? '') ?? 1;
    await writeFilter(sb, 'arbs_prematch', token, { sports: [sport] });
    const bySport = await readItems(sb, 'arbs_prematch', token);
    expect(bySport.items.length).toBe(all.items.filter((i) => sportOf.get(i.event_id) === sport).length);
    expect(bySport.events.every((e) => e.sport_id === sport)).toBe(true);

    const allowed = [7, 21, 39, 3, 5, 25, 52];
    await writeFilter(sb, 'arbs_prematch', token, { allowed_bookmakers: allowed });
    const byBook = await readItems(sb, 'arbs_prematch', token);
    const expected = all.items.filter((i) => bookmakersOf(all, i).every((b) => allowed.includes(b)));
    expect(byBook.items.map((i) => i.id).sort()).toEqual(expected.map((i) => i.id).sort());

    await writeFilter(sb, 'arbs_prematch', token, { coeffs_ranges: [{ min: 1.5, max: 2.5 }] });
    const byOdds = await readItems(sb, 'arbs_prematch', token);
    expect(byOdds.items.every((i) => i.odds.every((l) => l.value >= 1.5 && l.value <= 2.5))).toBe(true);
    expect(byOdds.items.length).toBe(all.items.filter((i) => i.odds.every((l) => l.value >= 1.5 && l.value <= 2.5)).length);

    await writeFilter(sb, 'arbs_prematch', token, { age: 12 });
    const soon = await readItems(sb, 'arbs_prematch', token);
    const now = h.clock.now();
    const startOf = new Map(soon.events.map((e) => [e.id, Date.parse(`${e.start.replace(' ', 'T')}Z`)]));
    expect(soon.items.every((i) => (startOf.get(i.event_id) ?? Infinity) - now <= 12 * 3_600_000)).toBe(true);
    expect(soon.items.length).toBeLessThan(all.items.length);
  });

  it('bounds the overvalue of valuebets with min', async () => {
    const sb = await h.start({ world: { itemsPerService: 30 } });
    const token = await tokenFor(sb, 'valuebets_live');
    await writeFilter(sb, 'valuebets_live', token, { min: 3 });
    const env = await readItems(sb, 'valuebets_live', token);
    expect(env.items.every((i) => i.value >= 3)).toBe(true);
    expect(env.items.length).toBe(sb.currentItems('valuebets_live').filter((i) => i.value >= 3).length);
  });

  it('ignores unknown fields and answers 400 for a known field of the wrong type or a non-object body', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_live');
    const unknown = await writeFilter(sb, 'arbs_live', token, { min: 1, colour: 'blue', nested: { a: 1 } });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ ok: true, filter: { min: 1 } });
    for (const bad of [{ min: '1' }, { sports: 'football' }, { allowed_bookmakers: [1.5] }, { coeffs_ranges: [{ min: 'x' }] }, { age: -1 }, { sort: 3 }]) {
      const res = await writeFilter(sb, 'arbs_live', token, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(await res.json()).toMatchObject({ status: 400, error: expect.stringMatching(/^filter field/) });
    }
    for (const body of ['[1,2]', 'null', 'min=1', '']) {
      expect((await call(`${hostOf(sb, 'arbs_live')}/filters/bb-demo-key`, token, { method: 'POST', body })).status).toBe(400);
    }
    // Refused bodies are not filter writes.
    expect(sb.counters().byKeyHost['demo-key|/arbs-live|filter']).toBe(1);
    // The last good filter still applies.
    expect((await readItems(sb, 'arbs_live', token)).items.every((i) => i.value >= 1)).toBe(true);
  });
});
