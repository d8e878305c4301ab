/** The one-line /filter: strict parsing, every bad input answered with nothing changed, one write on success. */
import { describe, expect, it } from 'vitest';
import { parseFilterArgs } from '../../src/bot/parse/filter-args.js';
import { covered, fixtureDictionaries } from './fakes.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

describe('/filter <service> …', () => {
  it('saves with no options: all sports and bookmakers, profit from 0; one write, store, scheduler', async () => {
    await h.say(ALICE, '/filter arbs_prematch');
    const writes = h.client.callsOf('writeFilter');
    expect(writes).toHaveLength(1);
    expect(writes[0]?.filter).toMatchObject({ sports: [], bookmakers: [], minProfit: 0, maxProfit: null, minOdds: null, hoursToStart: null });
    expect(writes[0]?.opts).toMatchObject({ priority: 'interactive', wait: false });
    const record = h.store.getUser(ALICE.id)?.filters.arbs_prematch;
    expect(record).toMatchObject({ paused: false, pausedReason: null, savedAt: h.clock.now() });
    expect(h.scheduler.refreshed.filter((id) => id === ALICE.id).length).toBeGreaterThanOrEqual(2);
    expect(h.last(ALICE.id).text).toContain('Filter for Arbs · prematch saved');
  });

  it('parses every option', async () => {
    await h.say(ALICE, '/filter arbs-prematch min_profit=1.5 max_profit=10 min_odds=1,4 max_odds=3.5 hours=12 sports=1,6 bookmakers=7,3');
    expect(h.client.callsOf('writeFilter')[0]?.filter).toEqual({
      sports: [1, 6],
      bookmakers: [7, 3],
      minProfit: 1.5,
      maxProfit: 10,
      minOdds: 1.4,
      maxOdds: 3.5,
      hoursToStart: 12,
      minOvervalue: null,
      marketsOff: [],
      minProfitBySport: {},
    });
  });

  it('valuebets take min_overvalue; middles may have a negative minimum', async () => {
    await h.say(ALICE, '/filter valuebets_live min_overvalue=3');
    expect(h.client.callsOf('writeFilter')[0]?.filter.minOvervalue).toBe(3);
    await h.say(ALICE, '/filter middles_prematch min_profit=-2 max_profit=5');
    expect(h.client.callsOf('writeFilter')[1]?.filter).toMatchObject({ minProfit: -2, maxProfit: 5 });
  });

  it('valuebets take min_profit as min_overvalue (a valuebet\'s profit is its overvalue)', async () => {
    await h.say(ALICE, '/filter valuebets_prematch min_profit=4.5');
    expect(h.client.callsOf('writeFilter')[0]?.filter).toMatchObject({ minOvervalue: 4.5, minProfit: 0, maxProfit: null });
    expect(h.store.getUser(ALICE.id)?.filters.valuebets_prematch?.settings.minOvervalue).toBe(4.5);
  });

  it('explains the coverage trade-off when this service lowers the others', async () => {
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: covered(1) });
    h.scheduler.withExtra.set(`${ALICE.id}:middles_prematch`, { arbs_live: covered(1), middles_prematch: covered(0.4, 15_000) });
    await h.say(ALICE, '/filter middles_prematch');
    const text = h.last(ALICE.id).text;
    expect(text).toContain('Arbs · live 100 %, Middles · prematch 40 % of the time');
  });

  it.each([
    ['/filter arbs_prematch min_profit=abc', '“abc” is not a number'],
    ['/filter arbs_prematch min_profit=-1', '-1 is negative'],
    ['/filter arbs_prematch min_profit=5 max_profit=2', 'The range is reversed: 5 is above 2'],
    ['/filter arbs_prematch min_odds=0.5', 'Odds of 0.5 are impossible'],
    ['/filter arbs_prematch min_odds=3 max_odds=2', 'The range is reversed'],
    ['/filter arbs_prematch hours=0', 'must be above zero'],
    ['/filter arbs_prematch hours=99999', 'is too high'],
    ['/filter poker_live', '“poker_live” is not a service'],
    ['/filter <b>x</b>', '“&lt;b&gt;x&lt;/b&gt;” is not a service'],
    ['/filter arbs_prematch colour=red', '“colour=red” is not an option'],
    ['/filter arbs_prematch min_profit=1 min_profit=2', 'given twice'],
    ['/filter arbs_prematch min_profit=', 'has no value'],
    ['/filter arbs_prematch sports=1,,x', 'use names or ids separated by commas'],
    ['/filter arbs_prematch sports=1,999', 'Unknown sport ids: 999'],
    ['/filter arbs_prematch bookmakers=7,4242', 'Unknown bookmaker ids: 4242'],
    ['/filter valuebets_prematch max_profit=1', 'does not apply to valuebets_prematch'],
    ['/filter valuebets_prematch min_profit=1 min_overvalue=2', 'min_profit and min_overvalue are the same option'],
    ['/filter valuebets_prematch min_profit=-1', '-1 is negative'],
    ['/filter arbs_prematch min_overvalue=1', 'does not apply'],
    ['/filter arbs_live hours=3', 'does not apply to arbs_live'],
    [`/filter arbs_prematch min_profit=${'9'.repeat(250)}`, 'too long'],
  ])('%s → a clear answer, nothing changed', async (line, answer) => {
    await h.say(ALICE, line);
    const text = h.last(ALICE.id).text;
    expect(text).toContain(answer);
    expect(text).toContain('One line:');
    expect(h.client.callsOf('writeFilter')).toHaveLength(0);
    expect(h.store.getUser(ALICE.id)?.filters).toEqual({});
  });

  it('answers in Russian for a Russian user', async () => {
    await h.say(BORIS, '/start');
    await h.say(BORIS, '/filter arbs_prematch');
    expect(h.last(BORIS.id).text).toContain('Сначала подключите');
  });

  it('without a key: asks to connect first', async () => {
    await h.say(BORIS, '/filter arbs_prematch');
    expect(h.client.callsOf('writeFilter')).toHaveLength(0);
  });

  it('a write the budget refuses is kept as a draft; any other refusal stores nothing and says why', async () => {
    h.client.failNext('writeFilter', 'rate_limited', 120_000);
    await h.say(ALICE, '/filter arbs_live');
    expect(h.last(ALICE.id).text).toContain('as a draft');
    expect(h.store.getUser(ALICE.id)?.drafts.arbs_live).toBeDefined();
    h.client.failNext('writeFilter', 'forbidden');
    await h.say(ALICE, '/filter arbs_live');
    expect(h.last(ALICE.id).text).toContain('no access to Arbs · live');
    h.client.failNext('writeFilter', 'server');
    await h.say(ALICE, '/filter arbs_live');
    expect(h.last(ALICE.id).text).toContain('internal error');
    expect(h.store.getUser(ALICE.id)?.filters).toEqual({});
  });
});

describe('parseFilterArgs', () => {
  it('skips the id check when the dictionaries are not loaded', () => {
    const parsed = parseFilterArgs('arbs_live sports=4242', undefined);
    expect(parsed.ok && parsed.value.settings.sports).toEqual([4242]);
    const checked = parseFilterArgs('arbs_live sports=4242', fixtureDictionaries('en'));
    expect(checked.ok).toBe(false);
  });

  it('needs a service', () => {
    const parsed = parseFilterArgs('  ', undefined);
    expect(!parsed.ok && parsed.problem.key).toBe('filter_usage');
  });
});
