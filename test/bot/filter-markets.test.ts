/**
 * Market groups and per-sport minimums in the chat (issue 31 item 5): the one-line /filter's
 * `markets=` (leave out, keep only, any) and `min_profit.<sport>=`, bad values answered with
 * nothing changed, /filters listing both, and the builder's 🎯 Markets button on its summary.
 */
import { describe, expect, it } from 'vitest';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const saved = () => h.store.getUser(ALICE.id)?.filters.arbs_prematch?.settings;

describe('/filter … markets= and min_profit.<sport>=', () => {
  it('leaves groups out, keeps only some, and puts every market back with any', async () => {
    await h.say(ALICE, '/filter arbs_prematch markets=-odd_even,-corners');
    expect(saved()?.marketsOff).toEqual(['odd_even', 'corners']);
    expect(h.client.callsOf('writeFilter').at(-1)?.filter.marketsOff).toEqual(['odd_even', 'corners']);
    await h.say(ALICE, '/filter arbs_prematch markets=main,totals');
    expect(saved()?.marketsOff).toEqual(['handicaps', 'team_totals', 'odd_even', 'other_markets', 'periods', 'corners', 'cards']);
    // An alias, and the rest of the filter kept.
    await h.say(ALICE, '/filter arbs_prematch min_odds=1.5 markets=-ah');
    expect(saved()).toMatchObject({ marketsOff: ['handicaps'], minOdds: 1.5 });
    await h.say(ALICE, '/filter arbs_prematch markets=any');
    expect(saved()?.marketsOff).toEqual([]);
  });

  it('refuses an unknown group, a mixed list and leaving out everything, changing nothing', async () => {
    await h.say(ALICE, '/filter arbs_prematch markets=-corners');
    const writes = h.client.callsOf('writeFilter').length;
    await h.say(ALICE, '/filter arbs_prematch markets=-snooker');
    expect(h.last(ALICE.id).text).toContain('No market group “snooker”');
    await h.say(ALICE, '/filter arbs_prematch markets=-corners,totals');
    expect(h.last(ALICE.id).text).toContain('not both in one list');
    await h.say(ALICE, '/filter arbs_prematch markets=-main,-handicaps,-totals,-team_totals,-odd_even,-other_markets,-periods,-corners,-cards');
    expect(h.last(ALICE.id).text).toContain('would leave out every market');
    expect(h.client.callsOf('writeFilter')).toHaveLength(writes);
    expect(saved()?.marketsOff).toEqual(['corners']);
  });

  it('a minimum per sport, by name; any removes it; bad values change nothing', async () => {
    await h.say(ALICE, '/filter arbs_prematch min_profit=2 min_profit.tennis=0.5');
    expect(saved()).toMatchObject({ minProfit: 2, minProfitBySport: { '6': 0.5 } });
    // The service is asked from the least of them, so it drops no tennis arb the user wants.
    expect(h.client.callsOf('writeFilter').at(-1)?.filter.minProfitBySport).toEqual({ '6': 0.5 });
    await h.say(ALICE, '/filters');
    expect(h.last(ALICE.id).text).toContain('Least profit by sport: Tennis 0.5 %');
    const writes = h.client.callsOf('writeFilter').length;
    await h.say(ALICE, '/filter arbs_prematch min_profit.tennis=-1');
    await h.say(ALICE, '/filter arbs_prematch min_profit.tenis=1');
    expect(h.last(ALICE.id).text).toMatch(/Tennis/);
    await h.say(ALICE, '/filter valuebets_prematch min_profit.tennis=1');
    expect(h.last(ALICE.id).text).toContain('does not apply to');
    expect(h.client.callsOf('writeFilter')).toHaveLength(writes);
    await h.say(ALICE, '/filter arbs_prematch min_profit.tennis=any');
    expect(saved()?.minProfitBySport).toEqual({});
  });

  it('/status counts this hour\'s items the market filter left out', async () => {
    await h.say(ALICE, '/filter arbs_prematch markets=-odd_even');
    h.store.updateStatus(ALICE.id, 'arbs_prematch', { leftOut: { hour: Math.floor(h.clock.now() / 3_600_000), count: 12 } });
    await h.say(ALICE, '/status');
    expect(h.last(ALICE.id).text).toContain('12 items left out by your market filter this hour');
    // An earlier hour's count is not this hour's.
    h.store.updateStatus(ALICE.id, 'arbs_prematch', { leftOut: { hour: Math.floor(h.clock.now() / 3_600_000) - 1, count: 12 } });
    await h.say(ALICE, '/status');
    expect(h.last(ALICE.id).text).not.toContain('left out by your market filter');
  });

  it('/filters says which markets are left out', async () => {
    await h.say(ALICE, '/filter arbs_prematch markets=-odd_even,-corners');
    await h.say(ALICE, '/filters');
    expect(h.last(ALICE.id).text).toContain('Markets left out: odd/even, corners');
  });
});

describe('the builder', () => {
  it('🎯 Markets on the summary: the groups kept are chosen, the rest left out, and the summary says so', async () => {
    await h.say(ALICE, '/filter');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), 'Arbs · prematch'));
    const done = async () => {
      const m = h.last(ALICE.id);
      await h.press(ALICE, m, h.button(m, 'Done'));
    };
    await done();
    await done();
    // Profit, odds and hours: each question's first ready answer.
    for (let i = 0; i < 3; i++) {
      const m = h.last(ALICE.id);
      await h.press(ALICE, m, h.button(m, h.labels(m)[0]!));
    }
    const summary = h.last(ALICE.id);
    expect(summary.text).toContain('Your filter for Arbs · prematch');
    await h.press(ALICE, summary, h.button(summary, 'Markets'));
    const list = h.last(ALICE.id);
    expect(list.text).toContain('Markets');
    await h.press(ALICE, list, h.button(list, 'main lines'));
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), 'totals'));
    await done();
    const again = h.last(ALICE.id);
    expect(again.text).toContain('Markets left out: handicaps, team totals, odd/even, other markets, halves, sets, periods, corners, cards');
    await h.press(ALICE, again, h.button(again, 'Save'));
    expect(saved()?.marketsOff).toEqual(['handicaps', 'team_totals', 'odd_even', 'other_markets', 'periods', 'corners', 'cards']);
  });
});
