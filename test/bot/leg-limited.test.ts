/**
 * "✏️ Leg limited" under an arb alert (issue 22, item 4): the bot asks which leg and how much the
 * bookmaker accepted and answers at once with the stakes re-solved around it, on the user's steps
 * and caps; bad answers keep the question open and change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, createHarness, recordGroupAlert, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const limited = encodeAlertAction({ type: 'limited', service: 'arbs_prematch', itemId: 'a1' }) ?? '';

/** Bankroll 1000, step 5, the alert of 2.10 at Pinnacle / 2.05 at Bwin, and ✏️ Leg limited pressed. */
async function askLegLimited() {
  await h.connect();
  await h.say(ALICE, '/settings bankroll 1000');
  await h.say(ALICE, '/settings step 5');
  h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
  const alert = await h.plant(ALICE.id, 'alert', [['✏️ Leg limited', limited]]);
  recordGroupAlert(h.store, ALICE.id, 'a1', 'e-a1', alert);
  await h.press(ALICE, alert, limited);
  return alert;
}

describe('✏️ Leg limited', () => {
  it('re-solves the other legs around the accepted amount, within a second of the answer, on the user\'s step', async () => {
    await h.connect();
    await h.say(ALICE, '/settings bankroll 1000');
    await h.say(ALICE, '/book pinnacle max=300 step=5');
    await h.say(ALICE, '/settings step 5');
    // 2.10 at Pinnacle (7) / 2.05 at Bwin (3)
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const alert = await h.plant(ALICE.id, 'alert', [['✏️ Leg limited', limited]]);
    recordGroupAlert(h.store, ALICE.id, 'a1', 'e-a1', alert);
    await h.press(ALICE, alert, limited);
    expect(h.last(ALICE.id).text).toContain('Which leg did the bookmaker limit');
    // a bad answer: the question stays open
    await h.say(ALICE, 'a lot');
    // #19: what was typed is quoted back
    expect(h.last(ALICE.id).text).toContain('“a lot” is not a leg and an amount. Send the leg’s number (1 to 2)');
    await h.say(ALICE, '3 150');
    expect(h.last(ALICE.id).text).toContain('“3 150” is not a leg and an amount. Send the leg’s number (1 to 2)');
    const started = performance.now();
    await h.say(ALICE, '1 150');
    const card = h.last(ALICE.id).text;
    // real time, through the fake Bot API over a socket
    expect(performance.now() - started).toBeLessThan(1000);
    // 150 × 2.10 = 315.00; Bwin on the 5-grid: 155 × 2.05 = 317.75 → worst 315 − 305 = +10.00
    expect(card).toContain('💰 Stakes for bankroll 1000 with 1) Pinnacle fixed at 150 (total 305):');
    expect(card).toContain('1) Pinnacle 150 → 315.00');
    expect(card).toContain('2) Bwin 155 → 317.75');
    expect(card).toContain('Worst case after rounding: +10.00');
    // the question is closed: a number now is no answer to it
    await h.say(ALICE, '1 100');
    expect(h.last(ALICE.id).text).not.toContain('fixed at 100');
  });

  it('a leg rejected after the others were placed: break-even odds to hedge it, then the hedge stake at the typed odds', async () => {
    const alert = await askLegLimited();
    // The alert showed 495 @ 2.10 (→ 1039.50) and 505 @ 2.05; leg 2 was refused.
    await h.say(ALICE, '2 0');
    const asked = h.last(ALICE.id).text;
    expect(asked).toContain('Leg 2 (Bwin) rejected');
    expect(asked).toContain('1) Pinnacle 495 @ 2.10');
    // break-even 1 + 495/(1039.50 − 495) = 1.90909 (= 2.10 / 1.10), rounded up to 1.91: at 1.909 the
    // hedge would be 544.53 and lose 0.03
    expect(asked).toContain('break-even odds to hedge it are <b>1.91</b>');
    await h.say(ALICE, 'abc');
    expect(h.last(ALICE.id).text).toContain('“abc” is not odds I can use. Send decimal odds above 1');
    // at 1.98: 1039.50 / 1.98 = 525.00; worst 1039.50 − 495 − 525 = +19.50 (stake-maths.md 1.6)
    await h.say(ALICE, '1.98');
    expect(h.last(ALICE.id).text).toContain('Hedge leg 2 (Bwin) at 1.98: 525.00. Worst case after the hedge: <b>+19.50</b>.');
    // below break-even it says so: 1039.50 / 1.85 = 561.89… → 561.89 (× 1.85 = 1039.4965, settled 1039.50) → −17.39
    await h.press(ALICE, alert, limited);
    await h.say(ALICE, '2 rejected');
    await h.say(ALICE, '1.85');
    expect(h.last(ALICE.id).text).toContain('Worst case after the hedge: <b>−17.39</b> (below the break-even 1.91: a loss).');
  });

  it('"<leg> profit" gives that alert\'s stakes with all the profit on the leg; /staking sets the user\'s default', async () => {
    await askLegLimited();
    await h.say(ALICE, '2 profit');
    // all profit on 2.05 at Bwin, Pinnacle breaking even: 475 × 2.10 = 997.50 ≥ 995; 520 × 2.05 = 1066.00
    const card = h.last(ALICE.id).text;
    expect(card).toContain('💰 Stakes for bankroll 1000, all profit on 2) Bwin (total 995):');
    expect(card).toContain('1) Pinnacle 475 → 997.50');
    expect(card).toContain('2) Bwin 520 → 1066.00');
    expect(card).toContain('Profit if it wins: 1) +2.50 · 2) +71.00');
    // the user's default
    await h.say(ALICE, '/staking sideways');
    expect(h.last(ALICE.id).text).toContain('Now: <b>equal profit</b>');
    expect(h.store.getUser(ALICE.id)?.stakingMode).toBe('equal');
    await h.say(ALICE, '/staking high');
    expect(h.store.getUser(ALICE.id)?.stakingMode).toBe('high');
    expect(h.last(ALICE.id).text).toContain('all profit on the highest odds');
    h.client.items = [makeItem({ id: 'a1' })];
    await h.say(ALICE, '/item a1 arbs_prematch');
    // profit on 2.10 (the highest odds): 510 / 490 → +71.00 / +4.50 (stake-maths.md 1.4)
    expect(h.last(ALICE.id).text).toContain('all profit on 1) Pinnacle (total 1000)');
    expect(h.last(ALICE.id).text).toContain('Profit if it wins: 1) +71.00 · 2) +4.50');
  });
});

describe('✏️ Leg limited: an amount no bookmaker took (newcomer #38)', () => {
  it('is answered as such, quoting it, and the question stays open', async () => {
    await askLegLimited();
    await h.say(ALICE, '1 99999999');
    let answer = h.last(ALICE.id).text;
    expect(answer).toContain('“99999999” for leg 1 (Pinnacle) is more than your bankroll (1000)');
    expect(answer).not.toContain('too small for these stakes');
    await h.say(ALICE, '1 5000000000');
    expect(h.last(ALICE.id).text).toContain('“5000000000” for leg 1 (Pinnacle) is larger than any stake (at most 1000000000)');
    // within the bankroll, but the other leg cannot cover it: 990 × 2.10 = 2079 needs 1015 at 2.05
    await h.say(ALICE, '1 990');
    answer = h.last(ALICE.id).text;
    expect(answer).toContain('With leg 1 (Pinnacle) at 990, the other legs need 1015 more to cover it, and your bankroll (1000) leaves 10.');
    expect(answer).not.toContain('not an arb for you');
    // still open: a real amount gets the card
    await h.say(ALICE, '1 150');
    expect(h.last(ALICE.id).text).toContain('with 1) Pinnacle fixed at 150');
  });
});

describe('✏️ Leg limited: one tap', () => {
  /** Alice with bankroll 1000 on a 5-grid, Pinnacle capped at 300, an alert of a1 (2.10 at Pinnacle / 2.05 at Bwin). */
  async function aliceWithAlert() {
    await h.connect();
    await h.say(ALICE, '/settings bankroll 1000');
    await h.say(ALICE, '/settings step 5');
    await h.say(ALICE, '/book pinnacle max=300 step=5');
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const alert = await h.plant(ALICE.id, 'alert', [['✏️ Leg limited', limited]]);
    recordGroupAlert(h.store, ALICE.id, 'a1', 'e-a1', alert);
    return alert;
  }

  it('offers each leg at its /books max; the press answers exactly as typing "1 300"', async () => {
    const alert = await aliceWithAlert();
    await h.press(ALICE, alert, limited);
    const question = h.last(ALICE.id);
    expect(question.text).toContain('Or tap');
    // Bwin has no max: no button for it
    expect(h.labels(question)).toEqual(['1) Pinnacle: max 300', 'All profit on 1) Pinnacle', 'All profit on 2) Bwin', 'Equal profit']);
    await h.say(ALICE, '1 300');
    const typed = h.last(ALICE.id).text;
    // 300 × 2.10 = 630.00; Bwin on the 5-grid: 305 × 2.05 = 625.25 → worst 625.25 − 605 = +20.25
    expect(typed).toContain('with 1) Pinnacle fixed at 300 (total 605)');
    expect(typed).toContain('2) Bwin 305 → 625.25');
    expect(typed).toContain('Worst case after rounding: +20.25');

    await h.press(ALICE, alert, limited);
    const again = h.last(ALICE.id);
    const started = performance.now();
    await h.press(ALICE, again, h.button(again, '1) Pinnacle: max 300'));
    // real time, through the fake Bot API over a socket
    expect(performance.now() - started).toBeLessThan(1000);
    expect(h.last(ALICE.id).text).toBe(typed);
    // the question is over: a number now answers nothing, the button neither
    await h.say(ALICE, '1 100');
    expect(h.last(ALICE.id).text).not.toContain('fixed at 100');
    // Its buttons are gone (D4); one kept elsewhere (a copy of the old question) answers nothing either.
    expect(h.labels(h.fake.messages(ALICE.id).find((m) => m.message_id === again.message_id)!)).toEqual([]);
    const copy = await h.plant(ALICE.id, 'old question', [['1) Pinnacle: max 300', h.button(again, '1) Pinnacle: max 300')]]);
    const sent = h.sent(ALICE.id).length;
    await h.press(ALICE, copy, h.button(copy, '1) Pinnacle: max 300'));
    expect(h.callbackText()).toBe('This button is no longer active.');
    expect(h.sent(ALICE.id)).toHaveLength(sent);
  });

  it('D4: the question loses its buttons at once when answered, typed or pressed, as the other prompts do', async () => {
    const alert = await aliceWithAlert();
    const now = (id: number) => h.fake.messages(ALICE.id).find((m) => m.message_id === id)!;
    await h.press(ALICE, alert, limited);
    const question = h.last(ALICE.id);
    expect(h.labels(question)).toHaveLength(4);
    await h.say(ALICE, '1 20');
    expect(h.last(ALICE.id).text).toContain('with 1) Pinnacle fixed at 20');
    expect(h.labels(now(question.message_id))).toEqual([]);
    // A bad answer keeps the question open, buttons and all.
    await h.press(ALICE, alert, limited);
    const second = h.last(ALICE.id);
    await h.say(ALICE, 'lots');
    expect(h.labels(now(second.message_id))).toHaveLength(4);
    await h.press(ALICE, second, h.button(second, 'Equal profit'));
    expect(h.labels(now(second.message_id))).toEqual([]);
  });

  it('staking by a button: all profit on a leg, or equal profit over /staking high, for this alert only', async () => {
    const alert = await aliceWithAlert();
    await h.say(ALICE, '/book pinnacle reset');
    await h.press(ALICE, alert, limited);
    const question = h.last(ALICE.id);
    expect(h.labels(question)).not.toContain('1) Pinnacle: max 300');
    await h.press(ALICE, question, h.button(question, 'All profit on 2) Bwin'));
    // the same card as "2 profit" (see above)
    const card = h.last(ALICE.id).text;
    expect(card).toContain('💰 Stakes for bankroll 1000, all profit on 2) Bwin (total 995):');
    expect(card).toContain('Profit if it wins: 1) +2.50 · 2) +71.00');
    await h.say(ALICE, '/staking high');
    await h.press(ALICE, alert, limited);
    const next = h.last(ALICE.id);
    await h.press(ALICE, next, h.button(next, 'Equal profit'));
    const equal = h.last(ALICE.id).text;
    expect(equal).not.toContain('all profit on');
    // equal profit on the 5-grid: 495 × 2.10 = 1039.50, 505 × 2.05 = 1035.25
    expect(equal).toContain('1) Pinnacle 495 → 1039.50');
    expect(equal).toContain('2) Bwin 505 → 1035.25');
    // the user's default is untouched
    expect(h.store.getUser(ALICE.id)?.stakingMode).toBe('high');
  });

  it('refuses a forged leg, an older question, a max removed since, and another user', async () => {
    const alert = await aliceWithAlert();
    await h.press(ALICE, alert, limited);
    const first = h.last(ALICE.id);
    const maxButton = h.button(first, '1) Pinnacle: max 300');
    // a newer question replaces it: the first one's buttons are stale
    await h.press(ALICE, alert, limited);
    const second = h.last(ALICE.id);
    let sent = h.sent(ALICE.id).length;
    await h.press(ALICE, first, maxButton);
    expect(h.callbackText()).toBe('This button is no longer active.');
    expect(h.sent(ALICE.id)).toHaveLength(sent);
    // the same data on a message that is not the question (a forged or planted button)
    const planted = await h.plant(ALICE.id, 'x', [['max', maxButton], ['leg 3', 'll:p:2'], ['leg 2 max', 'll:m:1']]);
    sent = h.sent(ALICE.id).length;
    await h.press(ALICE, planted, maxButton);
    expect(h.callbackText()).toBe('This button is no longer active.');
    // someone else pressing Alice's question (a forwarded or forged update) gets nothing
    await h.press(BORIS, second, maxButton);
    expect(h.sent(ALICE.id)).toHaveLength(sent);
    expect(h.sent(BORIS.id)).toHaveLength(0);
    // a forged leg on the very question (data a button there never had): refused, question open
    const forged = h.fake.pressButton(ALICE, second, h.button(second, 'Equal profit'));
    if (forged.callback_query) forged.callback_query.data = 'll:p:2';
    await h.handle(forged);
    expect(h.callbackText()).toBe('This button is no longer active.');
    expect(h.sent(ALICE.id)).toHaveLength(sent);
    // the max was removed after the question was asked (in another chat, say): the press says so
    // and changes nothing; the question stays open and typing still answers it
    h.store.updateUser(ALICE.id, (draft) => {
      delete draft.books['7'];
    });
    await h.press(ALICE, second, maxButton);
    expect(h.callbackText()).toContain('has no max in your /books settings any more');
    expect(h.sent(ALICE.id)).toHaveLength(sent);
    await h.say(ALICE, '1 150');
    expect(h.last(ALICE.id).text).toContain('fixed at 150');
  });

  it('under an alert in a group: asked in the private chat, whose buttons answer there', async () => {
    await h.connect();
    h.fake.setChat({ id: -2001, type: 'supergroup', title: 'Team', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings alerts -2001');
    await h.say(ALICE, '/settings bankroll 1000');
    await h.say(ALICE, '/settings step 5');
    await h.say(ALICE, '/book pinnacle max=300 step=5');
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const alert = await h.plant(-2001, 'alert', [['✏️ Leg limited', limited]]);
    recordGroupAlert(h.store, ALICE.id, 'a1', 'e-a1', alert);
    const groupCount = h.sent(-2001).length;
    await h.press(ALICE, alert, limited);
    expect(h.callbackText()).toBe('I asked for the amount in our private chat.');
    const question = h.last(ALICE.id);
    await h.press(ALICE, question, h.button(question, '1) Pinnacle: max 300'));
    expect(h.last(ALICE.id).text).toContain('with 1) Pinnacle fixed at 300 (total 605)');
    expect(h.sent(-2001)).toHaveLength(groupCount);
  });
});
