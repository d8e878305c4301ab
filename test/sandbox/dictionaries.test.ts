import { afterEach, describe, expect, it } from 'vitest';
import type { WireDictionaries } from '../../src/sandbox/index.js';
import { SERVICES } from '../../src/service/services.js';
import { Harness } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

async function dicts(url: string): Promise<WireDictionaries> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as WireDictionaries;
}

describe('sandbox dictionaries', () => {
  it('serves English at /v1 and /v1/en, Russian at /v1/ru, 404 for another language', async () => {
    const sb = await h.start();
    const plain = await dicts(`${sb.urls.BB_DICTS_URL}/v1`);
    const en = await dicts(`${sb.urls.BB_DICTS_URL}/v1/en`);
    const ru = await dicts(`${sb.urls.BB_DICTS_URL}/v1/ru`);
    expect(plain).toEqual(en);
    expect(en.sports).toMatchObject({ '1': 'Football', '5': 'Basketball', '6': 'Tennis', '10': 'e-Sports', '14': 'Futsal' });
    expect(ru.sports).toMatchObject({ '1': 'Футбол', '5': 'Баскетбол', '6': 'Теннис', '10': 'Киберспорт', '14': 'Футзал' });
    expect(en.bookmakers).toMatchObject({ '3': 'Bwin', '7': 'Pinnacle', '21': '1XBet', '39': 'Bet365', '85': 'Betano' });
    expect(ru.bookmakers['5']).toBe('Марафонбет');
    expect(en.odds_sections).toEqual({ '1': 'Main', '2': 'Handicaps', '3': 'Totals', '4': 'Individual totals', '6': 'Additional' });
    expect(en.odds_types['1']).toEqual({ title_short: '1', title_full: 'Home win', lay: false, section_id: 1 });
    expect(en.odds_types['11']).toEqual({ title_short: 'TO(%s)', title_full: 'Total over %s', lay: false, section_id: 3 });
    expect(ru.odds_types['11']?.title_short).toBe('ТБ(%s)');
    expect(Object.values(en.odds_types).some((t) => t.lay)).toBe(true);
    expect(en.odds_types_reflections['9']).toBe(10);
    expect(en.odds_types_reflections['10']).toBe(9);
    expect(en.live_bookmakers.every((id) => en.bookmakers[String(id)] !== undefined)).toBe(true);
    // Every id in both languages.
    for (const k of ['bookmakers', 'sports', 'odds_groups', 'odds_sections', 'odds_types'] as const) {
      expect(Object.keys(ru[k]).sort()).toEqual(Object.keys(en[k]).sort());
    }
    const other = await fetch(`${sb.urls.BB_DICTS_URL}/v1/de`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ status: 404 });
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v2`)).status).toBe(404);
  });

  it('names every sport, bookmaker, odds type and group the items use (live hosts: live bookmakers only)', async () => {
    const sb = await h.start({ world: { itemsPerService: 30 } });
    const en = await dicts(`${sb.urls.BB_DICTS_URL}/v1/en`);
    for (const service of SERVICES) {
      const env = sb.currentEnvelope(service);
      for (const e of env.events) {
        expect(en.sports[String(e.sport_id)]).toBeDefined();
        for (const s of e.sub_events) {
          expect(en.bookmakers[String(s.bookmaker_id)]).toBeDefined();
          if (service.endsWith('_live')) expect(en.live_bookmakers).toContain(s.bookmaker_id);
        }
      }
      for (const item of env.items) {
        for (const g of item.groups_ids) expect(en.odds_groups[String(g)]).toBeDefined();
        for (const leg of item.odds) {
          const type = en.odds_types[String(leg.type_id)];
          expect(type).toBeDefined();
          // A line goes with a title that has a place for it.
          expect(type?.title_short.includes('%s')).toBe(leg.index !== '');
        }
      }
    }
  });
});
