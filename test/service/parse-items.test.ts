import { describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import { parseItemBody, parseItemsBody, parseServiceTime } from '../../src/service/parse-items.js';
import { arbsEnvelope } from './helpers.js';

const ms = (iso: string) => Date.parse(iso);

function errorKind(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isServiceError(err) ? err.kind : 'other';
  }
  return undefined;
}

describe('parseServiceTime', () => {
  it('reads the service format as UTC, ISO with a zone, unix seconds and ms', () => {
    expect(parseServiceTime('2026-01-03 12:00')).toBe(ms('2026-01-03T12:00:00Z'));
    expect(parseServiceTime('2026-01-03 10:29:13')).toBe(ms('2026-01-03T10:29:13Z'));
    expect(parseServiceTime('2026-01-03T10:29:13+03:00')).toBe(ms('2026-01-03T07:29:13Z'));
    expect(parseServiceTime(1767436153)).toBe(1767436153000);
    expect(parseServiceTime('1767436153')).toBe(1767436153000);
    expect(parseServiceTime(1767436153123)).toBe(1767436153123);
    expect(parseServiceTime('soon')).toBeUndefined();
    expect(parseServiceTime(null)).toBeUndefined();
  });
});

describe('parseItemsBody', () => {
  it('maps the arbs envelope of service-api.md §5 onto opportunities', () => {
    const read = parseItemsBody('arbs_prematch', arbsEnvelope(1), 'read');
    expect(read).toMatchObject({ masked: false, timestamp: 1767436153000, skipped: 0 });
    const [item] = read.items;
    expect(item).toEqual({
      id: 'a1',
      service: 'arbs_prematch',
      kind: 'arbs',
      event: {
        id: 'e1',
        sportId: 6,
        league: 'ATP',
        team1: 'A',
        team2: 'B',
        startsAt: ms('2026-01-03T12:00:00Z'),
        live: false,
      },
      legs: [
        {
          subEventId: 's1',
          bookmakerId: 7,
          typeId: 1,
          line: '',
          odds: 2.1,
          prevOdds: 2.05,
          updatedAt: ms('2026-01-03T10:29:10Z'),
          initiator: true,
        },
        {
          subEventId: 's2',
          bookmakerId: 39,
          typeId: 2,
          line: '',
          odds: 2.2,
          prevOdds: 2.2,
          updatedAt: ms('2026-01-03T10:29:11Z'),
          initiator: false,
        },
      ],
      profit: 2.35,
      middleProfit: null,
      overvalue: null,
      probability: null,
      createdAt: ms('2026-01-03T10:29:13Z'),
      masked: false,
      // The item's odds groups (`groups_ids`), for the market filter.
      groupIds: [1],
    });
  });

  it('turns masked zero odds into null, never 0', () => {
    const read = parseItemsBody('arbs_live', arbsEnvelope(1, true), 'read');
    expect(read.masked).toBe(true);
    expect(read.items[0]?.legs.map((l) => [l.odds, l.prevOdds])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(read.items[0]?.masked).toBe(true);
  });

  it('reads middles: miss and hit profits from the two odds, not the service\'s value (its middle size)', () => {
    // Odds 2.10 / 2.20: Σ 1/o = (2.2 + 2.1) / 4.62 = 4.3 / 4.62; miss = 4.62 / 4.3 − 1 = +7.44186 %,
    // hit = 9.24 / 4.3 − 1 = +114.88372 %. The service's value (1.00, a middle's size) and
    // middle_value are not used while the odds are known.
    const body = arbsEnvelope(1);
    const items = body.items as Record<string, unknown>[];
    items[0] = { ...items[0], value: 1, roi: undefined, middle_value: 48.5 };
    const [item] = parseItemsBody('middles_live', body, 'read').items;
    expect(item).toMatchObject({ kind: 'middles', overvalue: null });
    expect(item?.profit).toBeCloseTo(7.44186, 4);
    expect(item?.middleProfit).toBeCloseTo(114.88372, 4);
  });

  it('reads masked middles: the service\'s value and middle_value are all there is', () => {
    const body = arbsEnvelope(1, true);
    const items = body.items as Record<string, unknown>[];
    items[0] = { ...items[0], value: 1, roi: undefined, middle_value: 48.5 };
    const [item] = parseItemsBody('middles_live', body, 'read').items;
    expect(item).toMatchObject({ kind: 'middles', profit: 1, middleProfit: 48.5, masked: true });
  });

  it('reads the overvalue of valuebets from value / overvalue / ev, else computes it', () => {
    const base = (extra: Record<string, unknown>) => ({
      items: [
        {
          id: 'v1',
          event_id: 'e1',
          odds: [{ sub_event_id: 's1', type_id: 1, value: 2.2, initiator: true }],
          ...extra,
        },
      ],
      events: [{ id: 'e1', sub_events: [{ id: 's1', bookmaker_id: 7 }] }],
    });
    const read = (extra: Record<string, unknown>) => parseItemsBody('valuebets_prematch', base(extra), 'r').items[0];
    expect(read({ value: 4.5 })).toMatchObject({ overvalue: 4.5, profit: null });
    expect(read({ overvalue: '3.25' })?.overvalue).toBe(3.25);
    expect(read({ ev: 7 })?.overvalue).toBe(7);
    expect(read({ probability: 0.5 })).toMatchObject({ overvalue: 10, probability: 0.5 });
    expect(read({ probability: 50 })).toMatchObject({ overvalue: 10, probability: 0.5 });
    expect(read({ fair_odds: 2 })).toMatchObject({ overvalue: 10, probability: 0.5 });
    expect(read({})).toMatchObject({ overvalue: null, probability: null });
  });

  it('skips and counts unusable items, keeps unknown fields harmlessly, and tolerates missing events', () => {
    const body = arbsEnvelope(2);
    const items = body.items as unknown[];
    items.push({ id: 'no-legs', event_id: 'e1', odds: [] });
    items.push({ event_id: 'e1', odds: [{ type_id: 1 }] });
    items.push('not an item');
    items.push({ id: 'orphan', event_id: 'e404', value: 1, odds: [{ sub_event_id: 's9', type_id: 3, value: '1.9', index: 2.5 }], extra: { x: 1 } });
    const read = parseItemsBody('arbs_prematch', { ...body, unknown_top: true }, 'read');
    expect(read.items.map((i) => i.id)).toEqual(['a1', 'a2', 'orphan']);
    expect(read.skipped).toBe(3);
    const orphan = read.items[2];
    expect(orphan?.event).toMatchObject({ id: 'e404', sportId: undefined, team1: '' });
    expect(orphan?.legs[0]).toMatchObject({ bookmakerId: undefined, odds: 1.9, line: '2.5' });
  });

  it('carries a lay flag the service put on a leg (lay or is_lay), and leaves it out otherwise (the dictionary then says)', () => {
    const body = {
      items: [
        {
          id: 'bl',
          event: { id: 'e9' },
          value: 1.15,
          odds: [
            { sub_event_id: 's1', type_id: 1, value: 3.83 },
            { sub_event_id: 's2', type_id: 1, value: 3.67, lay: true },
            { sub_event_id: 's3', type_id: 1, value: 3.7, is_lay: 0 },
          ],
        },
      ],
    };
    const [item] = parseItemsBody('arbs_prematch', body, 'test').items;
    expect(item?.legs.map((l) => l.lay)).toEqual([undefined, true, false]);
    expect('lay' in (item?.legs[0] ?? {})).toBe(false);
  });

  it('accepts a bare array of items and an empty set', () => {
    // A bare array says nothing of masking: nothing is known of the key's plan from it.
    expect(parseItemsBody('arbs_live', [], 'r')).toEqual({ items: [], masked: false, maskStated: false, timestamp: undefined, skipped: 0 });
    expect(parseItemsBody('arbs_live', { items: [] }, 'r').items).toEqual([]);
    expect(parseItemsBody('arbs_live', { items: [], masked: false }, 'r')).toMatchObject({ masked: false, maskStated: true });
  });

  it('says malformed, never crashes, for a body it cannot use at all', () => {
    for (const body of [null, 'text', 42, {}, { items: 'x' }, { items: null }]) {
      expect(errorKind(() => parseItemsBody('arbs_live', body, 'arbs_live items read'))).toBe('malformed');
    }
  });
});

describe('parseItemBody', () => {
  it('finds the item in an envelope, a wrapped item, or a bare item', () => {
    expect(parseItemBody('arbs_live', arbsEnvelope(2), 'a2', 'r').id).toBe('a2');
    const env = arbsEnvelope(1);
    const item = (env.items as unknown[])[0] as Record<string, unknown>;
    expect(parseItemBody('arbs_live', { item, events: env.events }, 'a1', 'r').legs[0]?.bookmakerId).toBe(7);
    const event = (env.events as unknown[])[0];
    expect(parseItemBody('arbs_live', { ...item, event }, 'a1', 'r').event.league).toBe('ATP');
  });

  it('is not_found for an empty envelope and malformed for junk', () => {
    expect(errorKind(() => parseItemBody('arbs_live', { items: [] }, 'x', 'r'))).toBe('not_found');
    expect(errorKind(() => parseItemBody('arbs_live', { hello: 1 }, 'x', 'r'))).toBe('malformed');
    expect(errorKind(() => parseItemBody('arbs_live', { items: [{ id: 'x' }] }, 'x', 'r'))).toBe('malformed');
  });
});
