/**
 * The notifier and the user's bookmaker settings (issue 22): an alert that needs a bookmaker the
 * user marked closed is not sent; an arb whose profit after the user's commission (lay legs read
 * as lay bets) is below the filter's min_profit is not sent although the service's own figure
 * passed; a service figure that disagrees with the odds is logged once per item.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { diffRead } from '../../src/scheduler/diff.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { OutboxPort } from '../../src/outbox/port.js';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Store } from '../../src/store/port.js';
import { opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';

const DICTS: Dictionaries = {
  lang: 'en',
  bookmakers: { '7': 'Pinnacle', '21': 'Betfair Exchange' },
  liveBookmakers: [],
  sports: { '6': 'Tennis' },
  oddsGroups: {},
  oddsSections: {},
  oddsTypes: {
    '1': { titleShort: 'W1', titleFull: 'Home win', lay: false, sectionId: 1 },
    '2': { titleShort: 'W2', titleFull: 'Away win', lay: false, sectionId: 1 },
    '3': { titleShort: 'Lay W1', titleFull: 'Lay: home win', lay: true, sectionId: 1 },
  },
  reflections: {},
};

class CountingOutbox implements OutboxPort {
  sent: string[] = [];
  async send(_chatId: number, text: string): Promise<number | undefined> {
    this.sent.push(text);
    return this.sent.length;
  }
  async edit(): Promise<boolean> {
    return true;
  }
}

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };
let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;
let outbox: CountingOutbox;
let notifier: Notifier;
let logs: CapturedLogs;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
  outbox = new CountingOutbox();
  logs = captureLogs();
  notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox, logger: logs.logger, clock });
});
afterEach(async () => {
  await cleanup();
});

function read(items: Opportunity[]) {
  const user = store.getUser(1)!;
  const result = diffRead({ now: clock.now(), chatId: user.chatId, items, entries: store.alerts.entries(SUB.subKey), known: new Map() });
  for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
  notifier.notify(SUB, user, result.events);
}

/** Back 2.20 at Pinnacle, lay 2.10 on Betfair Exchange: +2.21 % before commission, +0.89 % after 5 %. */
function backLay(id: string, profit = 2.21): Opportunity {
  const base = opp(id, [2.2, 2.1], profit);
  return { ...base, legs: base.legs.map((l, i) => ({ ...l, typeId: i === 0 ? 1 : 3 })) };
}

describe('notifier and bookmaker settings', () => {
  it('sends no alert that needs a bookmaker the user marked closed', async () => {
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (u) => {
      u.books = { '21': { status: 'closed' } };
    });
    read([opp('a', [2.1, 2.05], 3.73)]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(0);
    store.updateUser(1, (u) => {
      u.books = { '21': { status: 'limited', max: 100 } };
    });
    read([opp('b', [2.1, 2.05], 3.73)]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
  });

  it('applies min_profit to the profit after commission: +0.89 % is below min_profit 1 although the service said +2.21 %', async () => {
    addUser(store, 1, ['arbs_prematch'], { filter: { minProfit: 1 } });
    read([backLay('a')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(0);
    // At the user's own 2 % the pair makes +1.69 %: alerted, "after commission".
    store.updateUser(1, (u) => {
      u.books = { '21': { commission: 2 } };
    });
    read([backLay('b')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
    expect(outbox.sent[0]).toContain('+1.69% after commission');
  });

  it('alerts an item withheld below min_profit once its odds move above it, once, and edits it after', async () => {
    addUser(store, 1, ['arbs_prematch'], { filter: { minProfit: 1 } });
    const moved = (odds: [number, number]) => ({ ...backLay('a'), legs: backLay('a').legs.map((l, i) => ({ ...l, odds: odds[i] ?? null })) });
    read([backLay('a')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(0);
    expect(store.alerts.get(SUB.subKey, 'a')?.withheld).toBe(true);
    // It moves but stays below: back 2.22 against lay 2.12 is +2.17 % before, +0.86 % after Betfair's 5 %.
    await clock.advance(20_000);
    read([moved([2.22, 2.12])]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(0);
    // Back 2.30 against lay 2.10: +2.95 % after Betfair's 5 %: alerted now.
    await clock.advance(20_000);
    read([moved([2.3, 2.1])]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
    expect(outbox.sent[0]).toContain('after commission');
    expect(store.alerts.get(SUB.subKey, 'a')?.withheld).toBeUndefined();
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBe(1);
    // The same read again, and a further move: no second alert (a move of an alerted item is an edit;
    // under a point of profit up, not even a loud re-alert).
    read([moved([2.3, 2.1])]);
    await clock.advance(20_000);
    read([moved([2.32, 2.1])]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
  });

  it('logs a service figure that disagrees with the odds once per item, and shows both', async () => {
    addUser(store, 1, ['arbs_prematch'], { filter: { minProfit: -100 } });
    read([backLay('a', 87.41)]);
    await notifier.idle();
    read([backLay('a2', 87.41)]);
    await notifier.idle();
    const warned = () => logs.records().filter((r) => String(r.msg).includes('disagrees'));
    expect(warned()).toHaveLength(2);
    expect(warned()[0]).toMatchObject({ itemId: 'a', serviceProfit: 87.41, oddsProfit: 2.21 });
    expect(outbox.sent[0]).toContain('⚠️ The service says +87.41%; these odds give +2.21% before commission.');
    // the same item again (returned): not logged again
    await clock.advance(60_000);
    read([backLay('a', 87.41)]);
    await notifier.idle();
    expect(warned()).toHaveLength(2);
  });
});
