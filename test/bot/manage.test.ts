/** /filters with its buttons, /pause, /resume, /status and /settings (one line and the menu) end to end. */
import { describe, expect, it } from 'vitest';
import { subscriptionKey } from '../../src/store/schema.js';
import { entry } from '../store/fixtures.js';
import { covered } from './fakes.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const last = () => h.last(ALICE.id);

describe('/filters', () => {
  it('lists nothing before the first filter', async () => {
    await h.say(ALICE, '/filters');
    expect(last().text).toContain('no filters yet');
  });

  it('pauses, resumes and deletes with buttons, editing the list in place', async () => {
    await h.say(ALICE, '/filter arbs_live min_profit=2 sports=1');
    await h.say(ALICE, '/filter valuebets_prematch min_overvalue=4');
    await h.say(ALICE, '/filters');
    const list = last();
    expect(list.text).toContain('Arbs · live</b> — 🟢 active');
    expect(list.text).toContain('Sports: Football');
    expect(list.text).toContain('Profit: from 2 %');
    expect(list.text).toContain('Overvalue: from 4 %');
    const refreshes = h.scheduler.refreshed.length;

    await h.press(ALICE, list, h.button(list, '⏸ Arbs · live'));
    expect(h.store.getUser(ALICE.id)?.filters.arbs_live).toMatchObject({ paused: true, pausedReason: 'user' });
    expect(h.callbackText()).toBe('Arbs · live: paused.');
    expect(h.scheduler.refreshed.length).toBe(refreshes + 1);
    const edited = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(edited.text).toContain('paused by you');

    await h.press(ALICE, edited, h.button(edited, '▶ Arbs · live'));
    expect(h.store.getUser(ALICE.id)?.filters.arbs_live?.paused).toBe(false);

    const again = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    h.store.alerts.set(subscriptionKey(ALICE.id, 'valuebets_prematch'), 'i1', entry({ eventId: 'e1', chatId: ALICE.id, messageId: 5 }));
    await h.press(ALICE, again, 'f:d:4');
    const confirm = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(confirm.text).toContain('Delete the filter for Valuebets · prematch?');
    await h.press(ALICE, confirm, h.button(confirm, 'Yes, delete'));
    expect(h.store.getUser(ALICE.id)?.filters.valuebets_prematch).toBeUndefined();
    expect(h.store.alerts.entries(subscriptionKey(ALICE.id, 'valuebets_prematch'))).toEqual([]);
    const after = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(after.text).not.toContain('Valuebets');
    expect(after.text).toContain('Arbs · live');
  });

  it('"No" on the delete confirmation keeps the filter', async () => {
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/filters');
    const list = last();
    await h.press(ALICE, list, 'f:d:1');
    const confirm = h.fake.messages(ALICE.id).find((m) => m.message_id === list.message_id)!;
    await h.press(ALICE, confirm, h.button(confirm, 'No'));
    expect(h.store.getUser(ALICE.id)?.filters.arbs_live).toBeDefined();
  });

  it('a button of a filter deleted meanwhile is answered as gone', async () => {
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/filters');
    const list = last();
    h.store.updateUser(ALICE.id, (d) => {
      delete d.filters.arbs_live;
    });
    await h.press(ALICE, list, 'f:p:1');
    expect(h.callbackText()).toBe('This filter no longer exists.');
    expect(h.store.getUser(ALICE.id)?.filters).toEqual({});
  });

  it('edit opens the builder with the service chosen and "Keep" answers', async () => {
    await h.say(ALICE, '/filter arbs_prematch min_profit=2 max_profit=9 min_odds=1.5 hours=6 bookmakers=7');
    await h.say(ALICE, '/filters');
    await h.press(ALICE, last(), 'f:e:0');
    expect(last().text).toContain('Arbs · prematch: sports');
    await h.press(ALICE, last(), h.button(last(), 'Done'));
    expect(last().text).toContain('Selected (1): Pinnacle');
    await h.press(ALICE, last(), h.button(last(), 'Done'));
    await h.press(ALICE, last(), h.button(last(), 'Keep: 2–9 %'));
    await h.press(ALICE, last(), h.button(last(), 'Keep: ≥ 1.5'));
    await h.say(ALICE, '24');
    await h.press(ALICE, last(), h.button(last(), 'Save'));
    const writes = h.client.callsOf('writeFilter');
    expect(writes).toHaveLength(2);
    expect(writes[1]?.filter).toMatchObject({ bookmakers: [7], minProfit: 2, maxProfit: 9, minOdds: 1.5, hoursToStart: 24 });
  });
});

describe('/pause and /resume', () => {
  it('all filters, or the named one; bad and missing services answered', async () => {
    await h.say(ALICE, '/pause');
    expect(last().text).toContain('no filters yet');
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/filter middles_prematch');
    await h.say(ALICE, '/pause arbs-live');
    expect(last().text).toContain('Paused: Arbs · live');
    expect(h.store.getUser(ALICE.id)?.filters.middles_prematch?.paused).toBe(false);
    await h.say(ALICE, '/pause');
    expect(last().text).toContain('Paused: Arbs · live, Middles · prematch');
    await h.say(ALICE, '/help');
    expect(last().text).toContain('/resume turns alerts back on');
    await h.say(ALICE, '/resume middles_prematch');
    expect(h.store.getUser(ALICE.id)?.filters.middles_prematch?.paused).toBe(false);
    expect(h.store.getUser(ALICE.id)?.filters.arbs_live?.paused).toBe(true);
    await h.say(ALICE, '/resume bogus');
    expect(last().text).toContain('“bogus” is not a service');
    await h.say(ALICE, '/resume valuebets_live');
    expect(last().text).toContain('no filter for Valuebets · live');
    await h.say(ALICE, '/resume');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_live?.paused).toBe(false);
  });
});

describe('/status', () => {
  it('per service: state, coverage, last read, alert and error in words', async () => {
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/filter valuebets_prematch');
    const now = h.clock.now();
    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: now - 2 * 60_000, lastAlertAt: now - 3 * 3_600_000, lastError: { kind: 'timeout', at: now - 10 * 60_000 } };
      const vb = d.filters.valuebets_prematch;
      if (vb) {
        vb.paused = true;
        vb.pausedReason = 'forbidden';
      }
      d.snoozedUntil.arbs_live = now + 30 * 60_000;
    });
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: covered(0.6, 8000) });
    await h.say(ALICE, '/status');
    const text = last().text;
    expect(text).toContain('Key <code>demo…key</code>');
    expect(text).toContain('Arbs · live</b> — 🟢 active');
    expect(text).toContain('Coverage 60 % of the time, a read every 8 s');
    expect(text).toContain('Last good read: Sat 3 Jan 09:58 (2 min ago)');
    expect(text).toContain('Last alert: Sat 3 Jan 07:00 (3 h ago)');
    expect(text).toContain('Last error: the service did not answer in time');
    expect(text).toContain('Snoozed until Sat 3 Jan 10:30');
    expect(text).toContain('no access to this service');
    expect(text).toContain('Not polled now');
    expect(text).toContain('Last alert: never');
  });

  it('in the user’s time zone and language', async () => {
    await h.say(ALICE, '/settings tz Europe/Moscow');
    await h.say(ALICE, '/settings lang ru');
    await h.say(ALICE, '/filter arbs_live');
    h.store.updateUser(ALICE.id, (d) => {
      d.status.arbs_live = { lastGoodReadAt: h.clock.now(), lastAlertAt: null, lastError: null };
    });
    await h.say(ALICE, '/status');
    expect(last().text).toContain('Последнее успешное чтение: сб 3 янв 13:00 (только что)');
  });

  it('says with how many others a shared read (LIMIT_SCOPE=address read group) is shared, in English and Russian', async () => {
    await h.say(ALICE, '/filter arbs_live');
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: { ...covered(1, 4_000), sharedWith: 3 } });
    await h.say(ALICE, '/status');
    expect(last().text).toContain('Coverage 100 % of the time, a read every 4 s, shared with 3 other users with the same filter.');
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: { ...covered(1, 4_000), sharedWith: 1 } });
    await h.say(ALICE, '/status');
    expect(last().text).toContain('shared with 1 other user with the same filter.');
    await h.say(ALICE, '/settings lang ru');
    h.scheduler.coverageTable.set(ALICE.id, { arbs_live: { ...covered(1, 4_000), sharedWith: 5 } });
    await h.say(ALICE, '/status');
    expect(last().text).toContain('общее с 5 другими пользователями с тем же фильтром.');
  });

  it('without a key: asks to connect', async () => {
    await h.say(BORIS, '/status');
    expect(h.last(BORIS.id).text).toContain('/connect');
  });
});

describe('/settings in one line', () => {
  it.each([
    ['/settings tz Mars/Olympus', '“Mars/Olympus” is not a time zone'],
    ['/settings tz <b>x</b>', '“&lt;b&gt;x&lt;/b&gt;” is not a time zone'],
    ['/settings bankroll -5', 'must be above zero'],
    ['/settings bankroll lots', '“lots” is not an amount. Send digits, like 500'],
    ['/settings step 0', 'must be above zero'],
    ['/settings quiet 23:00-23:00', 'would be empty'],
    ['/settings quiet 25:00-07:00', 'is not a time range'],
    ['/settings lang klingon', 'not a language I speak'],
    ['/settings colour red', '“colour” is not a setting'],
    ['/settings alerts somewhere', 'is not a chat'],
    [`/settings tz ${'x'.repeat(210)}`, 'too long'],
  ])('%s → a clear answer, nothing changed', async (line, answer) => {
    const before = h.store.getUser(ALICE.id);
    await h.say(ALICE, line);
    expect(last().text).toContain(answer);
    expect(h.store.getUser(ALICE.id)).toEqual(before);
  });

  it('stores valid values and switches the language at once', async () => {
    await h.say(ALICE, '/settings tz europe/moscow');
    await h.say(ALICE, '/settings bankroll 250.5');
    await h.say(ALICE, '/settings step 5');
    await h.say(ALICE, '/settings quiet 23:30–7:00');
    expect(h.store.getUser(ALICE.id)).toMatchObject({ timeZone: 'Europe/Moscow', bankroll: 250.5, roundingStep: 5, quietHours: { from: '23:30', to: '07:00' } });
    await h.say(ALICE, '/settings lang русский');
    expect(h.store.getUser(ALICE.id)?.lang).toBe('ru');
    expect(last().text).toContain('Сохранено');
    expect(last().text).toContain('Тихие часы: 23:30–07:00');
    await h.say(ALICE, '/settings quiet off');
    expect(h.store.getUser(ALICE.id)?.quietHours).toBeNull();
  });

  it('alerts to a group only where the bot and the user are admins', async () => {
    h.fake.setChat({ id: -1001, type: 'supergroup', title: 'Signals', botIsAdmin: true, adminIds: [ALICE.id], username: 'signals_room' });
    h.fake.setChat({ id: -1002, type: 'supergroup', title: 'Not mine', botIsAdmin: true, adminIds: [BORIS.id] });
    h.fake.setChat({ id: -1003, type: 'channel', title: 'No rights', botIsAdmin: false, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings alerts -1002');
    expect(last().text).toContain('You are not an admin in “Not mine”');
    await h.say(ALICE, '/settings alerts -1003');
    expect(last().text).toContain('I am not an admin in “No rights”');
    await h.say(ALICE, '/settings alerts -1009');
    expect(last().text).toContain('I cannot see the chat -1009');
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBeNull();
    await h.say(ALICE, '/settings alerts @unknown_room');
    expect(last().text).toContain('I cannot see the chat @unknown_room');
    await h.say(ALICE, '/settings alerts -1001');
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBe(-1001);
    expect(last().text).toContain('Alerts go to: chat -1001');
    await h.say(ALICE, '/settings alerts here');
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBeNull();
  });
});

describe('/settings menu', () => {
  it('changes the language, the time zone (with a bad value first) and the destination', async () => {
    h.fake.setChat({ id: -1001, type: 'supergroup', title: 'Signals', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings');
    expect(last().text).toContain('Settings');
    expect(last().text).toContain('Time zone: UTC');
    await h.say(ALICE, 'hello');
    expect(last().text).toContain('choose with the buttons');

    const menu = h.sent(ALICE.id).filter((m) => m.text.includes('⚙️')).at(-1)!;
    await h.press(ALICE, menu, h.button(menu, 'Time zone'));
    await h.say(ALICE, 'Nowhere/Land');
    expect(last().text).toContain('is not a time zone');
    await h.say(ALICE, 'Asia/Tbilisi');
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Asia/Tbilisi');

    await h.press(ALICE, last(), h.button(last(), 'Alerts go to'));
    await h.say(ALICE, '-1001');
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBe(-1001);
    expect(last().text).toContain('Alerts go to: chat -1001');

    await h.press(ALICE, last(), h.button(last(), 'Language'));
    await h.press(ALICE, last(), h.button(last(), 'Русский'));
    expect(h.store.getUser(ALICE.id)?.lang).toBe('ru');
    expect(last().text).toContain('Настройки');
    await h.press(ALICE, last(), h.button(last(), 'Готово'));
    expect(last().text).toContain('Настройки сохранены');
    // The menu is closed: text goes to the fallback, now in Russian.
    await h.say(ALICE, 'hello');
    expect(last().text).toContain('Не совсем понял');
  });

  it('a command typed mid-menu says the changes made are saved (not "nothing was saved"), and they are', async () => {
    await h.say(ALICE, '/settings');
    await h.press(ALICE, last(), h.button(last(), 'Bankroll'));
    await h.say(ALICE, '750');
    expect(last().text).toMatch(/^✅ Saved\.\n\n⚙️/);
    await h.press(ALICE, last(), h.button(last(), 'Time zone'));
    await h.say(ALICE, '/filters');
    const closed = h.sent(ALICE.id).find((m) => m.text.includes('closed the settings menu'));
    expect(closed?.text).toContain('the changes you made in it are saved');
    expect(h.sent(ALICE.id).some((m) => m.text.includes('nothing from it was saved'))).toBe(false);
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(750);
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('UTC');
  });

  it('bankroll and rounding step through ready answers and typed values', async () => {
    await h.say(ALICE, '/settings');
    await h.press(ALICE, last(), h.button(last(), 'Bankroll'));
    await h.say(ALICE, '0');
    expect(last().text).toContain('must be above zero');
    await h.press(ALICE, h.sent(ALICE.id).filter((m) => m.text.includes('bankroll')).at(-1)!, 'cv:v:1');
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(500);
    await h.press(ALICE, last(), h.button(last(), 'Rounding step'));
    await h.say(ALICE, '2.5');
    expect(h.store.getUser(ALICE.id)?.roundingStep).toBe(2.5);
    await h.press(ALICE, last(), h.button(last(), 'Quiet hours'));
    await h.say(ALICE, '22:00-06:30');
    expect(h.store.getUser(ALICE.id)?.quietHours).toEqual({ from: '22:00', to: '06:30' });
  });
});

describe('/filters while the builder is open', () => {
  it('"edit" closes the open builder and starts one for that service', async () => {
    await h.say(ALICE, '/filter middles_live min_profit=-1');
    await h.say(ALICE, '/filters');
    const list = last();
    await h.say(ALICE, '/filter');
    expect(last().text).toContain('New filter');
    await h.press(ALICE, list, h.button(list, 'Edit'));
    expect(last().text).toContain('Middles · live: sports');
    await h.press(ALICE, last(), h.button(last(), 'All sports'));
    await h.press(ALICE, last(), h.button(last(), 'All bookmakers'));
    await h.press(ALICE, last(), h.button(last(), 'Keep: ≥ -1 %'));
    await h.press(ALICE, last(), h.button(last(), 'Any odds'));
    await h.press(ALICE, last(), h.button(last(), 'Save'));
    expect(h.client.callsOf('writeFilter').at(-1)?.filter.minProfit).toBe(-1);
  });
});
