/**
 * The store seam's behaviour, as one suite every implementation runs: the embedded store
 * (test/store/store.test.ts) and the Redis store (test/store/redis-store.test.ts). These tests
 * were the embedded store's own; what they check of the storage itself (the file's contents, how
 * many writes reached the disk) goes through the hooks of `StoreUnderTest`.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { StoreError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/port.js';
import { subscriptionKey, type UserRecord } from '../../src/store/schema.js';
import { entry } from './fixtures.js';

/** One implementation, as the contract drives it. */
export interface StoreUnderTest {
  /** Opens a fresh, empty store with data of its own. */
  open(opts?: { clock?: ManualClock; debounceMs?: number }): Promise<Store>;
  /** Opens the data `store` wrote again, as a restart would (close `store` first). */
  reopen(store: Store): Promise<Store>;
  /** What reached the storage (after close): user ids and subscriptions with alert state, sorted. */
  persisted(store: Store): Promise<{ users: string[]; alertSubs: string[] }>;
  /** Writes that reached the storage since open, where the store counts them (the file store). */
  writeCount?: (store: Store) => number;
  /** Whether a `__proto__` item id comes back after a reload (the file store forgets it: zod's record parsing drops it). */
  protoIdSurvivesReload: boolean;
}

export function expectStoreError(fn: () => unknown, code: StoreError['code']): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).code).toBe(code);
    return e as StoreError;
  }
  throw new Error(`expected StoreError ${code}`);
}

/** The contract's tests for `sut` (call inside a describe that closes the stores it opened). */
export function storeContract(sut: StoreUnderTest): void {
  describe('store: round trip', () => {
    it('keeps users and alert state across close and open, with schema defaults filled', async () => {
      const clock = new ManualClock();
      const a = await sut.open({ clock });
      const created = a.updateUser(
        7,
        (u) => {
          u.timeZone = 'Europe/Moscow';
          u.bankroll = 250;
          u.quietHours = { from: '23:00', to: '07:30' };
          u.key = { accessKey: 'ak-7', secretEnc: 'v1:blob', connectedAt: 5 };
          u.filters.arbs_live = {
            settings: {
              sports: [1, 2],
              bookmakers: [],
              minProfit: 1,
              maxProfit: null,
              minOdds: null,
              maxOdds: null,
              hoursToStart: null,
              minOvervalue: null,
              // Market groups left out and a minimum per sport survive a close and open (issue 31 item 5).
              marketsOff: ['odd_even', 'corners'],
              minProfitBySport: { '6': 2.5 },
            },
            paused: false,
            pausedReason: null,
            savedAt: 9,
          };
        },
        { chatId: 7007, lang: 'ru' },
      );
      expect(created).toMatchObject({ id: 7, chatId: 7007, lang: 'ru', roundingStep: 1, createdAt: clock.now(), blocked: false });
      a.updateUser(8, () => undefined, { chatId: 8008 });
      a.alerts.set(subscriptionKey(7, 'arbs_live'), 'item-1', entry());
      // The arb's signature (one message per arb, issue 31 item 4) survives too.
      a.alerts.set(subscriptionKey(7, 'arbs_live'), 'item-2', entry({ goneAt: 3_000, messageId: null, sig: 'arbs_live|ev-1|s0/1//7,s1/2//21' }));
      await a.close();

      const b = await sut.reopen(a);
      expect(b.loadReport).toEqual({});
      expect(b.getUser(7)).toEqual(created);
      expect(b.getUser(8)).toMatchObject({ chatId: 8008, lang: 'en', bankroll: 100, key: null });
      expect(b.listUsers().map((u) => u.id)).toEqual([7, 8]);
      expect(b.alerts.entries('7:arbs_live')).toEqual([
        ['item-1', entry()],
        ['item-2', entry({ goneAt: 3_000, messageId: null, sig: 'arbs_live|ev-1|s0/1//7,s1/2//21' })],
      ]);
      expect(b.alerts.size()).toBe(2);
      expect(b.findUserByAccessKey('ak-7')?.id).toBe(7);
    });
  });

  describe('store: drafts and the service ranking', () => {
    it('keeps a draft filter and the user\'s order of services across close and open; an older record has neither', async () => {
      const a = await sut.open();
      a.updateUser(10, () => undefined, { chatId: 1010 });
      expect(a.getUser(10)).toMatchObject({ drafts: {}, serviceRank: [] });
      const settings = { sports: [1], bookmakers: [], minProfit: 0, maxProfit: null, minOdds: 1.5, maxOdds: 4, hoursToStart: null, minOvervalue: 3, marketsOff: [], minProfitBySport: {} };
      a.updateUser(10, (u) => {
        u.drafts.valuebets_prematch = { settings, createdAt: 42 };
        u.serviceRank = ['valuebets_prematch', 'arbs_live'];
      });
      expectStoreError(
        () =>
          a.updateUser(10, (u) => {
            u.serviceRank = ['arbs_live', 'arbs_live', 'arbs_live', 'arbs_live', 'arbs_live', 'arbs_live', 'arbs_live'];
          }),
        'invalid-user',
      );
      await a.close();
      const b = await sut.reopen(a);
      expect(b.getUser(10)?.drafts).toEqual({ valuebets_prematch: { settings, createdAt: 42 } });
      expect(b.getUser(10)?.serviceRank).toEqual(['valuebets_prematch', 'arbs_live']);
    });
  });

  describe('store: bookmaker settings', () => {
    it('keeps a user\'s bookmaker settings across close and open, and refuses settings the schema refuses', async () => {
      const a = await sut.open();
      const saved = a.updateUser(
        9,
        (u) => {
          u.books = { '31': { commission: 2 }, '7': { max: 300, step: 5, status: 'limited' } };
        },
        { chatId: 9009 },
      );
      expectStoreError(
        () =>
          a.updateUser(9, (u) => {
            u.books = { ...u.books, '40': { commission: 90 } };
          }),
        'invalid-user',
      );
      await a.close();
      const b = await sut.reopen(a);
      expect(b.getUser(9)?.books).toEqual({ '31': { commission: 2 }, '7': { max: 300, step: 5, status: 'limited' } });
      expect(b.getUser(9)?.bankroll).toBe(saved.bankroll);
    });
  });

  describe('store: how alerts sound', () => {
    it('keeps the loud threshold, the loud rise, the stale-leg limits and mode, and an alert\'s loud base across close and open', async () => {
      const a = await sut.open();
      a.updateUser(
        9,
        (u) => {
          u.loud = { arbs_live: { from: 3, rise: 1.5 }, arbs_prematch: { from: null, rise: 1 } };
          u.staleLegSeconds = { live: 90, prematch: 600 };
          u.staleMode = 'drop';
        },
        { chatId: 9009 },
      );
      a.alerts.set('9:arbs_live', 'x', { ...entry(), loudBase: 2.05 });
      await a.close();
      const b = await sut.reopen(a);
      expect(b.getUser(9)).toMatchObject({
        loud: { arbs_live: { from: 3, rise: 1.5 }, arbs_prematch: { from: null, rise: 1 } },
        staleLegSeconds: { live: 90, prematch: 600 },
        staleMode: 'drop',
      });
      expect(b.alerts.get('9:arbs_live', 'x')?.loudBase).toBe(2.05);
      // A user written before these settings: every alert buzzes, stale live alerts come silently.
      const fresh = b.updateUser(10, () => {}, { chatId: 10010 });
      expect(fresh).toMatchObject({ loud: {}, staleLegSeconds: {}, staleMode: 'quiet' });
    });
  });

  describe('store: closed', () => {
    it('refuses changes after close instead of losing them', async () => {
      const store = await sut.open();
      store.updateUser(1, () => undefined, { chatId: 1 });
      await store.close();
      await store.close();
      expectStoreError(() => store.updateUser(1, (u) => void (u.bankroll = 9)), 'closed');
      expectStoreError(() => store.alerts.set('1:arbs_live', 'x', entry()), 'closed');
      expectStoreError(() => store.deleteUser(1), 'closed');
      expect(store.getUser(1)?.bankroll).toBe(100);
    });
  });

  describe('store: users', () => {
    it('needs init to create a user', async () => {
      const store = await sut.open();
      expectStoreError(() => store.updateUser(1, () => undefined), 'unknown-user');
      expect(store.getUser(1)).toBeUndefined();
    });

    it('rejects a mutation that breaks the schema and changes nothing', async () => {
      const store = await sut.open({ debounceMs: 60_000 });
      store.updateUser(1, (u) => void (u.bankroll = 50), { chatId: 1 });
      await store.flush();
      const err = expectStoreError(
        () =>
          store.updateUser(1, (u) => {
            u.bankroll = -5;
            u.quietHours = { from: '25:00', to: '07:00' };
          }),
        'invalid-user',
      );
      expect(err.message).toMatch(/bankroll/);
      expect(err.message).toMatch(/quietHours\.from/);
      expectStoreError(() => store.updateUser(1, (u) => void (u.id = 2)), 'invalid-user');
      expect(store.getUser(1)?.bankroll).toBe(50);
      await store.flush();
      if (sut.writeCount) expect(sut.writeCount(store)).toBe(1);
    });

    it('rejects an async mutation, whose later changes would be lost', async () => {
      const store = await sut.open();
      store.updateUser(1, () => undefined, { chatId: 1 });
      expectStoreError(() => store.updateUser(1, async (u) => void (u.bankroll = 9)), 'invalid-user');
      expect(store.getUser(1)?.bankroll).toBe(100);
    });

    it('keeps a thrown mutation from changing anything', async () => {
      const store = await sut.open();
      store.updateUser(1, () => undefined, { chatId: 1 });
      expect(() =>
        store.updateUser(1, (u) => {
          u.bankroll = 7;
          throw new Error('changed my mind');
        }),
      ).toThrow('changed my mind');
      expect(store.getUser(1)?.bankroll).toBe(100);
    });

    it('hands out frozen records, so a stray assignment throws instead of skipping the write', async () => {
      const store = await sut.open();
      store.updateUser(1, (u) => void (u.key = { accessKey: 'a', secretEnc: 'v1:x', connectedAt: 1 }), { chatId: 1 });
      const user = store.getUser(1) as UserRecord;
      expect(() => {
        user.bankroll = 1;
      }).toThrow(TypeError);
      expect(() => {
        (user.key as { accessKey: string }).accessKey = 'b';
      }).toThrow(TypeError);
      expect(() => (store.listUsers() as UserRecord[]).push(user)).toThrow(TypeError);
      expect(store.findUserByAccessKey('a')?.id).toBe(1);
    });

    it('finds users by access key and follows key changes', async () => {
      const store = await sut.open();
      const key = (accessKey: string) => ({ accessKey, secretEnc: 'v1:x', connectedAt: 1 });
      store.updateUser(1, (u) => void (u.key = key('ak-1')), { chatId: 1 });
      store.updateUser(2, (u) => void (u.key = key('ak-2')), { chatId: 2 });
      expect(store.findUserByAccessKey('ak-1')?.id).toBe(1);
      expect(store.findUserByAccessKey('ak-2')?.id).toBe(2);
      expect(store.findUserByAccessKey('ak-3')).toBeUndefined();

      store.updateUser(1, (u) => void (u.key = key('ak-3')));
      expect(store.findUserByAccessKey('ak-1')).toBeUndefined();
      expect(store.findUserByAccessKey('ak-3')?.id).toBe(1);

      expectStoreError(() => store.updateUser(1, (u) => void (u.key = key('ak-2'))), 'access-key-taken');
      expect(store.getUser(1)?.key?.accessKey).toBe('ak-3');

      store.updateUser(2, (u) => void (u.key = null));
      expect(store.findUserByAccessKey('ak-2')).toBeUndefined();
      store.updateUser(1, (u) => void (u.key = key('ak-2')));
      expect(store.findUserByAccessKey('ak-2')?.id).toBe(1);
    });

    it('deleteUser removes the user, their key from the index and all their alert state, and nobody else\'s', async () => {
      const store = await sut.open();
      store.updateUser(12, (u) => void (u.key = { accessKey: 'ak-12', secretEnc: 'v1:x', connectedAt: 1 }), { chatId: 12 });
      store.updateUser(123, () => undefined, { chatId: 123 });
      store.alerts.set('12:arbs_live', 'a', entry());
      store.alerts.set('12:valuebets_prematch', 'b', entry());
      store.alerts.set('123:arbs_live', 'c', entry());

      expect(store.deleteUser(12)).toBe(true);
      expect(store.deleteUser(12)).toBe(false);
      expect(store.getUser(12)).toBeUndefined();
      expect(store.findUserByAccessKey('ak-12')).toBeUndefined();
      expect(store.alerts.entries('12:arbs_live')).toEqual([]);
      expect(store.alerts.entries('12:valuebets_prematch')).toEqual([]);
      expect(store.alerts.entries('123:arbs_live')).toHaveLength(1);
      expect(store.alerts.size()).toBe(1);
      expect(store.listUsers().map((u) => u.id)).toEqual([123]);

      await store.close();
      const saved = await sut.persisted(store);
      expect(saved.users).toEqual(['123']);
      expect(saved.alertSubs).toEqual(['123:arbs_live']);
    });
  });

  describe('store: alert state', () => {
    it('sets, gets copies, deletes entries and subscriptions, and counts', async () => {
      const store = await sut.open();
      store.alerts.set('1:arbs_live', 'a', entry());
      store.alerts.set('1:arbs_live', 'a', entry({ profit: 3 }));
      store.alerts.set('1:arbs_live', 'b', entry());
      store.alerts.set('1:middles_live', 'c', entry());
      expect(store.alerts.size()).toBe(3);
      expect(store.alerts.get('1:arbs_live', 'a')?.profit).toBe(3);

      const copy = store.alerts.get('1:arbs_live', 'a');
      if (!copy) throw new Error('missing entry');
      copy.profit = 99;
      copy.odds.push(9);
      expect(store.alerts.get('1:arbs_live', 'a')).toEqual(entry({ profit: 3 }));

      store.alerts.delete('1:arbs_live', 'a');
      store.alerts.delete('1:arbs_live', 'nope');
      expect(store.alerts.get('1:arbs_live', 'a')).toBeUndefined();
      expect(store.alerts.size()).toBe(2);
      store.alerts.deleteSubscription('1:arbs_live');
      expect(store.alerts.entries('1:arbs_live')).toEqual([]);
      expect(store.alerts.size()).toBe(1);
    });

    it('offers a copy-free view that follows later sets, and an empty one for an unknown subscription', async () => {
      const store = await sut.open();
      store.alerts.set('1:arbs_live', 'a', entry({ profit: 1 }));
      const view = store.alerts.view('1:arbs_live');
      expect([...view.keys()]).toEqual(['a']);
      expect(view.get('a')).toEqual(entry({ profit: 1 }));
      // Entries are replaced, never changed in place: an object taken from the view keeps its values.
      const before = view.get('a');
      store.alerts.set('1:arbs_live', 'a', entry({ profit: 2 }));
      expect(before?.profit).toBe(1);
      expect(store.alerts.view('1:arbs_live').get('a')?.profit).toBe(2);
      expect(store.alerts.view('9:arbs_live').size).toBe(0);
    });

    it('refuses an entry that would make the next load fail', async () => {
      const store = await sut.open();
      const err = expectStoreError(() => store.alerts.set('1:arbs_live', 'a', entry({ profit: Number.NaN })), 'invalid-alert-entry');
      expect(err.message).toMatch(/profit/);
      expect(store.alerts.size()).toBe(0);
    });

    it('prunes entries gone before a time and entries not seen since a time', async () => {
      const store = await sut.open();
      store.alerts.set('1:arbs_live', 'gone-long-ago', entry({ goneAt: 100, lastSeenAt: 5_000 }));
      store.alerts.set('1:arbs_live', 'gone-recently', entry({ goneAt: 900, lastSeenAt: 5_000 }));
      store.alerts.set('1:arbs_live', 'stale', entry({ lastSeenAt: 10 }));
      store.alerts.set('2:arbs_live', 'fresh', entry({ lastSeenAt: 5_000 }));
      store.alerts.set('3:arbs_live', 'stale-too', entry({ lastSeenAt: 20 }));

      expect(store.alerts.prune({ goneBefore: 500, seenBefore: 1_000 })).toBe(3);
      expect(store.alerts.entries('1:arbs_live').map(([id]) => id)).toEqual(['gone-recently']);
      expect(store.alerts.entries('2:arbs_live').map(([id]) => id)).toEqual(['fresh']);
      expect(store.alerts.size()).toBe(2);
      expect(store.alerts.prune({ goneBefore: 500, seenBefore: 1_000 })).toBe(0);

      await store.close();
      // Emptied subscriptions leave the storage too.
      expect((await sut.persisted(store)).alertSubs).toEqual(['1:arbs_live', '2:arbs_live']);
    });

    it('keeps odd item ids like constructor, and a __proto__ id never breaks the file', async () => {
      const a = await sut.open();
      a.alerts.set('1:arbs_live', '__proto__', entry({ profit: 7 }));
      a.alerts.set('1:arbs_live', 'constructor', entry({ profit: 8 }));
      expect(a.alerts.get('1:arbs_live', '__proto__')?.profit).toBe(7);
      expect(a.alerts.size()).toBe(2);
      await a.close();
      const b = await sut.reopen(a);
      // zod's record parsing drops a __proto__ key (its guard against prototype pollution): in the file store that one
      // entry is forgotten on reload, while the file still loads and nothing reaches Object.prototype.
      expect(b.loadReport).toEqual({});
      expect(b.alerts.get('1:arbs_live', 'constructor')?.profit).toBe(8);
      expect(b.alerts.get('1:arbs_live', '__proto__')?.profit).toBe(sut.protoIdSurvivesReload ? 7 : undefined);
      expect(b.alerts.size()).toBe(sut.protoIdSurvivesReload ? 2 : 1);
      expect(({} as { profit?: number }).profit).toBeUndefined();
    });
  });

  describe('store: subscription status', () => {
    it('merges a status change into the subscription\'s status, refuses what the schema refuses, and keeps it across a reload', async () => {
      const store = await sut.open();
      store.updateUser(1, () => undefined, { chatId: 10 });
      expect(store.updateStatus(1, 'arbs_live', { lastGoodReadAt: 5 })?.status.arbs_live).toEqual({ lastGoodReadAt: 5, lastAlertAt: null, lastError: null });
      store.updateStatus(1, 'arbs_live', { lastAlertAt: 7, lastError: { kind: 'server', at: 6 } });
      store.updateStatus(1, 'middles_live', { lastGoodReadAt: 9 });
      expect(store.getUser(1)?.status.arbs_live).toEqual({ lastGoodReadAt: 5, lastAlertAt: 7, lastError: { kind: 'server', at: 6 } });
      expectStoreError(() => store.updateStatus(1, 'arbs_live', { lastGoodReadAt: Number.NaN }), 'invalid-user');
      expect(store.updateStatus(99, 'arbs_live', { lastAlertAt: 1 })).toBeUndefined();
      expect(store.getUser(99)).toBeUndefined();
      await store.close();
      const again = await sut.reopen(store);
      expect(again.getUser(1)?.status).toEqual({
        arbs_live: { lastGoodReadAt: 5, lastAlertAt: 7, lastError: { kind: 'server', at: 6 } },
        middles_live: { lastGoodReadAt: 9, lastAlertAt: null, lastError: null },
      });
      expect(again.getUser(99)).toBeUndefined();
    });

    it('keeps a status written after a record change, and a record change written after a status', async () => {
      const store = await sut.open();
      store.updateUser(1, () => undefined, { chatId: 10 });
      store.updateStatus(1, 'arbs_live', { lastGoodReadAt: 5 });
      store.updateUser(1, (u) => void (u.bankroll = 70));
      store.updateStatus(1, 'arbs_live', { lastAlertAt: 6 });
      store.updateUser(1, (u) => void (u.status.arbs_live = { ...u.status.arbs_live!, lastError: { kind: 'auth', at: 7 } }));
      const expected = { lastGoodReadAt: 5, lastAlertAt: 6, lastError: { kind: 'auth', at: 7 } };
      expect(store.getUser(1)?.status.arbs_live).toEqual(expected);
      await store.close();
      const again = await sut.reopen(store);
      expect(again.getUser(1)).toMatchObject({ bankroll: 70, status: { arbs_live: expected } });
    });
  });

  describe('store: the seam\'s cluster calls, alone', () => {
    it('tells no listener about this process\'s own changes, and loadAlerts keeps what is held', async () => {
      const store = await sut.open();
      const told: number[] = [];
      const stop = store.onUserChanged((id) => told.push(id));
      store.updateUser(1, (u) => void (u.bankroll = 5), { chatId: 1 });
      store.alerts.set(subscriptionKey(1, 'arbs_live'), 'a', entry());
      await store.flush();
      await store.loadAlerts([1]);
      expect(store.alerts.entries(subscriptionKey(1, 'arbs_live'))).toEqual([['a', entry()]]);
      stop();
      expect(told).toEqual([]);
    });
  });
}
