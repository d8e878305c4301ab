/**
 * One message per arb (issue 31 item 4; newcomer trial #9): an arb back within REVIVE_MINUTES
 * (30 by default) after its alert said "⛔ Gone" revives that message — edited back, "🔁 back
 * after 1 min 10 s", no new message — even with a better profit; the same event, market, line and
 * bookmakers under a new item id is the same arb and takes over its message; past the window it
 * is news again. Real outbox, fake Bot API, English and Russian.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opp } from '../scheduler/fixtures.js';
import { addUser } from '../scheduler/harness.js';
import { startOnceRig, type OnceRig } from './once-rig.js';

let rig: OnceRig;
beforeEach(async () => {
  rig = await startOnceRig();
  addUser(rig.store, 1, ['arbs_prematch']);
  addUser(rig.store, 2, ['arbs_prematch'], { lang: 'ru' });
});
afterEach(async () => {
  await rig.close();
});

/** Alert messages in the chat: not the loud re-alerts that reply to one when its profit rises (alerts/loudness.ts). */
const sends = (chatId: number) => rig.messages(chatId).filter((m) => m.reply_to_message_id === undefined).length;

describe('one message per arb', () => {
  it.each([
    [1, 'Gone after', '🔁 back after 1 min 10 s'],
    [2, 'пропала через', '🔁 снова здесь через 1 мин 10 с'],
  ] as const)('user %i: back 70 s after "Gone", with a better profit, revives its message', async (id, goneWord, backLine) => {
    const at = rig.clock.now();
    await rig.read(id, [opp('a', [2.1, 2.05], 3.73)]);
    expect(rig.messages(id)).toHaveLength(1);
    await rig.clock.advance(at + 40_000 - rig.clock.now());
    await rig.read(id, []);
    expect(rig.messages(id)[0]!.text).toContain(goneWord);
    await rig.clock.advance(at + 110_000 - rig.clock.now());
    // Better than before (+4.99 %): still the same message, not a new buzz.
    await rig.read(id, [opp('a', [2.15, 2.05], 4.99)]);
    const messages = rig.messages(id).filter((m) => m.reply_to_message_id === undefined);
    expect(messages).toHaveLength(1);
    expect(sends(id)).toBe(1);
    expect(messages[0]!.text).toContain(backLine);
    expect(messages[0]!.text).not.toContain(goneWord);
    expect(messages[0]!.text).toContain('2.15');
  });

  it('revives after 20 minutes too (inside REVIVE_MINUTES), and past 30 minutes it is a new alert', async () => {
    await rig.read(1, [opp('a')]);
    await rig.clock.advance(30_000);
    await rig.read(1, []);
    await rig.clock.advance(20 * 60_000);
    await rig.read(1, [opp('a')]);
    expect(sends(1)).toBe(1);
    expect(rig.messages(1)[0]!.text).toContain('🔁 back after 20 min');
    await rig.clock.advance(30_000);
    await rig.read(1, []);
    await rig.clock.advance(31 * 60_000);
    await rig.read(1, [opp('a')]);
    expect(sends(1)).toBe(2);
    expect(rig.messages(1)[1]!.text).not.toContain('🔁');
  });

  it('the same event, market, line and bookmakers under a new item id is the same arb', async () => {
    await rig.read(1, [opp('a', [2.1, 2.05], 3.73, 'arbs_prematch', 'ev1')]);
    await rig.clock.advance(30_000);
    await rig.read(1, []);
    expect(rig.messages(1)[0]!.text).toContain('Gone after');
    await rig.clock.advance(60_000);
    // The service found it again as 'b': the message of 'a' comes back, now for 'b'.
    await rig.read(1, [opp('b', [2.12, 2.05], 4.2, 'arbs_prematch', 'ev1')]);
    expect(sends(1)).toBe(1);
    const message = rig.messages(1)[0]!;
    expect(message.reply_to_message_id).toBeUndefined();
    expect(message.text).toContain('🔁 back after 1 min');
    expect(message.text).toContain('>b<');
    const entries = rig.store.alerts.entries('1:arbs_prematch');
    expect(entries.map(([itemId]) => itemId)).toEqual(['b']);
    expect(entries[0]![1].messageId).toBe(message.message_id);

    // Renamed between two reads without a gap: the message just follows it (a move, no new alert).
    await rig.clock.advance(20_000);
    await rig.read(1, [opp('c', [2.2, 2.05], 6.2, 'arbs_prematch', 'ev1')]);
    expect(sends(1)).toBe(1);
    expect(rig.messages(1)[0]!.text).toContain('2.20');
    // Another market of the same event is another arb.
    await rig.read(1, [opp('c', [2.2, 2.05], 6.2, 'arbs_prematch', 'ev1'), { ...opp('d', [2.3, 1.9], 3, 'arbs_prematch', 'ev1'), legs: opp('d', [2.3, 1.9]).legs.map((l) => ({ ...l, line: '2.5' })) }]);
    expect(sends(1)).toBe(2);
  });
});
