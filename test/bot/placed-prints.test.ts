/**
 * ✅ Placed and ✏️ Placed differently record what THAT message printed (issue 30, items 1 and 6;
 * newcomer defects #3, #5, #26, #36): real alerts from the notifier through the outbox to the
 * fake Bot API in every state (new, moved, gone, back again, "not an arb for you"), /item cards,
 * inline cards, a restart between send and press, the week's expiry on the clock, position
 * numbers without gaps, one position per message unless "➕ Record another" is pressed, and the
 * ✏️ flow re-solving the later legs around a leg taken at other odds.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { Api } from 'grammy';
import { createNotifier } from '../../src/alerts/notifier.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { silentLogger } from '../../src/logger.js';
import { PRINT_TTL_MS } from '../../src/ledger/prints.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { subscriptionKey, type AlertEntry } from '../../src/store/schema.js';
import type { SentMessage } from '../../src/fake-telegram/server.js';
import { redisStoreSuite } from '../store/redis-fixtures.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, createHarness, type Harness } from './harness.js';

const { redis, stores } = await redisStoreSuite('placed-prints');

let h: Harness;
let notifier: Notifier;
/** The alerts' outbox (the bot's own replies go straight to the fake Bot API, so no reply waits for a chat's turn on the manual clock). */
let outbox: Outbox;
const SUB = { userId: ALICE.id, service: 'arbs_prematch' as const, subKey: subscriptionKey(ALICE.id, 'arbs_prematch') };

/** The harness with its alerts' outbox and notifier; `opts` as for createHarness (another store). */
async function setUp(opts: Parameters<typeof createHarness>[0] = {}): Promise<void> {
  h = await createHarness(opts);
  outbox = new Outbox({ api: new Api(h.fake.token, { apiRoot: h.fake.apiRoot }), logger: silentLogger, clock: h.clock });
  outbox.start();
  await h.connect();
  h.store.updateUser(ALICE.id, (u) => {
    u.bankroll = 1000;
    u.roundingStep = 5;
  });
  notifier = createNotifier({ store: h.store, client: h.client, outbox, logger: silentLogger, clock: h.clock });
}
beforeEach(async (ctx) => {
  if (!ctx.task.name.includes('(Redis)')) await setUp();
});
afterEach(async () => {
  outbox.stop();
  await h.close();
});

/** The item with leg 1 at other odds. */
const movedTo = (item: Opportunity, odds: number): Opportunity => ({ ...item, legs: item.legs.map((l, i) => (i === 0 ? { ...l, prevOdds: l.odds, odds } : l)) });

/** The alert message of `item` as the fake Bot API holds it now. */
async function alertMessage(itemId: string, until: (m: SentMessage) => boolean = () => true): Promise<SentMessage> {
  let found: SentMessage | undefined;
  await vi.waitFor(async () => {
    const entry = h.store.alerts.get(SUB.subKey, itemId);
    found = h.sent(entry?.chatId ?? ALICE.id).find((m) => m.message_id === entry?.messageId);
    // An edit may wait for the chat's turn behind a send (a loud reply to a rise): time moves on.
    if (!(found && until(found))) await h.clock.advance(1_000);
    expect(found && until(found)).toBe(true);
  });
  return found!;
}

/** Sends the alert of `item` as the scheduler would (a first sighting), and waits for it. */
async function alert(item: Opportunity, chatId = ALICE.id): Promise<SentMessage> {
  const now = h.clock.now();
  const entry: AlertEntry = { eventId: item.event.id, chatId, messageId: null, firstSeenAt: now, lastSeenAt: now, goneAt: null, profit: item.profit, odds: item.legs.map((l) => l.odds), lastEditAt: now, goneShown: false };
  h.store.alerts.set(SUB.subKey, item.id, entry);
  h.scheduler.latest.set(ALICE.id, [item]);
  notifier.notify(SUB, h.store.getUser(ALICE.id)!, [{ type: 'new', itemId: item.id, item, entry, returned: false }]);
  return alertMessage(item.id);
}

/** An edit of the alert: moved, gone or back, as the diff hands it to the notifier. */
async function edit(item: Opportunity, event: 'moved' | 'gone' | 'returned', prev: Opportunity, until: (m: SentMessage) => boolean): Promise<SentMessage> {
  await h.clock.advance(60_000);
  const entry = h.store.alerts.get(SUB.subKey, item.id)!;
  const user = h.store.getUser(ALICE.id)!;
  if (event === 'moved') notifier.notify(SUB, user, [{ type: 'moved', itemId: item.id, item, prev, entry }]);
  if (event === 'returned') notifier.notify(SUB, user, [{ type: 'returned', itemId: item.id, item, entry, awayMs: 70_000 }]);
  if (event === 'gone') {
    h.scheduler.latest.set(ALICE.id, []);
    notifier.notify(SUB, user, [{ type: 'gone', itemId: item.id, last: prev, entry, livedMs: 30_000 }]);
  } else h.scheduler.latest.set(ALICE.id, [item]);
  return alertMessage(item.id, until);
}

/**
 * An alert that stopped being an arb for the user after it was sent: such an arb is never pushed as
 * a new alert (issue 31 item 2), but a sent one is edited to say so. Sent as an arb, then 20 %
 * commission at leg 1's bookmaker (1 + 1.1 × 0.8 = 1.88 against 2.05) and the next edit.
 */
async function notAnArbAnyMore(): Promise<SentMessage> {
  const item = makeItem({ id: 'a1' });
  await alert(item);
  h.store.updateUser(ALICE.id, (u) => {
    u.books = { '7': { commission: 20 } };
  });
  return edit(item, 'moved', item, (m) => m.text.includes('not an arb for you'));
}

/** The stakes the message prints, leg by leg ("1) Pinnacle 495 → 1039.50"). */
function printedStakes(m: SentMessage): number[] {
  return [...m.text.matchAll(/^\d\) .+? (\d+(?:\.\d+)?) → /gm)].map((x) => Number(x[1]));
}

const legsOf = async (n = 0) => (await h.store.ledger.book(ALICE.id)).positions[n]?.legs.map((l) => [l.odds, l.stake]);
const positions = async () => (await h.store.ledger.book(ALICE.id)).positions;

describe('✅ Placed on every state of an alert message', () => {
  it('new: records the printed legs and stakes, and writes ✅ and the number into the message', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect(h.callbackText()).toBe('✅ Recorded as position #1. Settle it in /open when the event is over.');
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
    const marked = await alertMessage('a1', (x) => x.text.includes('✅ Placed 495 / 505'));
    expect(marked.text).toContain('· #1');
  });

  it('moved: records the odds and stakes of the edited version, not the first one', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const moved = movedTo(item, 2.3);
    const m = await edit(moved, 'moved', item, (x) => x.text.includes('2.30'));
    const stakes = printedStakes(m);
    expect(stakes).toHaveLength(2);
    expect(stakes).not.toEqual([495, 505]);
    // The item moves on before the next edit reaches the message: the press is about what the message shows.
    h.scheduler.latest.set(ALICE.id, [movedTo(item, 2.6)]);
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.3, stakes[0]], [2.05, stakes[1]]]);
  });

  it('gone: both buttons stay, and ✅ records the last version printed although the item is gone from the latest read', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const gone = await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    expect(h.labels(gone)).toEqual(expect.arrayContaining(['✅ Placed', '✏️ Placed differently']));
    await h.press(ALICE, gone, h.button(gone, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
    const marked = h.sent(ALICE.id).find((x) => x.message_id === gone.message_id)!;
    expect(h.labels(marked)).toContain('✅ Placed · #1');
  });

  it('gone: ✏️ asks leg by leg from the printed legs', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const gone = await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    await h.press(ALICE, gone, h.button(gone, '✏️ Placed differently'));
    expect(h.last(ALICE.id).text).toContain('leg 1 of 2');
    await h.say(ALICE, '2.08 495');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '✅'));
    expect((await legsOf())![0]).toEqual([2.08, 495]);
  });

  it('back again: the returned alert is placeable, with what it prints', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    const back = await edit(item, 'returned', item, (x) => !x.text.includes('Gone'));
    h.scheduler.latest.set(ALICE.id, [movedTo(item, 2.6)]);
    await h.press(ALICE, back, h.button(back, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
  });

  it('"not an arb for you": ✅ records the printed odds with the stakes the user sends', async () => {
    const m = await notAnArbAnyMore();
    expect(m.text).toContain('not an arb for you');
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect(h.last(ALICE.id).text).toContain('showed no stake');
    await h.say(ALICE, '300');
    await h.say(ALICE, '2.07 290');
    const [p] = await positions();
    expect(p!.legs.map((l) => [l.odds, l.stake, l.commission])).toEqual([[2.1, 300, 0.2], [2.07, 290, 0]]);
  });

  it('"not an arb for you": ✏️ records what the user types; bad input is quoted and changes nothing', async () => {
    const m = await notAnArbAnyMore();
    await h.press(ALICE, m, h.button(m, '✏️ Placed differently'));
    await h.say(ALICE, 'lots');
    expect(h.last(ALICE.id).text).toContain('“lots” is not a stake');
    await h.say(ALICE, '2.15 250');
    await h.say(ALICE, '240');
    expect(await legsOf()).toEqual([[2.15, 250], [2.05, 240]]);
  });
});

/** After a ✏️ press: each leg kept as the message showed it ("✅ As shown"); the legs recorded. */
async function keepEveryLeg(): Promise<number[][] | undefined> {
  for (const n of [1, 2]) {
    const prompt = h.last(ALICE.id);
    expect(prompt.text).toContain(`leg ${n} of 2`);
    await h.press(ALICE, prompt, h.button(prompt, 'As shown'));
  }
  return legsOf();
}

describe('✏️ Placed differently on every state', () => {
  it('moved: asks from the edited version', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const m = await edit(movedTo(item, 2.3), 'moved', item, (x) => x.text.includes('2.30'));
    h.scheduler.latest.set(ALICE.id, [movedTo(item, 2.6)]);
    await h.press(ALICE, m, h.button(m, '✏️ Placed differently'));
    const stakes = printedStakes(m);
    expect(await keepEveryLeg()).toEqual([[2.3, stakes[0]], [2.05, stakes[1]]]);
  });

  it('back again, /item card and inline card: ask from what each printed, the item gone meanwhile', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    const back = await edit(item, 'returned', item, (x) => !x.text.includes('Gone'));
    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✏️ Placed differently'))!;
    await h.handle(h.fake.inlineQuery(ALICE, 'a1'));
    const answer = h.fake.calls('answerInlineQuery').at(-1)!.payload as { results: { reply_markup?: InlineKeyboardMarkup }[] };
    const inline = (answer.results[0]!.reply_markup!.inline_keyboard.flat()[1] as { callback_data: string }).callback_data;
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, back, h.button(back, '✏️ Placed differently'));
    expect(await keepEveryLeg()).toEqual([[2.1, 495], [2.05, 505]]);
    await h.press(ALICE, card, h.button(card, '✏️ Placed differently'));
    await keepEveryLeg();
    await h.handle(h.fake.pressInlineButton(ALICE, 'inline-2', inline));
    await keepEveryLeg();
    expect((await positions()).map((p) => [p.id, p.legs.map((l) => l.stake)])).toEqual([
      ['1', [495, 505]],
      ['2', [495, 505]],
      ['3', [495, 505]],
    ]);
  });
});

describe('an alert in a group', () => {
  it("records for its owner; another member's tap finds nothing of theirs and records nothing", async () => {
    const GROUP = -100_556;
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id] });
    h.store.updateUser(ALICE.id, (u) => void (u.alertChatId = GROUP));
    await h.connect(BORIS);
    const m = await alert(makeItem({ id: 'a1' }), GROUP);
    await h.press(BORIS, m, h.button(m, '✅ Placed'));
    expect(h.callbackText()).toContain('другого пользователя');
    expect((await h.store.ledger.book(BORIS.id)).positions).toEqual([]);
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
  });
});

describe('cards', () => {
  it('/item card: ✅ records the card after the item left the latest read', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✅ Placed'))!;
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, card, h.button(card, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
    expect(h.labels(h.sent(ALICE.id).find((m) => m.message_id === card.message_id)!)).toContain('✅ Placed · #1');
  });

  it('inline card: carries ✅ / ✏️, and a press from wherever it was sent records it for its owner only', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    await h.handle(h.fake.inlineQuery(ALICE, 'a1'));
    const answer = h.fake.calls('answerInlineQuery').at(-1)!.payload as { results: { reply_markup?: InlineKeyboardMarkup }[] };
    const buttons = answer.results[0]!.reply_markup!.inline_keyboard.flat();
    expect(buttons.map((b) => b.text)).toEqual(['✅ Placed', '✏️ Placed differently']);
    const data = (buttons[0] as { callback_data: string }).callback_data;
    h.scheduler.latest.set(ALICE.id, []);
    await h.connect(BORIS);
    await h.handle(h.fake.pressInlineButton(BORIS, 'inline-1', data));
    expect((await h.store.ledger.book(BORIS.id)).positions).toEqual([]);
    await h.handle(h.fake.pressInlineButton(ALICE, 'inline-1', data));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
    await h.handle(h.fake.pressInlineButton(ALICE, 'inline-1', data));
    expect(h.callbackText()).toBe('Already recorded as position #1: see /open.');
  });
});

describe('digest lines', () => {
  it('an alert folded into a digest keeps ✅ / ✏️ there, numbered like its line, recording what that alert printed', async () => {
    const items = Array.from({ length: 8 }, (_, i) => makeItem({ id: `d${i}`, team1: `Team${i}`, startsAt: Date.UTC(2026, 0, 3, 12 + i) }));
    const now = h.clock.now();
    const user = h.store.getUser(ALICE.id)!;
    const events = items.map((item) => {
      const entry: AlertEntry = { eventId: item.event.id, chatId: ALICE.id, messageId: null, firstSeenAt: now, lastSeenAt: now, goneAt: null, profit: item.profit, odds: item.legs.map((l) => l.odds), lastEditAt: now, goneShown: false };
      h.store.alerts.set(SUB.subKey, item.id, entry);
      return { type: 'new' as const, itemId: item.id, item, entry, returned: false };
    });
    notifier.notify(SUB, user, events);
    let digest: SentMessage | undefined;
    await vi.waitFor(async () => {
      await h.clock.advance(2_000);
      digest = h.sent(ALICE.id).find((m) => m.text.includes('more:'));
      expect(digest).toBeDefined();
    });
    const second = /^2\. .*?(Team\d)/m.exec(digest!.text)![1]!;
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, digest!, h.button(digest!, '2. ✅ Placed'));
    const [p] = await positions();
    expect(p!.event).toContain(second);
    expect(p!.legs.map((l) => [l.odds, l.stake])).toEqual([[2.1, 495], [2.05, 505]]);
    const marked = h.sent(ALICE.id).find((m) => m.message_id === digest!.message_id)!;
    expect(h.labels(marked)).toContain('✅ Placed · #1');
    // ✏️ on another line asks from what that line's alert printed.
    await h.press(ALICE, marked, h.button(marked, '3. ✏️'));
    expect(await keepEveryLeg()).toBeDefined();
    const third = /^3\. .*?(Team\d)/m.exec(digest!.text)![1]!;
    expect((await positions())[1]!.event).toContain(third);
  });
});

describe('kept through restarts, for a week', () => {
  it('a restart between the send and the press changes nothing', async () => {
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const gone = await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    await h.store.flush();
    await h.restart();
    h.scheduler.latest.set(ALICE.id, []);
    await h.press(ALICE, gone, h.button(gone, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
  });

  it('7 days after its last send the message can no longer record, says so, and the store holds nothing of it', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.clock.advance(PRINT_TTL_MS - 60_000);
    const fresh = await alert(makeItem({ id: 'a2' }));
    await h.clock.advance(2 * 60_000);
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect(h.callbackText()).toContain('7 days');
    expect(await positions()).toEqual([]);
    // Another send sweeps it out of the file (a sweep runs at most once a minute, on a put).
    await h.clock.advance(60_000);
    await alert(makeItem({ id: 'a3' }));
    const files = await h.dataFiles();
    expect(files).not.toContain('"itemId":"a1"');
    expect(files).toContain('"itemId":"a2"');
    // A press within the week still records, with the next number (#1: the refused press took none).
    await h.press(ALICE, fresh, h.button(fresh, '✅ Placed'));
    expect((await positions()).map((p) => p.id)).toEqual(['1']);
  });
});

describe('position numbers and one position per message', () => {
  it('a refused attempt takes no number (#26)', async () => {
    h.store.updateUser(ALICE.id, (u) => {
      u.books = { '7': { commission: 20 } };
    });
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    // The older button form (an alert sent before prints were kept) on a "not an arb for you" item: refused.
    const old = encodeAlertAction({ type: 'placed', service: 'arbs_prematch', itemId: 'a1' })!;
    const planted = await h.plant(ALICE.id, 'alert', [['✅ Placed', old]]);
    await h.press(ALICE, planted, old);
    expect(h.callbackText()).toContain('I cannot record this alert');
    await h.press(ALICE, planted, old);
    h.store.updateUser(ALICE.id, (u) => {
      u.books = {};
    });
    const m = await alert(makeItem({ id: 'a2' }));
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    expect((await positions()).map((p) => p.id)).toEqual(['1']);
  });

  it('a second ✅ on one message records nothing and offers ➕ Record another, which records a second position', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    const marked = await alertMessage('a1', (x) => x.text.includes('#1'));
    await h.press(ALICE, marked, h.button(marked, '✅ Placed'));
    expect(h.callbackText()).toBe('Already recorded as position #1: see /open.');
    expect(await positions()).toHaveLength(1);
    const offer = h.last(ALICE.id);
    expect(offer.text).toContain('already recorded as position #1');
    await h.press(ALICE, offer, h.button(offer, 'Record another'));
    const all = await positions();
    expect(all.map((p) => [p.id, p.messageId])).toEqual([
      ['1', m.message_id],
      ['2', m.message_id],
    ]);
    await h.press(ALICE, marked, h.button(marked, '✅ Placed'));
    expect(h.callbackText()).toBe('Already recorded as position #2: see /open.');
    expect(await positions()).toHaveLength(2);
  });

  it('settling the position does not make the message placeable again (the ledger cannot be grown by Placed → void → Placed)', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.press(ALICE, m, h.button(m, '✅ Placed'));
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    await h.press(ALICE, list, h.button(list, 'Void'));
    const again = h.sent(ALICE.id).find((x) => x.message_id === m.message_id)!;
    await h.press(ALICE, again, h.button(again, '✅ Placed'));
    expect(h.callbackText()).toBe('Already recorded as position #1: see /open.');
    expect(await positions()).toHaveLength(1);
  });
});

describe('✏️ Placed differently re-solves (#36)', () => {
  it('offers the later leg re-solved around a leg taken at other odds, and records what the user confirms', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.press(ALICE, m, h.button(m, '✏️ Placed differently'));
    await h.say(ALICE, '2.00 495');
    // Leg 1 returns 990; leg 2 at 2.05 on steps of 5: 485 → 994.25 gives +10.00 at worst (480: +9.00, 490: +5.00).
    const prompt = h.last(ALICE.id);
    expect(prompt.text).toContain('Re-solved');
    expect(prompt.text).toContain('stake <b>485</b> (the message showed 505)');
    await h.press(ALICE, prompt, h.button(prompt, 'as re-solved'));
    expect(await legsOf()).toEqual([[2, 495], [2.05, 485]]);
  });

  it('a leg the user then types overrides the re-solved suggestion', async () => {
    const m = await alert(makeItem({ id: 'a1' }));
    await h.press(ALICE, m, h.button(m, '✏️ Placed differently'));
    await h.say(ALICE, '2.00 495');
    expect(h.last(ALICE.id).text).toContain('Re-solved');
    await h.say(ALICE, '2.05 470');
    expect(await legsOf()).toEqual([[2, 495], [2.05, 470]]);
  });

  it('abandoned half-way (a command that ends flows, /item): the alert keeps its own stakes, the ✅ line what is recorded, and the user is told', async () => {
    const item = makeItem({ id: 'a1' });
    const m = await alert(item);
    expect(printedStakes(m)).toEqual([495, 505]);
    await h.press(ALICE, m, h.button(m, '✏️ Placed differently'));
    await h.say(ALICE, '2.00 480');
    const resolved = h.last(ALICE.id).text;
    expect(resolved).toContain('Re-solved');
    await h.say(ALICE, '/item a1');
    // Leg 2 was never answered: it stays as shown (505 at 2.05), not the re-solved stake only offered.
    expect(await legsOf()).toEqual([[2, 480], [2.05, 505]]);
    expect(h.sent(ALICE.id).some((x) => x.text.includes('Position #1 was left at leg 2') && x.text.includes('480 / 505 · worst case −25.00'))).toBe(true);
    // The question is closed: a later "2.05 470" answers nothing.
    await h.say(ALICE, '2.05 470');
    expect(await legsOf()).toEqual([[2, 480], [2.05, 505]]);
    // The next edit prints the stakes for the bankroll at the new odds (2.12: 490 / 505), never the flow's.
    const moved = await edit(movedTo(item, 2.12), 'moved', item, (x) => x.text.includes('2.12'));
    expect(printedStakes(moved)).toEqual([490, 505]);
    expect(moved.text).toContain('✅ Placed 480 / 505 · worst case −25.00 · #1');
  });
});

describe.skipIf(!redis.available)('on the cluster\'s store', () => {
  it('(Redis) a gone alert printed by one process is recorded after a restart, and not after its week', async () => {
    const prefix = stores.freshPrefix();
    await setUp({ openStore: (clock) => stores.open({ prefix, clock }) });
    const item = makeItem({ id: 'a1' });
    await alert(item);
    const gone = await edit(item, 'gone', item, (x) => x.text.includes('Gone'));
    await h.store.flush();
    await h.restart();
    notifier = createNotifier({ store: h.store, client: h.client, outbox, logger: silentLogger, clock: h.clock });
    await h.press(ALICE, gone, h.button(gone, '✅ Placed'));
    expect(await legsOf()).toEqual([[2.1, 495], [2.05, 505]]);
    const late = await alert(makeItem({ id: 'a2' }));
    await h.store.flush();
    await h.clock.advance(PRINT_TTL_MS + 1);
    await h.press(ALICE, late, h.button(late, '✅ Placed'));
    expect(h.callbackText()).toContain('7 days');
    expect((await positions()).map((p) => p.id)).toEqual(['1']);
  });
});
