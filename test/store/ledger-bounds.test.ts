/**
 * The ledger's bounds behind the store's seam, in both stores: `size` counts positions (closing
 * lines are not positions) and knows a held id; `archive` removes positions with their closing
 * lines and marks, and they stay gone after a restart; the user's currency is kept; the bounded
 * ledger refuses a new position past the bound but never a change to a held one.
 */
import { describe, expect, it } from 'vitest';
import { boundedLedger, LedgerFullError } from '../../src/bot/ledger-bound.js';
import { workedBook } from '../ledger/worked.js';
import { redisStoreSuite } from './redis-fixtures.js';
import { storeSuts, type Sut } from './store-suts.js';

const { redis, stores } = await redisStoreSuite('ledger-bounds');

const { lowdb, redisSut } = storeSuts(stores);

function contract(name: string, sut: Sut, skip = false): void {
  describe.skipIf(skip)(`ledger bounds in the ${name} store`, () => {
    it('counts positions, archives them with their closing lines and marks, and keeps the currency', async () => {
      let s = await sut.open();
      const book = workedBook();
      for (const p of book.positions) await s.ledger.put(4, p);
      for (const [key, close] of book.closes) {
        const [id, leg] = key.split(':');
        s.ledger.noteClose(4, id!, Number(leg), close);
      }
      await s.ledger.updateSettings(4, { currency: 'EUR' });
      await s.flush();
      expect(await s.ledger.size(4, 'v1')).toEqual({ positions: 7, has: true });
      expect(await s.ledger.size(4, 'zz')).toEqual({ positions: 7, has: false });
      expect(s.ledger.marks(4).size).toBe(1);
      // v5 is the pending one (its mark); a1 and v1 are settled.
      expect(await s.ledger.archive(4, ['a1', 'v1', 'v5', 'nope'])).toBe(3);
      expect(s.ledger.marks(4).size).toBe(0);
      await s.flush();
      s = await sut.reopen(s);
      const after = await s.ledger.book(4);
      expect(after.positions.map((p) => p.id)).toEqual(['b1', 'v2', 'v3', 'v4']);
      expect([...after.closes.keys()].some((k) => k.startsWith('v1:') || k.startsWith('a1:'))).toBe(false);
      expect(after.closes.size).toBe(3);
      expect(after.settings.currency).toBe('EUR');
      expect(await s.ledger.size(4, 'b1')).toEqual({ positions: 4, has: true });
    });

    it('gives a position number back only while it is the last one taken', async () => {
      const s = await sut.open();
      expect(await s.ledger.takeId(6)).toBe('1');
      expect(await s.ledger.takeId(6)).toBe('2');
      expect(await s.ledger.giveBackId(6, '1')).toBe(false);
      expect(await s.ledger.giveBackId(6, '2')).toBe(true);
      expect(await s.ledger.giveBackId(6, '2')).toBe(false);
      expect(await s.ledger.takeId(6)).toBe('2');
      expect(await s.ledger.takeId(6)).toBe('3');
    });

    it('a bounded ledger refuses a new position past the bound, never a change to a held one', async () => {
      const s = await sut.open();
      const ledger = boundedLedger(s.ledger, 3);
      const [a, b, c, d] = workedBook().positions;
      for (const p of [a!, b!, c!]) await ledger.put(5, p);
      await expect(ledger.put(5, d!)).rejects.toBeInstanceOf(LedgerFullError);
      expect((await s.ledger.book(5)).positions).toHaveLength(3);
      await ledger.put(5, { ...a!, note: 'changed' });
      expect((await s.ledger.book(5)).positions.find((p) => p.id === a!.id)?.note).toBe('changed');
      await ledger.archive(5, [a!.id]);
      await ledger.put(5, d!);
      expect((await s.ledger.book(5)).positions).toHaveLength(3);
    });
  });
}

contract('lowdb', lowdb);
contract('Redis', redisSut, !redis.available);
