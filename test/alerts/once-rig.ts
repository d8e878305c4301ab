/**
 * A small rig for the notifier's "one push per arb worth one" rules (issue 31 items 2 and 4): the
 * store in a temp dir, the real notifier and outbox on grammY's Api against the fake Bot API, a
 * ManualClock, and `read(items)` that runs one read's diff for a user's subscription and hands its
 * events to the notifier, as the scheduler does. Items are written by the test, so a market, an
 * id or a profit is exactly what the case needs.
 */
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import { diffRead } from '../../src/scheduler/diff.js';
import type { Notifier } from '../../src/scheduler/port.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../../src/fake-telegram/server.js';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Service } from '../../src/service/services.js';
import type { Store } from '../../src/store/port.js';
import { subscriptionKey } from '../../src/store/schema.js';
import { tempStore } from '../scheduler/harness.js';

export const RIG_DICTS: Dictionaries = {
  lang: 'en',
  bookmakers: { '7': 'Pinnacle', '21': 'Bet365', '39': 'Fonbet' },
  liveBookmakers: [],
  sports: { '1': 'Football', '6': 'Tennis' },
  oddsGroups: {},
  oddsSections: {},
  oddsTypes: {
    '1': { titleShort: 'W1', titleFull: 'Home win', lay: false, sectionId: 1 },
    '2': { titleShort: 'W2', titleFull: 'Away win', lay: false, sectionId: 1 },
    '3': { titleShort: 'X', titleFull: 'Draw', lay: false, sectionId: 1 },
  },
  reflections: {},
};

export interface OnceRig {
  clock: ManualClock;
  store: Store;
  telegram: FakeTelegram;
  outbox: Outbox;
  notifier: Notifier;
  /** One read of `userId`'s subscription to `service` with these items; then every send settled. */
  read(userId: number, items: Opportunity[], service?: Service): Promise<void>;
  /** The bot's messages in a chat. */
  messages(chatId: number): SentMessage[];
  close(): Promise<void>;
}

export async function startOnceRig(): Promise<OnceRig> {
  const clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  const { store, cleanup } = await tempStore(clock);
  const telegram = await startFakeTelegram({ clock });
  const outbox = new Outbox({ api: new Api(telegram.token, { apiRoot: telegram.apiRoot }), logger: silentLogger, clock });
  outbox.start();
  const notifier = createNotifier({ store, client: { cachedDictionaries: () => RIG_DICTS }, outbox, logger: silentLogger, clock });
  const known = new Map<string, Map<string, Opportunity>>();
  const lastRead = new Map<string, number>();
  // A send paced by the outbox waits for the clock: idle is raced with a moment of real time, then the clock moves.
  const settle = async () => {
    for (let i = 0; i < 60; i++) {
      const idle = await Promise.race([notifier.idle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30))]);
      if (idle && outbox.depth === 0) return;
      await clock.advance(1_000);
    }
    throw new Error('the outbox did not empty');
  };
  return {
    clock,
    store,
    telegram,
    outbox,
    notifier,
    async read(userId, items, service = 'arbs_prematch') {
      const subKey = subscriptionKey(userId, service);
      const user = store.getUser(userId)!;
      const previousReadAt = lastRead.get(subKey);
      const result = diffRead({
        now: clock.now(),
        chatId: user.chatId,
        items,
        entries: store.alerts.entries(subKey),
        known: known.get(subKey) ?? new Map(),
        ...(previousReadAt !== undefined ? { previousReadAt } : {}),
      });
      for (const [id, e] of result.upserts) store.alerts.set(subKey, id, e);
      for (const id of result.deletes) store.alerts.delete(subKey, id);
      known.set(subKey, result.known);
      lastRead.set(subKey, clock.now());
      notifier.notify({ userId, service, subKey }, user, result.events);
      await settle();
    },
    messages: (chatId) => telegram.messages(chatId).filter((m) => !m.deleted),
    async close() {
      outbox.stop();
      await telegram.close();
      await cleanup();
    },
  };
}
