/** Attention controls a person can see: mute answers at once and names the event, mutes by event, league or bookmaker, /muted lifts them, the snooze names the whole service and shows in /filters. */
import { describe, expect, it } from 'vitest';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { formatAlert } from '../../src/alerts/format.js';
import { decodeMuteAction, encodeMuteAction, muteKeyTag } from '../../src/bot/callback-data/index.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import { isMutedItem, MAX_MUTES, MUTE_FOREVER, withMute } from '../../src/store/mutes.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, type Harness, recordGroupAlert, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));
const last = () => h.last(ALICE.id);
const HOUR = 3_600_000;
const muteData = encodeAlertAction({ type: 'mute', service: 'arbs_prematch', eventId: 'ev1' })!;

async function muteFromAlert() {
  h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1', eventId: 'ev1', team1: 'Rune', team2: 'Sinner' })]);
  const alert = await h.plant(ALICE.id, 'alert', [['🔕 Mute event', muteData]]);
  await h.press(ALICE, alert, muteData);
}

describe('"🔕 Mute event"', () => {
  it('answers the tap first, naming the event, then offers longer or wider mutes', async () => {
    await muteFromAlert();
    const methods = h.fake.calls().map((c) => c.method);
    const answered = methods.lastIndexOf('answerCallbackQuery');
    const offered = methods.lastIndexOf('sendMessage');
    expect(answered).toBeGreaterThan(-1);
    expect(answered).toBeLessThan(offered);
    expect(h.callbackText()).toBe('🔕 Muted for 24 h: Rune — Sinner.');
    const user = h.store.getUser(ALICE.id)!;
    expect(user.mutedEvents.ev1).toBe(h.clock.now() + 24 * HOUR);
    expect(user.mutes['e:ev1']).toEqual({ until: h.clock.now() + 24 * HOUR, label: 'Rune — Sinner' });
    expect(last().text).toContain('Rune — Sinner</b>: muted for 24 h');
    expect(h.labels(last())).toEqual([
      'Event · 1 h', 'Event · 24 h', 'Event · for good',
      'League · 1 h', 'League · 24 h', 'League · for good',
      'Pinnacle · 1 h', 'Pinnacle · 24 h', 'Pinnacle · for good',
      'Bwin · 1 h', 'Bwin · 24 h', 'Bwin · for good',
      '↩️ Unmute the event',
    ]);
  });

  it('mutes the league for good and a bookmaker for 1 h from the offer; the unmute button lifts the event', async () => {
    await muteFromAlert();
    const offer = last();
    await h.press(ALICE, offer, h.button(offer, 'League · for good'));
    expect(h.callbackText()).toMatch(/^🔕 Muted for good: .*ATP/);
    const league = Object.entries(h.store.getUser(ALICE.id)!.mutes).find(([k]) => k.startsWith('l:'));
    expect(league?.[1].until).toBe(MUTE_FOREVER);
    await h.press(ALICE, offer, h.button(offer, 'Bwin · 1 h'));
    expect(h.callbackText()).toBe('🔕 Muted for 1 h: Bwin.');
    expect(h.store.getUser(ALICE.id)!.mutes['b:3']?.until).toBe(h.clock.now() + HOUR);
    await h.press(ALICE, offer, h.button(offer, 'Unmute the event'));
    expect(h.callbackText()).toBe('↩️ Unmuted: Rune — Sinner.');
    expect(h.store.getUser(ALICE.id)!.mutedEvents.ev1).toBeUndefined();
    expect(h.store.getUser(ALICE.id)!.mutes['e:ev1']).toBeUndefined();
  });

  it('a league cannot be told once the item left the latest list: said, nothing stored', async () => {
    await muteFromAlert();
    const offer = last();
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, offer, h.button(offer, 'League · 24 h'));
    expect(h.callbackText()).toContain('cannot tell its league');
    expect(Object.keys(h.store.getUser(ALICE.id)!.mutes).filter((k) => k.startsWith('l:'))).toEqual([]);
  });

  it('under a group alert: the toast names the event and the offer goes to the private chat; mute buttons pressed in a group are refused', async () => {
    h.fake.setChat({ id: -2001, type: 'supergroup', title: 'Team', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings alerts -2001');
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'i5', eventId: 'ev5', team1: 'Rune', team2: 'Sinner' })]);
    const d = encodeAlertAction({ type: 'mute', service: 'arbs_prematch', eventId: 'ev5' })!;
    const alert = await h.plant(-2001, 'alert', [['Mute', d]]);
    recordGroupAlert(h.store, ALICE.id, 'i5', 'ev5', alert);
    await h.press(ALICE, alert, d);
    expect(h.callbackText()).toBe('🔕 Muted for 24 h: Rune — Sinner. I sent the choices for longer or wider mutes to our private chat.');
    expect(last().text).toContain('Rune — Sinner</b>: muted for 24 h');
    const forged = encodeMuteAction({ type: 'bookmaker', duration: 'forever', bookmakerId: 7 })!;
    const planted = await h.plant(-2001, 'x', [['x', forged]]);
    await h.press(BORIS, planted, forged);
    expect(h.callbackText()).toContain('нажимайте эти кнопки в нашем личном чате');
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
  });
});

describe('/muted', () => {
  it('nothing muted: says how to mute', async () => {
    await h.say(ALICE, '/muted');
    expect(last().text).toContain('Nothing is muted or snoozed');
  });

  it('lists mutes and snoozes with their ends; each button lifts one and the list is redrawn', async () => {
    await muteFromAlert();
    await h.press(ALICE, last(), h.button(last(), 'Pinnacle · for good'));
    h.store.updateUser(ALICE.id, (d) => {
      d.snoozedUntil.arbs_prematch = h.clock.now() + HOUR;
      d.mutedEvents.oldev = h.clock.now() + 2 * HOUR;
    });
    await h.say(ALICE, '/muted');
    const list = last();
    expect(list.text).toContain('📅 Rune — Sinner — until Sun 4 Jan 10:00');
    expect(list.text).toContain('📅 oldev — until Sat 3 Jan 12:00');
    expect(list.text).toContain('🏦 Pinnacle — for good');
    expect(list.text).toContain('😴 Arbs · prematch: every alert of the service, until Sat 3 Jan 11:00');
    expect(h.labels(list)).toEqual(['↩️ oldev', '↩️ Rune — Sinner', '↩️ Pinnacle', '▶️ Arbs · prematch']);
    await h.press(ALICE, list, h.button(list, 'Pinnacle'));
    expect(h.callbackText()).toBe('↩️ Unmuted: Pinnacle.');
    const redrawn = h.sent(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(redrawn.text).not.toContain('Pinnacle');
    await h.press(ALICE, redrawn, h.button(redrawn, 'Arbs · prematch'));
    expect(h.callbackText()).toBe('▶️ Arbs · prematch: alerts are back on.');
    expect(h.store.getUser(ALICE.id)!.snoozedUntil.arbs_prematch).toBeUndefined();
    expect(h.scheduler.refreshed).toContain(ALICE.id);
    // A lift pressed twice (an old copy of the list): the mute has already ended.
    const lift = encodeMuteAction({ type: 'lift', tag: muteKeyTag('b:7') })!;
    const stale = await h.plant(ALICE.id, 'old list', [['↩️ Pinnacle', lift]]);
    await h.press(ALICE, stale, lift);
    expect(h.callbackText()).toBe('That mute has already ended.');
  });

  it('forged or stale data is refused and changes nothing', async () => {
    const before = h.store.getUser(ALICE.id);
    const planted = await h.plant(ALICE.id, 'x', [['x', 'm:u:zzzzzzzz'], ['y', 'm:e:x:0:ev1'], ['z', `m:u:${muteKeyTag('e:nothing')}`]]);
    await h.press(ALICE, planted, 'm:u:zzzzzzzz');
    expect(h.callbackText()).toBe('This button is no longer active.');
    await h.press(ALICE, planted, 'm:e:x:0:ev1');
    expect(h.callbackText()).toBe('This button is no longer active.');
    await h.press(ALICE, planted, `m:u:${muteKeyTag('e:nothing')}`);
    expect(h.callbackText()).toBe('That mute has already ended.');
    expect(h.store.getUser(ALICE.id)).toEqual(before);
  });

  it('is in the command menu and /help', async () => {
    const { commandMenu } = await import('../../src/bot/commands.js');
    expect(commandMenu('ru').map((c) => c.command)).toContain('muted');
    await h.say(ALICE, '/help');
    expect(last().text).toContain('\n/muted — Muted events, leagues, bookmakers and snoozes');
  });
});

describe('the snooze names the whole service and shows in /filters', () => {
  it('its button says every alert of the service, on a row of its own', () => {
    const names = namesFor(undefined, 'en');
    const view = { lang: 'en' as const, timeZone: 'UTC', bankroll: 100, roundingStep: 1, now: Date.UTC(2026, 0, 3, 10) };
    const live = formatAlert(makeItem({ id: 'a1', service: 'arbs_live' }), names, view, { state: 'new' });
    expect(live.buttons.at(-1)!.map((b) => b.text)).toEqual(['😴 All live arbs · 1 h']);
    const ru = formatAlert(makeItem({ id: 'v1', service: 'valuebets_prematch' }), namesFor(undefined, 'ru'), { ...view, lang: 'ru' }, { state: 'new' });
    expect(ru.buttons.at(-1)!.map((b) => b.text)).toEqual(['😴 Все прематч-валуи · 1 ч']);
  });

  it('/filters shows the snooze until it ends', async () => {
    const snooze = encodeAlertAction({ type: 'snooze', service: 'arbs_prematch' })!;
    const alert = await h.plant(ALICE.id, 'alert', [['Snooze', snooze]]);
    await h.press(ALICE, alert, snooze);
    await h.say(ALICE, '/filters');
    expect(last().text).toContain('😴 All its alerts snoozed until Sat 3 Jan 11:00 (/muted lifts it).');
    await h.clock.advance(HOUR + 1);
    await h.say(ALICE, '/filters');
    expect(last().text).not.toContain('snoozed');
    expect((last().reply_markup as InlineKeyboardMarkup).inline_keyboard.length).toBeGreaterThan(0);
  });
});

describe('mutes, as stored', () => {
  it('an item is muted by its event, league or any leg’s bookmaker, only while the mute lasts', () => {
    const item = makeItem({ id: 'a1', eventId: 'ev1' });
    const now = 1_000;
    const none = { mutedEvents: {}, mutes: {} };
    expect(isMutedItem(none, item, now)).toBe(false);
    expect(isMutedItem({ mutedEvents: { ev1: now + 1 }, mutes: {} }, item, now)).toBe(true);
    expect(isMutedItem({ mutedEvents: {}, mutes: { 'b:3': { until: now + 1, label: 'Bwin' } } }, item, now)).toBe(true);
    expect(isMutedItem({ mutedEvents: {}, mutes: { 'b:3': { until: now, label: 'Bwin' } } }, item, now)).toBe(false);
    expect(isMutedItem({ mutedEvents: {}, mutes: { 'b:99': { until: now + 1, label: 'x' } } }, item, now)).toBe(false);
  });

  it('are bounded: forged presses cannot grow the record', () => {
    let mutes = {};
    for (let i = 0; i < MAX_MUTES + 30; i++) mutes = withMute(mutes, `b:${i}`, { until: 10_000 + i, label: 'x'.repeat(500) }, 0);
    expect(Object.keys(mutes)).toHaveLength(MAX_MUTES);
    expect(Object.values(mutes).every((e) => (e as { label: string }).label.length <= 120)).toBe(true);
  });

  it('the codec reads only its exact forms', () => {
    expect(decodeMuteAction('m:b:f:7')).toEqual({ type: 'bookmaker', duration: 'forever', bookmakerId: 7 });
    for (const bad of ['m:b:x:7', 'm:b:f:-1', 'm:e:h:9:ev', 'm:u:ABCDEF12', 'm:z:', 'm:l:d:0:has space', 'm:q:1', 'a:mute:0:e1']) {
      expect(decodeMuteAction(bad), bad).toBeUndefined();
    }
  });
});
