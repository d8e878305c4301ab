/**
 * Loud and silent alerts (issue 31, item 3) through the real notifier, the real outbox and the fake
 * Bot API over a socket: below the user's loud threshold an alert comes with `disable_notification`,
 * from it with a sound; a rise of `loud_rise` points (or across the threshold) sends a short loud
 * reply to the alert (`reply_parameters`), smaller moves stay silent edits; quiet hours send nothing
 * loud; a reply that could not go within 30 s of its read is dropped. Both languages.
 */
import { Api } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { diffRead } from '../../src/scheduler/diff.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { Store } from '../../src/store/port.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';


let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;
let telegram: FakeTelegram;
let outbox: Outbox;
let notifier: Notifier;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
  telegram = await startFakeTelegram({ clock });
  outbox = new Outbox({ api: new Api(telegram.token, { apiRoot: telegram.apiRoot }), logger: silentLogger, clock });
  outbox.start();
  notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox, logger: silentLogger, clock });
});
afterEach(async () => {
  outbox.stop();
  await telegram.close();
  await cleanup();
});

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };
const known = new Map<string, ReturnType<typeof opp>>();

/** One read of the subscription, as the scheduler applies it: its events handed to the notifier. */
function apply(items: ReturnType<typeof opp>[]): void {
  const user = store.getUser(1)!;
  const result = diffRead({ now: clock.now(), chatId: user.chatId, items, entries: store.alerts.entries(SUB.subKey), known: new Map(known) });
  for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
  for (const id of result.deletes) store.alerts.delete(SUB.subKey, id);
  known.clear();
  for (const [id, item] of result.known) known.set(id, item);
  notifier.notify(SUB, user, result.events);
}

/** Every send and edit queued delivered (the clock moving a second at a time meanwhile). */
async function delivered(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const idle = await Promise.race([notifier.idle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);
    if (idle && outbox.depth === 0) return;
    await clock.advance(1_000);
  }
  throw new Error('the outbox did not empty');
}

/** One read, then every send and edit delivered. */
async function read(items: ReturnType<typeof opp>[]): Promise<void> {
  apply(items);
  await delivered();
}

/** A two-leg arb at the same odds on both legs: 2.01 is +0.50 %, 2.07 +3.50 %, 2.10 +5.00 %. */
const arb = (id: string, odds: number) => opp(id, [odds, odds]);
const sends = () => telegram.calls('sendMessage').filter((c) => c.ok);

describe('loud and silent alerts', () => {
  for (const lang of ['en', 'ru'] as const) {
    it(`buzzes from the loud threshold, silent below; a rise or a crossing replies loudly, small moves stay silent edits (${lang})`, async () => {
      known.clear();
      addUser(store, 1, ['arbs_prematch'], { lang });
      store.updateUser(1, (u) => void (u.loud = { arbs_prematch: { from: 3, rise: 1 } }));
      await read([arb('low', 2.01), arb('high', 2.08)]);
      const [low, high] = sends();
      expect(low!.payload.text).toContain(lang === 'en' ? 'Arb +0.50%' : 'Вилка +0.50%');
      expect(low!.payload.disable_notification).toBe(true);
      expect(high!.payload.text).toContain('+4.00%');
      expect(high!.payload.disable_notification).toBeUndefined();
      const lowMessage = store.alerts.get(SUB.subKey, 'low')!.messageId!;

      // +0.50 → +1.00 %: still below 3, an edit without a sound and no new message.
      await clock.advance(15_000);
      await read([arb('low', 2.02), arb('high', 2.08)]);
      expect(sends()).toHaveLength(2);
      expect(telegram.calls('editMessageText').filter((c) => c.ok).length).toBeGreaterThan(0);

      // +1.00 → +3.50 %: across the threshold, a short loud reply to the alert.
      await clock.advance(15_000);
      await read([arb('low', 2.07), arb('high', 2.08)]);
      expect(sends()).toHaveLength(3);
      const crossed = sends()[2]!.payload;
      expect(crossed.text).toBe(
        lang === 'en' ? '⚖️ ▲ Arb now <b>+3.50%</b> (was +0.50%) · Player A — Player B' : '⚖️ ▲ Вилка теперь <b>+3.50%</b> (было +0.50%) · Player A — Player B',
      );
      expect(crossed.reply_parameters).toEqual({ message_id: lowMessage, allow_sending_without_reply: true });
      expect(crossed.disable_notification).toBeUndefined();

      // +3.50 → +4.00 %: half a point, under loud_rise (1): an edit only.
      await clock.advance(15_000);
      await read([arb('low', 2.08), arb('high', 2.08)]);
      expect(sends()).toHaveLength(3);

      // +4.00 → +5.00 %: a point and a half over the last re-alert: loud again, counted from +3.50.
      await clock.advance(15_000);
      await read([arb('low', 2.1), arb('high', 2.08)]);
      expect(sends()).toHaveLength(4);
      expect(sends()[3]!.payload.text).toContain(lang === 'en' ? '(was +3.50%)' : '(было +3.50%)');
      expect(sends()[3]!.payload.reply_parameters).toEqual({ message_id: lowMessage, allow_sending_without_reply: true });
    });
  }

  it('with no threshold every alert buzzes, and a rise of loud_rise points replies', async () => {
    known.clear();
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (u) => void (u.loud = { arbs_prematch: { from: null, rise: 2 } }));
    await read([arb('a', 2.01)]);
    expect(sends()[0]!.payload.disable_notification).toBeUndefined();
    await clock.advance(15_000);
    await read([arb('a', 2.04)]); // +2.00 %: 1.5 points up, under a rise of 2.
    expect(sends()).toHaveLength(1);
    await clock.advance(15_000);
    await read([arb('a', 2.06)]); // +3.00 %: 2.5 points up.
    expect(sends()).toHaveLength(2);
    expect(sends()[1]!.payload.text).toContain('▲ Arb now <b>+3.00%</b> (was +0.50%)');
  });

  it('drops a re-alert that could not go within 30 s of its read; the edit still shows the profit now', async () => {
    known.clear();
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (u) => void (u.loud = { arbs_prematch: { from: null, rise: 1 } }));
    await read([arb('a', 2.01)]);
    expect(sends()).toHaveLength(1);
    // The bot falls behind Telegram's pace (its outbox holds everything) just as the profit rises.
    await clock.advance(15_000);
    outbox.stop();
    await outbox.stopped();
    apply([arb('a', 2.06)]);
    expect(outbox.depth).toBe(2);
    await clock.advance(31_000);
    outbox.start();
    await delivered();
    // No "▲ Arb now +3.00%" half a minute late: the alert's own edit says it, without a buzz.
    expect(sends()).toHaveLength(1);
    const edits = telegram.calls('editMessageText').filter((c) => c.ok);
    expect(edits.at(-1)!.payload.text).toContain('+3.00%');
    expect(outbox.stats.dropped).toBe(1);
  });

  it('sends nothing loud in quiet hours: the alert is held, a rise of an alert sent earlier is an edit only', async () => {
    known.clear();
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (u) => void (u.loud = { arbs_prematch: { from: 3, rise: 1 } }));
    await read([arb('a', 2.01)]);
    expect(sends()).toHaveLength(1);
    // 10:00 UTC: quiet from 10:00 to 12:00 from now on.
    store.updateUser(1, (u) => void (u.quietHours = { from: '10:00', to: '12:00' }));
    await clock.advance(15_000);
    await read([arb('a', 2.1)]);
    expect(sends()).toHaveLength(1);
    expect(telegram.calls('editMessageText').some((c) => c.ok && String(c.payload.text).includes('+5.00%'))).toBe(true);
  });
});
