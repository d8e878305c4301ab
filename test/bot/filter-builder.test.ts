/** The filter builder conversation end to end: every step, paging, search, bad values, stale buttons, commands mid-flow, timeout. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOW_TIMEOUT_MS } from '../../src/bot/conversations/prompt.js';
import { covered } from './fakes.js';
import { ALICE, BORIS, createHarness, DEMO_SECRET, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.connect();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await h.close();
});

const prompt = () => h.last(ALICE.id);
const press = async (label: string) => {
  const message = prompt();
  await h.press(ALICE, message, h.button(message, label));
};
/** /filter for arbs live with every default answer, up to the summary (Save or Cancel). */
const toSummary = async () => {
  await h.say(ALICE, '/filter');
  for (const label of ['Arbs · live', 'All sports', 'All bookmakers', 'From 0 %', 'Any odds']) await press(label);
};

describe('/filter builder', () => {
  it('walks every step and writes the filter once at the end', async () => {
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: covered(1) });
    h.scheduler.withExtra.set(`${ALICE.id}:arbs_prematch`, { arbs_live: covered(1), arbs_prematch: covered(0.5) });

    await h.say(ALICE, '/filter');
    expect(prompt().text).toContain('New filter');
    expect(h.labels(prompt())).toHaveLength(6);
    await press('Arbs · prematch');

    // Sports: 10 options, 8 per page, in the service's order (football first), not A–Z.
    expect(prompt().text).toContain('Arbs · prematch: sports');
    expect(h.labels(prompt())).toContain('1/2');
    expect(h.labels(prompt()).slice(0, 2)).toEqual(['Football', 'Ice hockey']);
    expect(h.labels(prompt())).not.toContain('Futsal');
    await press('›');
    expect(h.labels(prompt())).toEqual(expect.arrayContaining(['e-Sports', 'Futsal', '2/2']));
    await press('Futsal');
    expect(h.labels(prompt())).toContain('✅ Futsal');
    await press('‹');
    await press('Football');
    expect(prompt().text).toContain('Selected (2): Football, Futsal');
    await press('Done');

    // Bookmakers: search by typed name.
    expect(prompt().text).toContain('Bookmakers');
    await h.say(ALICE, 'pinn');
    expect(prompt().text).toContain('Search: “pinn”');
    expect(h.labels(prompt()).filter((l) => !/Clear|All|Done/.test(l))).toEqual(['Pinnacle']);
    await press('Pinnacle');
    await h.say(ALICE, 'zzz');
    expect(prompt().text).toContain('Nothing matches “zzz”');
    await h.say(ALICE, '<script>');
    expect(prompt().text).toContain('Nothing matches “&lt;script&gt;”');
    await h.press(ALICE, h.sent(ALICE.id).filter((m) => m.text.includes('Search: “pinn”')).at(-1)!, 'cv:done');

    // Profit: bad values re-ask, nothing changes.
    expect(prompt().text).toContain('Profit, %');
    await h.say(ALICE, 'abc');
    expect(prompt().text).toContain('“abc” is not a range');
    await h.say(ALICE, '5-2');
    expect(prompt().text).toContain('The range is reversed');
    await h.say(ALICE, '-1');
    expect(prompt().text).toContain('-1 is negative');
    await h.say(ALICE, 'x'.repeat(201));
    expect(prompt().text).toContain('too long');
    await h.say(ALICE, '1.5-10');

    // Odds: the ready answer.
    expect(prompt().text).toContain('Odds of every leg');
    await press('Any odds');
    // Hours to start (prematch only).
    expect(prompt().text).toContain('within how many hours');
    await h.say(ALICE, '12');

    const summary = prompt();
    expect(summary.text).toContain('Your filter for Arbs · prematch');
    expect(summary.text).toContain('Sports: Football, Futsal');
    expect(summary.text).toContain('Bookmakers: Pinnacle');
    expect(summary.text).toContain('Profit: 1.5–10 %');
    expect(summary.text).toContain('Odds: any');
    expect(summary.text).toContain('Starts within: 12 h');
    expect(summary.text).toContain('Arbs · live 100 %, Arbs · prematch 50 % of the time');
    expect(h.client.callsOf('writeFilter')).toHaveLength(0);

    await h.say(ALICE, 'yes');
    expect(prompt().text).toContain('press “Save”');
    await h.press(ALICE, summary, h.button(summary, 'Save'));
    const writes = h.client.callsOf('writeFilter');
    expect(writes).toHaveLength(1);
    expect(writes[0]?.filter).toEqual({
      sports: [1, 14],
      bookmakers: [7],
      minProfit: 1.5,
      maxProfit: 10,
      minOdds: null,
      maxOdds: null,
      hoursToStart: 12,
      minOvervalue: null,
      marketsOff: [],
      minProfitBySport: {},
    });
    expect(prompt().text).toContain('Filter for Arbs · prematch saved');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.settings.sports).toEqual([1, 14]);
    // The conversation is over: text goes to the fallback again.
    await h.say(ALICE, 'hello');
    expect(prompt().text).toContain('not sure what you mean');
  });

  it('valuebets live: overvalue instead of profit, no hours step; "All" buttons', async () => {
    await h.say(ALICE, '/filter');
    await h.say(ALICE, 'valuebets live');
    await press('All sports');
    await press('All bookmakers');
    expect(prompt().text).toContain('Minimum overvalue');
    await h.say(ALICE, '-3');
    expect(prompt().text).toContain('-3 is negative');
    await h.say(ALICE, '3');
    await h.say(ALICE, '1.2');
    expect(prompt().text).toContain('Your filter for Valuebets · live');
    expect(prompt().text).toContain('Overvalue: from 3 %');
    expect(prompt().text).not.toContain('Starts within');
    await press('Save');
    expect(h.client.callsOf('writeFilter')[0]?.filter).toMatchObject({ minOvervalue: 3, minOdds: 1.2, maxOdds: null, sports: [], bookmakers: [] });
  });

  it('an unknown service typed at the first step is answered; typed ids select, typed text searches', async () => {
    await h.say(ALICE, '/filter');
    await h.say(ALICE, 'poker');
    expect(prompt().text).toContain('“poker” is not a service');
    await h.say(ALICE, 'arbs_live');
    await h.say(ALICE, '1,999');
    expect(prompt().text).toContain('Unknown ids: 999');
    await h.say(ALICE, 'footbal');
    expect(prompt().text).toContain('Search: “footbal”');
    await h.say(ALICE, '1,5');
    expect(prompt().text).toContain('Selected (2): Football, Basketball');
  });

  it('a stale button is answered politely and changes nothing', async () => {
    // A prompt left over from an earlier flow still shows its buttons.
    const old = await h.plant(ALICE.id, 'old prompt', [['Valuebets · live', 'cv:s:5']]);
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await h.press(ALICE, old, 'cv:s:5');
    expect(h.callbackText()).toBe('This button is no longer active.');
    expect(prompt().text).toContain('Arbs · live: sports');
  });

  it('a command in the middle closes the flow politely and runs; nothing written', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await h.say(ALICE, '/status');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.at(-2)).toContain('I closed the step');
    expect(texts.at(-1)).toContain('Key <code>demo…key</code>');
    await h.say(ALICE, '1,5');
    expect(prompt().text).toContain('not sure what you mean');
    expect(h.client.callsOf('writeFilter')).toHaveLength(0);
  });

  it('/cancel ends the builder; Cancel on the summary too', async () => {
    await h.say(ALICE, '/filter');
    await h.say(ALICE, '/cancel');
    expect(prompt().text).toContain('Stopped');
    await h.say(ALICE, 'arbs_live');
    expect(prompt().text).toContain('not sure what you mean');

    await toSummary();
    await press('Cancel');
    expect(prompt().text).toContain('was not saved');
    expect(h.client.callsOf('writeFilter')).toHaveLength(0);
  });

  it('times out: after 15 minutes the next message is not taken by the builder', async () => {
    await h.say(ALICE, '/filter');
    const start = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(start + FLOW_TIMEOUT_MS + 1000);
    await h.say(ALICE, 'arbs_live');
    expect(prompt().text).toContain('not sure what you mean');
  });

  it('alert buttons pressed during the builder reach their handler; the builder goes on', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await h.say(ALICE, '/filter arbs_prematch');
    // The one-line command closed the builder; start again and press an alert button meanwhile.
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    const alert = await h.plant(ALICE.id, 'an alert', [['Mute', 'a:mute:0:ev42']]);
    await h.press(ALICE, alert, 'a:mute:0:ev42');
    expect(h.callbackText()).toContain('Muted for 24 h');
    expect(h.store.getUser(ALICE.id)?.mutedEvents.ev42).toBe(h.clock.now() + 24 * 3_600_000);
    const sports = h.sent(ALICE.id).filter((m) => m.text.includes('Arbs · live: sports')).at(-1)!;
    await h.press(ALICE, sports, h.button(sports, 'All sports'));
    expect(prompt().text).toContain('Bookmakers');
  });

  it('a write refused at the end says why and stores nothing', async () => {
    h.client.failNext('writeFilter', 'auth');
    await toSummary();
    await press('Save');
    expect(prompt().text).toContain('refused your key pair');
    expect(h.store.getUser(ALICE.id)?.filters).toEqual({});
  });

  it('without dictionaries the lists are skipped with a note', async () => {
    h.client.dictsAvailable = false;
    await h.say(ALICE, '/filter');
    await press('Middles · live');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.some((t) => t.includes('lists are not available'))).toBe(true);
    expect(prompt().text).toContain('Profit if the middle misses');
  });

  it('speaks Russian to a Russian user', async () => {
    await h.say(BORIS, `/connect other-key ${DEMO_SECRET}`);
    h.client.addKey('other-key', DEMO_SECRET);
    await h.say(BORIS, `/connect other-key ${DEMO_SECRET}`);
    await h.say(BORIS, '/filter');
    expect(h.last(BORIS.id).text).toContain('Новый фильтр');
    expect(h.labels(h.last(BORIS.id))).toContain('Вилки · лайв');
  });

  it('no key: the builder does not start', async () => {
    await h.say(BORIS, '/filter');
    expect(h.last(BORIS.id).text).toContain('Сначала подключите');
  });
});
