/**
 * Never a push for what is no arb (issue 31 item 2; newcomer trial #4, #29): an arb on which no
 * stakes within the user's steps and caps give a guaranteed profit is not sent as a new alert (the
 * notifier withholds it and checks it again as its odds move); a sent alert that stops being one
 * is edited to say "Not an arb for you", silently, and back when it is one again; /item and inline
 * titles say "Not an arb for you: …", never "Arb …". In English and Russian.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InlineQueryResultArticle } from 'grammy/types';
import { opp } from '../scheduler/fixtures.js';
import { addUser } from '../scheduler/harness.js';
import { startOnceRig, type OnceRig } from './once-rig.js';
import { BORIS, createHarness, ALICE, type Harness } from '../bot/harness.js';
import { makeItem } from '../bot/fakes.js';

let rig: OnceRig;
beforeEach(async () => {
  rig = await startOnceRig();
});
afterEach(async () => {
  await rig.close();
});

/**
 * 3.00 at Pinnacle against 1.55 at Bet365: +2.20 % on paper. With Pinnacle capped at 5 and a step
 * of 5, the stakes are 5 / 5 (returns 15 and 7.75 on 10) or 5 / 10 (15 and 15.5 on 15): no stakes
 * win in every case, so for this user it is no arb.
 */
const capped = (id: string, odds: [number, number] = [3, 1.55]) => opp(id, odds, 2.2);

function cappedUser(id: number, lang: 'en' | 'ru') {
  addUser(rig.store, id, ['arbs_prematch'], { lang });
  rig.store.updateUser(id, (u) => {
    u.roundingStep = 5;
    u.books = { '7': { max: 5 } };
  });
}

describe('no push for what is no arb for the user', () => {
  it.each([
    ['en', 1, 'Not an arb for you: +2.20%', 'Arb'],
    ['ru', 2, 'Для вас не вилка: +2.20%', 'Вилка'],
  ] as const)('%s: withheld, alerted once it is an arb, then edited to "not an arb" and back, silently', async (lang, id, title, arbWord) => {
    cappedUser(id, lang);
    await rig.read(id, [capped('a')]);
    expect(rig.messages(id)).toHaveLength(0);
    expect(rig.store.alerts.get(`${id}:arbs_prematch`, 'a')?.withheld).toBe(true);

    // The odds move: 3.40 / 1.55 now has stakes 5 / 10 returning 17 and 15.5 on 15: an arb for this user.
    await rig.clock.advance(20_000);
    await rig.read(id, [capped('a', [3.4, 1.55])]);
    const sent = rig.messages(id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain(`${arbWord} +`);
    expect(sent[0]!.text).not.toContain(title.split(':')[0]!);

    // Back to 3.00: the message is edited to say so (an edit: no new message, no buzz).
    await rig.clock.advance(20_000);
    await rig.read(id, [capped('a')]);
    expect(rig.messages(id)).toHaveLength(1);
    const edited = rig.messages(id)[0]!;
    expect(edited.edited).toBe(true);
    expect(edited.text.split('\n')[0]).toContain(title.split(':')[0]!);
    expect(edited.text).toContain('🚫');
    expect(rig.telegram.calls('sendMessage')).toHaveLength(1);

    // And back again: "Arb" once more, still the one message.
    await rig.clock.advance(20_000);
    await rig.read(id, [capped('a', [3.4, 1.55])]);
    expect(rig.messages(id)).toHaveLength(1);
    expect(rig.messages(id)[0]!.text.split('\n')[0]).toContain(`${arbWord} +`);
  });

  it('a negative arb after the user commission is not pushed and never titled "Arb"', async () => {
    addUser(rig.store, 3, ['arbs_prematch']);
    // 2.10 / 2.05 is +3.73 % before commission; 10 % on the winnings at both makes it 1.99 / 1.945: −1.6 %.
    rig.store.updateUser(3, (u) => void (u.books = { '7': { commission: 10 }, '21': { commission: 10 } }));
    await rig.read(3, [opp('n', [2.1, 2.05], 3.73)]);
    expect(rig.messages(3)).toHaveLength(0);
  });
});

describe('cards and inline titles', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
    await h.connect(ALICE);
    h.client.addKey('boris-key', 'boris-secret-0123456789');
    await h.say(BORIS, '/connect boris-key boris-secret-0123456789');
    for (const u of [ALICE, BORIS]) {
      h.store.updateUser(u.id, (rec) => {
        rec.roundingStep = 5;
        rec.books = { '7': { max: 5 } };
      });
    }
  });
  afterEach(async () => {
    await h.close();
  });

  it.each([
    [ALICE, 'Not an arb for you: +', '⚖️ Arb'],
    [BORIS, 'Для вас не вилка: +', '⚖️ Вилка'],
  ] as const)('%#: /item and inline say "not an arb for you"', async (user, title, arbTitle) => {
    // Pinnacle 3.00 against Bwin 1.55 (the fixture's two legs), capped at 5 with a step of 5.
    const item = makeItem({ id: 'c1', profit: 2.2 });
    item.legs = item.legs.map((l, i) => ({ ...l, odds: i === 0 ? 3 : 1.55 }));
    h.client.items = [item];
    await h.say(user, '/item c1 arbs_prematch');
    const card = h.last(user.id).text;
    expect(card).toContain(title);
    expect(card).not.toContain(arbTitle);
    h.scheduler.latest.set(user.id, [item]);
    await h.handle(h.fake.inlineQuery(user, ''));
    const results = h.fake.answers.inline.at(-1)?.results as unknown as InlineQueryResultArticle[];
    expect(results[0]?.title).toContain(title);
  });
});
