/**
 * The ledger behind the store's seam, in both stores: positions, settings and closing lines come
 * back after a restart; a refused position changes nothing; deleting the user (/forget) removes
 * the ledger; 🗑 removes one position (its closing lines and mark too) and a change's undo is kept; each change is one write and reads write nothing; the marks of unsettled positions
 * follow puts (and, in the cluster, another process's puts).
 */
import { describe, expect, it } from 'vitest';
import { applyResults, reopen as reopenPosition, undoChange, withUndo } from '../../src/ledger/edits.js';
import { markKey } from '../../src/ledger/marks.js';
import type { Position } from '../../src/ledger/model.js';
import { StoreError } from '../../src/store/errors.js';
import type { JsonStore } from '../../src/store/store.js';
import { workedBook } from '../ledger/worked.js';
import { redisStoreSuite } from './redis-fixtures.js';
import { storeSuts, type Sut } from './store-suts.js';

const { redis, stores } = await redisStoreSuite('ledger');

const { lowdb, redisSut } = storeSuts(stores);

function contract(name: string, sut: Sut, skip = false): void {
  describe.skipIf(skip)(`ledger in the ${name} store`, () => {
    it('keeps positions, settings and closing lines across a restart, in the order placed', async () => {
      const book = workedBook();
      const a = await sut.open();
      a.updateUser(7, () => undefined, { chatId: 7 });
      for (const p of book.positions) await a.ledger.put(7, p);
      await a.ledger.updateSettings(7, { startBank: 2000, devig: 'shin' });
      a.ledger.noteClose(7, 'v1', 0, book.closes.get('v1:0')!);
      a.ledger.noteClose(7, 'nope', 0, book.closes.get('v1:0')!);
      expect([await a.ledger.takeId(7), await a.ledger.takeId(7)]).toEqual(['1', '2']);
      await a.flush();
      const b = await sut.reopen(a);
      const back = await b.ledger.book(7);
      expect(back.positions).toEqual(book.positions);
      expect(back.settings).toMatchObject({ startBank: 2000, devig: 'shin' });
      expect([...back.closes]).toEqual([['v1:0', book.closes.get('v1:0')]]);
      expect(await b.ledger.takeId(7)).toBe('3');
      // Only the pending valuebet is unsettled: its mark, and nobody else's.
      expect([...b.ledger.marks(7).keys()]).toEqual([markKey('valuebets-prematch', 'item-v5')]);
      expect(b.ledger.usersWithMarks()).toEqual([7]);
    });

    it('refuses a position that fails the schema and keeps what was there', async () => {
      const s = await sut.open();
      const good = workedBook().positions[0]!;
      await s.ledger.put(1, good);
      const bad = { ...good, legs: [{ ...good.legs[0]!, odds: Number.NaN }] } as Position;
      await expect(s.ledger.put(1, bad)).rejects.toBeInstanceOf(StoreError);
      await expect(s.ledger.put(1, { ...good, id: '../x' })).rejects.toMatchObject({ code: 'invalid-position' });
      expect((await s.ledger.book(1)).positions).toEqual([good]);
    });

    it('settling removes the mark; deleting the user removes the ledger, for good', async () => {
      const s = await sut.open();
      s.updateUser(3, () => undefined, { chatId: 3 });
      const open = workedBook().positions[6]!;
      await s.ledger.put(3, open);
      expect(s.ledger.marks(3).size).toBe(1);
      await s.ledger.put(3, { ...open, settledAt: 5, legs: [{ ...open.legs[0]!, result: 'won' }] });
      expect(s.ledger.marks(3).size).toBe(0);
      expect(s.deleteUser(3)).toBe(true);
      await s.flush();
      const again = await sut.reopen(s);
      expect((await again.ledger.book(3)).positions).toEqual([]);
    });

    it('a change’s undo comes back after a restart; 🗑 removes a position with its closing line and mark, for good', async () => {
      const book = workedBook();
      const a = await sut.open();
      a.updateUser(4, () => undefined, { chatId: 4 });
      const open = book.positions[6]!;
      const other = book.positions[0]!;
      await a.ledger.put(4, other);
      await a.ledger.put(4, open);
      a.ledger.noteClose(4, open.id, 0, book.closes.get('v1:0')!);
      const settled = applyResults(open, new Map([[0, { result: 'half_won' as const }]]), 5)!;
      await a.ledger.put(4, withUndo(open, settled, 5));
      await a.flush();
      const b = await sut.reopen(a);
      const back = (await b.ledger.book(4)).positions.find((p) => p.id === open.id)!;
      expect(back.legs[0]!.result).toBe('half_won');
      const undone = undoChange(back, 1, 6);
      expect(undone.ok && undone.position.legs[0]!.result).toBeNull();
      await b.ledger.put(4, withUndo(back, reopenPosition(back)!, 7));
      expect(b.ledger.marks(4).size).toBe(1);
      expect(await b.ledger.remove(4, open.id)).toBe(true);
      expect(await b.ledger.remove(4, open.id)).toBe(false);
      expect(await b.ledger.remove(4, 'zz')).toBe(false);
      expect(b.ledger.marks(4).size).toBe(0);
      await b.flush();
      const c = await sut.reopen(b);
      const after = await c.ledger.book(4);
      expect(after.positions).toEqual([other]);
      expect([...after.closes.keys()]).toEqual([]);
      expect(c.ledger.marks(4).size).toBe(0);
    });
  });
}

contract('embedded', lowdb);
contract('Redis', redisSut, !redis.available);

describe('the embedded store writes the ledger once per change', () => {
  it('a put is one write; reading the book and the marks writes nothing', async () => {
    const s = (await lowdb.open()) as JsonStore;
    const p = workedBook().positions[0]!;
    await s.ledger.put(1, p);
    await s.flush();
    const after = s.writeCount;
    for (let i = 0; i < 20; i++) {
      await s.ledger.book(1);
      s.ledger.marks(1);
    }
    await s.flush();
    expect(s.writeCount).toBe(after);
    await s.ledger.put(1, { ...p, note: 'x' });
    await s.flush();
    expect(s.writeCount).toBe(after + 1);
  });
});

describe.skipIf(!redis.available)('the Redis ledger between processes', () => {
  it('a worker learns of a position the front placed (its mark) and the front reads the worker’s closing line', async () => {
    const front = await stores.open();
    const worker = await stores.open({ prefix: stores.prefixOf(front) });
    const p = workedBook().positions[6]!;
    await front.ledger.put(9, p);
    await expect.poll(() => worker.ledger.marks(9).size, { timeout: 2_000 }).toBe(1);
    worker.ledger.noteClose(9, p.id, 0, { odds: 2.2, at: 1, fairOdds: null, market: [1.7, 2.2], index: 1 });
    await worker.flush();
    expect((await front.ledger.book(9)).closes.get(`${p.id}:0`)?.odds).toBe(2.2);
    // Only fields of its own (and the book's epoch and version): the whole book is never rewritten.
    const fields = await stores.raw().hkeys(stores.keys(front).ledger(9));
    expect(fields.sort()).toEqual([`c:${p.id}:0`, 'e', `p:${p.id}`, 'v']);
  });
});
