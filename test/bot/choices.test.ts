/** Choices that cannot fail silently: filters that can never alert are named, "All" redraws its prompt, names work where ids do, /sports and /bookmakers, /status explains silence, a valuebet is one bet. */
import { describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { matchName } from '../../src/bot/parse/dict-names.js';
import { subscriptionKey } from '../../src/store/schema.js';
import { BOOKMAKERS_EN, covered, makeItem, SPORTS_EN } from './fakes.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const prompt = () => h.last(ALICE.id);
const press = async (label: string) => {
  const message = prompt();
  await h.press(ALICE, message, h.button(message, label));
};
const HOUR = 60 * 60_000;

describe('the builder warns about a filter that can never alert', () => {
  it('an arb at one bookmaker: the summary says so before Save', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await press('All sports');
    await press('Pinnacle');
    await press('Done');
    await press('From 0 %');
    await press('Any odds');
    expect(prompt().text).toContain('An arb takes bets at two or more bookmakers, and this filter names only Pinnacle: it can never alert.');
    expect(h.labels(prompt())).toContain('💾 Save');
  });

  it('an arb with every odds at most 2, and a live filter without a live bookmaker', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await press('All sports');
    await press('Bwin');
    await press('Betclic');
    await press('Done');
    await press('From 0 %');
    await h.say(ALICE, '1.2-2');
    expect(prompt().text).toContain('With every odds at most 2, no arb is possible');
    expect(prompt().text).toContain('None of the chosen bookmakers (Betclic, Bwin) is offered live');
  });

  it('a filter that can alert gets no warning', async () => {
    await h.say(ALICE, '/filter');
    for (const label of ['Arbs · live', 'All sports', 'All bookmakers', 'From 0 %', 'Any odds']) await press(label);
    expect(prompt().text).not.toContain('⚠️');
  });

  it('"All sports" redraws the closed prompt: it no longer lists the earlier picks', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await press('Football');
    await press('Handball');
    expect(prompt().text).toContain('Selected (2): Football, Handball');
    const sportsPrompt = prompt();
    await press('All sports');
    const closed = h.sent(ALICE.id).find((m) => m.message_id === sportsPrompt.message_id);
    expect(closed?.text).toContain('Nothing selected: All sports.');
    expect(closed?.text).not.toContain('Selected (2)');
    expect(h.labels(closed!)).toEqual([]);
  });

  it('the builder takes typed names too: exact names select, a part of a name still searches', async () => {
    await h.say(ALICE, '/filter');
    await press('Arbs · live');
    await h.say(ALICE, 'football, Table tennis');
    expect(prompt().text).toContain('Selected (2): Football, Table tennis');
    // A part of a sport's name searches, as it does for bookmakers (newcomer trial #21).
    await h.say(ALICE, 'footbal');
    expect(prompt().text).toContain('Search: “footbal”');
    const sports = h.sent(ALICE.id).filter((m) => h.labels(m).includes('Done ✓')).at(-1)!;
    await h.press(ALICE, sports, h.button(sports, 'Done'));
    await h.say(ALICE, 'pinnacle, BWIN');
    expect(prompt().text).toContain('Selected (2): Bwin, Pinnacle');
    await h.say(ALICE, 'bet');
    expect(prompt().text).toContain('Search: “bet”');
  });

  it('the valuebet builder asks for the odds of the bet, not of every leg', async () => {
    await h.say(ALICE, '/filter');
    for (const label of ['Valuebets · live', 'All sports', 'All bookmakers', 'Any']) await press(label);
    expect(prompt().text).toContain('Odds of the bet.');
    expect(prompt().text).not.toContain('every leg');
  });
});

describe('names where ids are, in the one-line /filter', () => {
  it('sports and bookmakers by name (any case, "_" for a space), saved as ids', async () => {
    await h.say(ALICE, '/filter arbs_prematch sports=football,ICE_HOCKEY,6 bookmakers=pinnacle,Betfair_Sportsbook,1xbet');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.settings).toMatchObject({ sports: [1, 2, 6], bookmakers: [7, 10, 21] });
    expect(prompt().text).toContain('saved');
  });

  it('a near miss is refused with "did you mean"; an unknown name points to the list; nothing is saved', async () => {
    await h.say(ALICE, '/filter arbs_prematch sports=footbal');
    expect(prompt().text).toContain('“footbal” is not a sport I know. Did you mean Football?');
    await h.say(ALICE, '/filter arbs_prematch bookmakers=pinacle');
    expect(prompt().text).toContain('Did you mean Pinnacle?');
    await h.say(ALICE, '/filter arbs_prematch sports=zzzz');
    expect(prompt().text).toContain('“zzzz” is not a sport I know. /sports lists');
    await h.say(ALICE, '/filter arbs_prematch sports=constructor');
    expect(prompt().text).toContain('is not a sport I know');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch).toBeUndefined();
  });

  it('in Russian the names of the user’s language and English both work', async () => {
    await h.say(ALICE, '/settings lang ru');
    await h.say(ALICE, '/filter arbs_prematch sports=Футбол,tennis');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.settings.sports).toEqual([1, 6]);
    await h.say(ALICE, '/filter arbs_prematch sports=футбл');
    expect(prompt().text).toContain('«футбл» — такого вида спорта я не знаю. Может быть, Футбол?');
  });

  it('names need the lists: without them the answer says to use ids', async () => {
    h.client.dictsAvailable = false;
    await h.say(ALICE, '/filter arbs_prematch sports=football');
    expect(prompt().text).toContain('cannot read the name “football” in sports=');
    await h.say(ALICE, '/filter arbs_prematch sports=1');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.settings.sports).toEqual([1]);
  });

  it('a one-line arb at one bookmaker is saved with the warning', async () => {
    await h.say(ALICE, '/filter arbs_prematch bookmakers=pinnacle');
    expect(prompt().text).toContain('saved');
    expect(prompt().text).toContain('this filter names only Pinnacle: it can never alert');
  });

  it('matchName: exact keys only; suggestions are near or start alike', () => {
    expect(matchName('Bet 365', [{ '1': 'bet365' }])).toEqual({ ok: true, id: 1 });
    expect(matchName('tenis', [SPORTS_EN])).toEqual({ ok: false, suggestions: ['Tennis'] });
    expect(matchName('bet', [BOOKMAKERS_EN])).toEqual({ ok: false, suggestions: ['Betclic', 'Betfair Sportsbook'] });
    expect(matchName('', [SPORTS_EN])).toEqual({ ok: false, suggestions: [] });
  });
});

describe('/sports and /bookmakers', () => {
  it('list names with ids; a word narrows the bookmakers; live ones are marked', async () => {
    await h.say(ALICE, '/sports');
    expect(prompt().text).toContain('Football — <code>1</code>');
    expect(prompt().text).toContain('Ice hockey — <code>2</code>');
    await h.say(ALICE, '/bookmakers');
    expect(prompt().text).toContain('Pinnacle — <code>7</code> 🔴');
    expect(prompt().text).toContain('Bwin — <code>3</code>\n');
    await h.say(ALICE, '/bookmakers bet');
    expect(prompt().text).toContain('Betclic');
    expect(prompt().text).not.toContain('Pinnacle');
    await h.say(ALICE, '/bookmakers zzz');
    expect(prompt().text).toContain('No name matches “zzz”');
    h.client.dictsAvailable = false;
    await h.say(ALICE, '/sports');
    expect(prompt().text).toContain('not available right now');
  });

  it('are in the command menu and in /help', async () => {
    const { commandMenu } = await import('../../src/bot/commands.js');
    expect(commandMenu('en').map((c) => c.command)).toEqual(expect.arrayContaining(['sports', 'bookmakers']));
    await h.say(ALICE, '/help');
    expect(prompt().text).toContain('\n/sports — Sports: names and ids for /filter');
    expect(prompt().text).toContain('\n/bookmakers — Bookmakers: names and ids for /filter');
  });
});

describe('/status says why a service has alerted nothing for an hour', () => {
  const status = async () => {
    await h.say(ALICE, '/status');
    return prompt().text;
  };

  it('not within the first hour; then the first reason that holds', async () => {
    await h.say(ALICE, '/filter arbs_live');
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: covered(1) });
    expect(await status()).not.toContain('No alert for over an hour');

    await h.clock.advance(2 * HOUR);
    expect(await status()).toContain('No alert for over an hour: no read has worked in the last hour.');

    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: h.clock.now() - 60_000, lastAlertAt: null, lastError: null };
    });
    expect(await status()).toContain('the reads work, but nothing new matched your filter');

    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: h.clock.now() - 60_000, lastAlertAt: null, lastError: { kind: 'timeout', at: h.clock.now() - 1000 } };
    });
    expect(await status()).toContain('the last reads failed (the service did not answer in time)');

    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: h.clock.now() - 60_000, lastAlertAt: null, lastError: null };
      d.quietHours = { from: '00:00', to: '23:59' };
    });
    expect(await status()).toContain('your quiet hours (00:00–23:59) hold alerts back');

    h.scheduler.coverageTable.set(ALICE.id, {});
    expect(await status()).toContain('it is not being read now');

    h.store.updateUser(ALICE.id, (d) => {
      d.snoozedUntil.arbs_live = h.clock.now() + HOUR;
    });
    expect(await status()).toContain('No alert for over an hour: alerts are snoozed.');

    await h.say(ALICE, '/pause arbs_live');
    expect(await status()).toContain('No alert for over an hour: the filter is paused (/resume).');
  });

  it('a filter that can never alert is named as the reason', async () => {
    await h.say(ALICE, '/filter arbs_live bookmakers=7');
    await h.clock.advance(2 * HOUR);
    const text = await status();
    expect(text).toContain('No alert for over an hour, and this filter cannot alert:');
    expect(text).toContain('names only Pinnacle');
  });

  it('an alert within the hour: nothing to explain', async () => {
    await h.say(ALICE, '/filter arbs_live');
    await h.clock.advance(2 * HOUR);
    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: h.clock.now(), lastAlertAt: h.clock.now() - 10 * 60_000, lastError: null };
    });
    expect(await status()).not.toContain('No alert for over an hour');
  });
});

describe('"Other amount" on a valuebet speaks of one bet and shows the amount used', () => {
  it('asks for the amount to bet, then says what that bet returns above the card', async () => {
    await h.say(ALICE, '/filter valuebets_prematch');
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'v1', service: 'valuebets_prematch' })]);
    h.store.alerts.set(subscriptionKey(ALICE.id, 'valuebets_prematch'), 'v1', {
      eventId: 'e1', chatId: ALICE.id, messageId: null, firstSeenAt: 0, lastSeenAt: 0, goneAt: null, profit: null, odds: [2.1], lastEditAt: 0,
    });
    const d = encodeAlertAction({ type: 'stakes', service: 'valuebets_prematch', itemId: 'v1' })!;
    const alert = await h.plant(ALICE.id, 'alert', [['Other amount', d]]);
    h.store.alerts.set(subscriptionKey(ALICE.id, 'valuebets_prematch'), 'v1', {
      eventId: 'e1', chatId: ALICE.id, messageId: alert.message_id, firstSeenAt: 0, lastSeenAt: 0, goneAt: null, profit: null, odds: [2.1], lastEditAt: 0,
    });
    await h.press(ALICE, alert, d);
    expect(prompt().text).toContain('Send the amount to bet on this valuebet (your bankroll is 100)');
    await h.say(ALICE, '1 000');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.join('\n')).toContain('💰 A bet of 1000 at 2.1');
    expect(texts.join('\n')).toContain('returns 2100');
  });

  it('on an arb it still asks for the amount to split', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const d = encodeAlertAction({ type: 'stakes', service: 'arbs_prematch', itemId: 'a1' })!;
    const alert = await h.plant(ALICE.id, 'alert', [['Other amount', d]]);
    await h.press(ALICE, alert, d);
    expect(prompt().text).toContain('Send the amount to split');
  });
});
