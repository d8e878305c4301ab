/**
 * /settings for how alerts sound, end to end through the bot and the fake Bot API: the loud
 * threshold (all services or one), the loud rise, the stale-leg limits and what an all-stale live
 * alert does; each shown back in the settings, in English and Russian; a bad value quotes what was
 * typed, says what to send, and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { SERVICES } from '../../src/service/services.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness), { prematchFilter: false });

const last = () => h.last(ALICE.id);

describe('/settings: loud, loud_rise, stale', () => {
  it('stores the loud threshold for every service or one, the rise and the stale limits, and shows them', async () => {
    await h.say(ALICE, '/settings loud 3');
    for (const s of SERVICES) expect(h.store.getUser(ALICE.id)?.loud[s]).toEqual({ from: 3, rise: 1 });
    expect(last().text).toContain('Loud from: +3%');
    await h.say(ALICE, '/settings loud arbs_live 2,5%');
    expect(h.store.getUser(ALICE.id)?.loud.arbs_live).toEqual({ from: 2.5, rise: 1 });
    expect(last().text).toContain('arbs_live +2.5%');
    await h.say(ALICE, '/settings loud_rise arbs_live 2');
    expect(h.store.getUser(ALICE.id)?.loud.arbs_live).toEqual({ from: 2.5, rise: 2 });
    await h.say(ALICE, '/settings loud off');
    expect(h.store.getUser(ALICE.id)?.loud.arbs_live).toEqual({ from: null, rise: 2 });
    expect(last().text).toContain('Loud from: every alert');
    await h.say(ALICE, '/settings stale drop');
    await h.say(ALICE, '/settings stale 90');
    await h.say(ALICE, '/settings stale prematch 10m');
    expect(h.store.getUser(ALICE.id)).toMatchObject({ staleMode: 'drop', staleLegSeconds: { live: 90, prematch: 600 } });
    expect(last().text).toContain('Stale legs: live over 1 min 30 s, prematch over 10 min; a live alert with every leg stale: is not sent');
    await h.say(ALICE, '/settings lang ru');
    expect(last().text).toContain('Устаревшие исходы: лайв старше 1 мин 30 с, прематч старше 10 мин; лайв-сигнал, где устарели все исходы: не отправляется');
    expect(last().text).toContain('Со звуком от: все сигналы');
  });

  it('shows the bot’s defaults before any change: every alert loud, stale after 60 s live and 15 min prematch, sent silently', async () => {
    await h.say(ALICE, '/settings step 1');
    expect(last().text).toContain('Loud from: every alert');
    expect(last().text).toContain('Loud again after a rise of: +1 points');
    expect(last().text).toContain('Stale legs: live over 1 min, prematch over 15 min; a live alert with every leg stale: comes silently');
  });

  it.each([
    ['/settings loud loud', '“loud” is not a loud threshold'],
    ['/settings loud <b>9</b>', '“&lt;b&gt;9&lt;/b&gt;” is not a loud threshold'],
    ['/settings loud 500', '“500” is not a loud threshold'],
    ['/settings loud_rise 0', '“0” is not a rise'],
    ['/settings stale sometimes', '“sometimes” is not a stale-leg setting'],
    ['/settings stale 0', '“0” is not a stale-leg setting'],
    ['/settings stale prematch 3d', '“prematch 3d” is not a stale-leg setting'],
  ])('%s → a clear answer, nothing changed', async (line, answer) => {
    const before = h.store.getUser(ALICE.id);
    await h.say(ALICE, line);
    expect(last().text).toContain(answer);
    expect(last().text).toContain('Nothing was changed.');
    expect(h.store.getUser(ALICE.id)).toEqual(before);
  });

  it('in the menu: the loud threshold, the rise and the stale mode by button, a stale limit typed', async () => {
    await h.say(ALICE, '/settings');
    await h.press(ALICE, last(), h.button(last(), 'Loud from'));
    await h.press(ALICE, last(), h.button(last(), '+3%'));
    expect(h.store.getUser(ALICE.id)?.loud.valuebets_live).toEqual({ from: 3, rise: 1 });
    await h.press(ALICE, last(), h.button(last(), 'Loud again after a rise of'));
    await h.press(ALICE, last(), h.button(last(), '+2'));
    expect(h.store.getUser(ALICE.id)?.loud.arbs_live).toEqual({ from: 3, rise: 2 });
    await h.press(ALICE, last(), h.button(last(), 'Stale legs'));
    await h.say(ALICE, 'live 45');
    expect(h.store.getUser(ALICE.id)?.staleLegSeconds.live).toBe(45);
    await h.press(ALICE, last(), h.button(last(), 'Stale legs'));
    await h.press(ALICE, last(), h.button(last(), 'is not sent'));
    expect(h.store.getUser(ALICE.id)?.staleMode).toBe('drop');
    expect(last().text).toContain('live over 45 s');
  });
});
