/**
 * Market groups (issue 31 item 5): every odds type and odds group of the sandbox's dictionaries
 * (both languages, parsed as the bot parses the service's) falls into the group docs/settings.md
 * says; the service's skip_sections gets the groups it can leave out itself; an item is left out
 * when any of its groups is; the per-sport minimum replaces the filter's own, and the service is
 * asked for the least of them.
 */
import { describe, expect, it } from 'vitest';
import { dictionariesFor, TYPE } from '../../src/sandbox/dictionaries.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import { parseDictionaries } from '../../src/service/dictionaries.js';
import { toFilterBody } from '../../src/service/filter-body.js';
import { defaultFilter, matchesFilter } from '../../src/service/filter-model.js';
import { itemGroups, leftOutBy, scopeGroup, typeGroup, type MarketGroup } from '../../src/service/market-groups.js';
import { opp } from '../scheduler/fixtures.js';

const EXPECTED: Record<number, MarketGroup> = {
  [TYPE.home]: 'main',
  [TYPE.draw]: 'main',
  [TYPE.away]: 'main',
  [TYPE.homeOrDraw]: 'main',
  [TYPE.homeOrAway]: 'main',
  [TYPE.drawOrAway]: 'main',
  [TYPE.win1]: 'main',
  [TYPE.win2]: 'main',
  [TYPE.ah1]: 'handicaps',
  [TYPE.ah2]: 'handicaps',
  [TYPE.totalOver]: 'totals',
  [TYPE.totalUnder]: 'totals',
  [TYPE.team1Over]: 'team_totals',
  [TYPE.team1Under]: 'team_totals',
  [TYPE.team2Over]: 'team_totals',
  [TYPE.team2Under]: 'team_totals',
  [TYPE.bothScoreYes]: 'other_markets',
  [TYPE.bothScoreNo]: 'other_markets',
  [TYPE.odd]: 'odd_even',
  [TYPE.even]: 'odd_even',
  [TYPE.layHome]: 'main',
  [TYPE.layDraw]: 'main',
  [TYPE.layAway]: 'main',
  [TYPE.layTotalOver]: 'totals',
  [TYPE.layTotalUnder]: 'totals',
};

describe('market groups from the dictionaries', () => {
  for (const lang of ['en', 'ru'] as const) {
    it(`classifies every odds type and odds group of the sandbox (${lang}); none by accident`, () => {
      const dicts = parseDictionaries(dictionariesFor(lang), lang, 'dictionaries');
      const ids = Object.keys(dicts.oddsTypes).map(Number);
      expect(ids.length).toBe(Object.keys(EXPECTED).length);
      for (const id of ids) expect([id, typeGroup(dicts.oddsTypes[String(id)])]).toEqual([id, EXPECTED[id]]);
      const groups = Object.fromEntries(Object.entries(dicts.oddsGroups).map(([id, name]) => [id, scopeGroup(name) ?? 'match']));
      expect(groups).toEqual({ '1': 'match', '2': 'periods', '3': 'periods', '4': 'periods', '5': 'periods', '6': 'periods', '7': 'corners', '8': 'cards' });
    });
  }

  it('an unknown odds type is "other markets", never a guess', () => {
    expect(typeGroup(undefined)).toBe('other_markets');
    expect(typeGroup({ titleShort: 'Odd', titleFull: 'Total odd', lay: false, sectionId: 3 })).toBe('odd_even');
  });

  it('an item is left out when any of its groups is: a corners total by corners or by totals', () => {
    const names = namesFor(parseDictionaries(dictionariesFor('en'), 'en', 'dictionaries'), 'en');
    const base = opp('c', [1.9, 2.1], 1);
    const corners = { ...base, legs: base.legs.map((l, i) => ({ ...l, typeId: i === 0 ? TYPE.totalOver : TYPE.totalUnder })), groupIds: [7] };
    expect(itemGroups(corners, names).sort()).toEqual(['corners', 'totals']);
    expect(leftOutBy(itemGroups(corners, names), ['corners'])).toBe('corners');
    expect(leftOutBy(itemGroups(corners, names), ['totals'])).toBe('totals');
    expect(leftOutBy(itemGroups(corners, names), ['odd_even', 'cards'])).toBeUndefined();
    expect(leftOutBy(itemGroups({ ...corners, groupIds: [1] }, names), ['corners'])).toBeUndefined();
  });
});

describe('the filter', () => {
  it('asks the service to skip the sections it can, and for the least of the per-sport minimums', () => {
    const filter = { ...defaultFilter(), minProfit: 2, marketsOff: ['team_totals', 'odd_even', 'corners'] as MarketGroup[], minProfitBySport: { '6': 0.5 } };
    const body = toFilterBody('arbs', filter);
    expect(body.skip_sections).toEqual([4]);
    expect(body.min).toBe(0.5);
    expect(toFilterBody('arbs', defaultFilter())).not.toHaveProperty('skip_sections');
  });

  it('a sport’s own minimum replaces the filter’s: tennis from 0.5 %, the rest from 2 %', () => {
    const filter = { ...defaultFilter(), minProfit: 2, minProfitBySport: { '6': 0.5 } };
    const tennis = { ...opp('t', [2.1, 2.05], 1), event: { ...opp('t', [2.1, 2.05], 1).event, sportId: 6 } };
    const football = { ...tennis, event: { ...tennis.event, sportId: 1 } };
    expect(matchesFilter(tennis, filter, 0)).toBe(true);
    expect(matchesFilter(football, filter, 0)).toBe(false);
  });
});
