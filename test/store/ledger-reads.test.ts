/**
 * The ledger's cheap reads agree with the whole book worked out afresh, in both stores: over
 * random books worked on as users do (placed, settled whole or leg by leg, corrected, reopened,
 * undone, deleted, archived, settings changed, closing lines noted), after every write the book,
 * one position, the settings and the open positions equal what was written; /pnl's figures and
 * the chart's series over the store's book (each position's maths kept by the position) equal those
 * over a fresh copy of it, and from the store's index (a figure per day) and the Mini App's
 * answer (whole and filtered) equal them to float rounding. On Redis the writes come from two store instances (a front and a
 * worker) and both read: a write of the other process is seen at the next read. Then what makes
 * the Redis reads cheap: only what changed is read again, and a book too far ahead, deleted and
 * written again, or written by an older build is read whole.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { applyResults, editLegValues, reopen, settleLegs, undoChange, withUndo, type LegOutcome } from '../../src/ledger/edits.js';
import { MANUAL_SERVICE, manualPosition, type ManualLeg } from '../../src/ledger/manual.js';
import { legResultChoices } from '../../src/ledger/markets.js';
import { closeKey, isEmpty, isSettled, type Close, type LedgerBook, type LedgerSettings, type Position } from '../../src/ledger/model.js';
import { dailySeries, ledgerFigures, summarize } from '../../src/ledger/summary.js';
import { ledgerAnswer } from '../../src/miniapp/ledger-answer.js';
import { createRng } from '../../src/sandbox/prng.js';
import type { Store } from '../../src/store/port.js';
import { BookCache, LOG_KEEP } from '../../src/store/redis-book-cache.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, tempDir } from './fixtures.js';
import { redisStoreSuite } from './redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('ledger-reads');
afterAll(removeTempDirs);

const MARKETS = ['TO(2.25)', 'AH1(-0.25)', 'AH2(+0.75)', 'W1', 'X', 'Lay TO(2.25)', 'Top scorer'];
const BOOKS: [string, number][] = [['Pinnacle', 0], ['Betfair Exchange', 0.05], ['Smarkets', 0.02], ['Bet365', 0]];
const USER = 5;

const byPlaced = (a: Position, b: Position) => a.placedAt - b.placedAt || parseInt(a.id, 36) - parseInt(b.id, 36);
const byId = (a: Position, b: Position) => parseInt(a.id, 36) - parseInt(b.id, 36);

/** What was written, kept by the test: the truth every read is held to. */
interface Truth {
  positions: Map<string, Position>;
  closes: Map<string, Close>;
  settings: Partial<LedgerSettings>;
}

async function check(store: Store, truth: Truth, where: string): Promise<void> {
  const book = await store.ledger.book(USER);
  expect([...book.positions].sort(byId), where).toEqual([...truth.positions.values()].sort(byId));
  expect(new Map(book.closes), where).toEqual(truth.closes);
  expect(book.settings, where).toMatchObject(truth.settings);
  expect(await store.ledger.settings(USER), where).toEqual(book.settings);
  const open = [...truth.positions.values()].filter((p) => !isSettled(p) && !isEmpty(p)).sort(byPlaced);
  expect((await store.ledger.open(USER)).map((p) => p.id), where).toEqual(open.map((p) => p.id));
  for (const p of [...truth.positions.values()].slice(-3)) expect(await store.ledger.position(USER, p.id), where).toEqual(p);
  expect(await store.ledger.position(USER, 'zzzz'), where).toBeUndefined();
  // The figures over the store's book (kept per position) and over a fresh, unfrozen copy of it, in the same order.
  const fresh: LedgerBook = { settings: book.settings, positions: book.positions.map((p) => structuredClone(p)), closes: new Map(book.closes) };
  for (const [from, to] of RANGES) {
    expect(summarize(book, from, to), where).toEqual(summarize(fresh, from, to));
    expect(dailySeries(book, from, to), where).toEqual(dailySeries(fresh, from, to));
    // The store's index (a figure per whole day, merged): the same to float rounding.
    const again = await store.ledger.book(USER);
    expect(again.index, where).toBeDefined();
    const [s, days] = await ledgerFigures(again, from, to);
    near(s, summarize(fresh, from, to), `${where} /pnl ${from}…${to}`);
    near(days, dailySeries(fresh, from, to), `${where} chart ${from}…${to}`);
  }
  // The Mini App's answer, whole and filtered, from the index and from the positions one by one.
  const now = Date.parse('2026-11-06T00:00:00Z');
  for (const q of [{}, { from: '2026-11-02', to: '2026-11-03' }, { bookmaker: 'Pinnacle' }, { service: MANUAL_SERVICE, from: '2026-11-01' }]) {
    const opened = await store.ledger.open(USER);
    const viaIndex = ledgerAnswer(await store.ledger.book(USER), opened, q, now);
    near(viaIndex, ledgerAnswer(fresh, opened, q, now), `${where} /ledger ${JSON.stringify(q)}`);
  }
}

const DAY = 86_400_000;
const RANGES: [number, number][] = [
  [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  [Date.parse('2026-11-02T00:00:00Z'), Date.parse('2026-11-04T00:00:00Z')],
  // Days only partly inside.
  [Date.parse('2026-11-01T13:30:00Z'), Date.parse('2026-11-01T13:30:00Z') + 2.5 * DAY],
];

/** Equal, numbers to float rounding (sums merged a day at a time are added in another order). */
function near(a: unknown, b: unknown, where: string): void {
  if (typeof a === 'number' && typeof b === 'number') {
    expect(Math.abs(a - b), `${where}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));
  } else if (Array.isArray(a) && Array.isArray(b)) {
    expect(a.length, where).toBe(b.length);
    a.forEach((x, i) => near(x, b[i], `${where}[${i}]`));
  } else if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    expect(Object.keys(a).sort(), where).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(a)) near((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${where}.${k}`);
  } else {
    expect(a, where).toEqual(b);
  }
}

/** `steps` random writes on one user's ledger, each through one of `writers`, every read checked on each of `readers`. */
async function run(seed: number, steps: number, writers: Store[], readers: Store[]): Promise<void> {
  const rng = createRng(seed, 'ledger-reads');
  const rnd = () => rng.next();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const money = (lo: number, hi: number) => Math.round((lo + rnd() * (hi - lo)) * 100) / 100;
  const truth: Truth = { positions: new Map(), closes: new Map(), settings: {} };
  let now = Date.parse('2026-11-01T00:00:00Z');
  for (let step = 0; step < steps; step++) {
    now += 60_000 + Math.floor(rnd() * 4 * 3_600_000);
    const w = pick(writers);
    const held = [...truth.positions.values()];
    const p = held.length > 0 ? pick(held) : undefined;
    const op = held.length < 4 ? 0 : Math.floor(rnd() * 10);
    const where = `seed ${seed} step ${step} op ${op}`;
    if (op === 0 || !p) {
      const legs: ManualLeg[] = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
        const [bookmaker, commission] = pick(BOOKS);
        const market = pick(MARKETS);
        return { bookmaker, commission, market, odds: money(1.2, 8), stake: money(1, 900), lay: market.startsWith('Lay') };
      });
      const stored = await w.ledger.put(USER, manualPosition(await w.ledger.takeId(USER), now, 'A — B', legs));
      truth.positions.set(stored.id, stored);
    } else if (op === 1 || op === 2) {
      // Settled whole, leg by leg (as the chat's and the Mini App's per-leg settle), or one leg's result corrected.
      const outcomes = p.legs.map((l): LegOutcome | null => {
        if (l.status !== 'placed') return null;
        const result = pick(legResultChoices(l));
        return result === 'dead_heat' ? { result, deadHeat: 0.5 } : { result };
      });
      const next = op === 1 ? settleLegs(p, outcomes, now) : applyResults(p, new Map([[0, outcomes[0]!]]), now);
      if (next) truth.positions.set(p.id, await w.ledger.put(USER, withUndo(p, next, now)));
    } else if (op === 3) {
      const [bookmaker, commission] = pick(BOOKS);
      const next = editLegValues(p, 0, { odds: money(1.2, 8), stake: money(1, 900), ...(rnd() < 0.5 ? { bookmaker, commission } : {}) });
      if (next) truth.positions.set(p.id, await w.ledger.put(USER, withUndo(p, next, now)));
    } else if (op === 4) {
      const next = reopen(p);
      if (next) truth.positions.set(p.id, await w.ledger.put(USER, withUndo(p, next, now)));
    } else if (op === 5) {
      const undone = p.undo ? undoChange(p, p.undo.n, now) : undefined;
      if (undone?.ok) truth.positions.set(p.id, await w.ledger.put(USER, undone.position));
    } else if (op === 6) {
      expect(await w.ledger.remove(USER, p.id)).toBe(true);
      await w.ledger.giveBackId(USER, p.id);
      truth.positions.delete(p.id);
      for (const key of [...truth.closes.keys()]) if (key.startsWith(`${p.id}:`)) truth.closes.delete(key);
    } else if (op === 7) {
      const settled = held.filter(isSettled).slice(0, 2);
      expect(await w.ledger.archive(USER, settled.map((x) => x.id))).toBe(settled.length);
      for (const x of settled) {
        truth.positions.delete(x.id);
        x.legs.forEach((_, i) => truth.closes.delete(closeKey(x.id, i)));
      }
    } else if (op === 8) {
      const change = pick<Partial<LedgerSettings>>([{ devig: 'shin' }, { devig: 'power' }, { startBank: money(100, 5000) }, { currency: 'EUR' }]);
      await w.ledger.updateSettings(USER, change);
      Object.assign(truth.settings, change);
    } else {
      const close: Close = { odds: money(1.2, 8), at: now, fairOdds: rnd() < 0.5 ? money(1.2, 8) : null, market: null, index: 0 };
      w.ledger.noteClose(USER, p.id, 0, close);
      await w.flush();
      truth.closes.set(closeKey(p.id, 0), close);
    }
    for (const r of readers) await check(r, truth, where);
  }
}

describe('the ledger’s reads equal what was written, and its figures a fresh recompute', () => {
  it('embedded: 10 random ledgers of 40 writes', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const s = await openStore({ dataDir: await tempDir(), logger: silentLogger, debounceMs: 5 });
      try {
        await run(seed, 40, [s], [s]);
      } finally {
        await s.close();
      }
    }
  }, 120_000);

  it.skipIf(!redis.available)('Redis: 4 random ledgers of 40 writes from a front and a worker, each reading the other’s writes', async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const front = await stores.open();
      const worker = await stores.open({ prefix: stores.prefixOf(front) });
      await run(seed, 40, [front, worker], [front, worker]);
    }
  }, 120_000);
});

describe.skipIf(!redis.available)('the Redis ledger reads only what changed', () => {
  const placed = (id: string, at: number, stake = 100): Position =>
    manualPosition(id, at, 'A — B', [{ bookmaker: 'Pinnacle', commission: 0, market: 'W1', odds: 2, stake, lay: false }]);

  it('a book held is brought up to date from the log: a field changed behind the log’s back is not read again', async () => {
    const front = await stores.open();
    const worker = await stores.open({ prefix: stores.prefixOf(front) });
    const key = stores.keys(front).ledger(USER);
    await front.ledger.put(USER, placed('1', 1_000));
    await front.ledger.put(USER, placed('2', 2_000));
    expect((await front.ledger.book(USER)).positions.map((p) => p.id)).toEqual(['1', '2']);
    // Written straight into the hash, not logged: a whole read would see it, an incremental one does not.
    await stores.raw().hset(key, 'p:1', JSON.stringify(placed('1', 1_000, 555)));
    await worker.ledger.put(USER, placed('2', 2_000, 777));
    const book = await front.ledger.book(USER);
    expect(book.positions.map((p) => p.legs[0]!.stake)).toEqual([100, 777]);
  });

  it('a reader more than LOG_KEEP versions behind reads the book whole', async () => {
    const front = await stores.open();
    const worker = await stores.open({ prefix: stores.prefixOf(front) });
    await front.ledger.put(USER, placed('1', 1_000));
    expect((await front.ledger.book(USER)).positions).toHaveLength(1);
    await worker.ledger.put(USER, placed('1', 1_000, 321));
    // The worker's change of #1 drops out of the log.
    for (let i = 0; i <= LOG_KEEP; i++) await worker.ledger.takeId(USER);
    const book = await front.ledger.book(USER);
    expect(book.positions[0]!.legs[0]!.stake).toBe(321);
    expect(book.settings.nextId).toBe(LOG_KEEP + 2);
  });

  it('a book deleted and written again to the same version is not mistaken for the one held', async () => {
    const front = await stores.open();
    const worker = await stores.open({ prefix: stores.prefixOf(front) });
    await front.ledger.put(USER, placed('1', 1_000));
    await front.ledger.put(USER, placed('2', 2_000));
    expect((await front.ledger.book(USER)).positions).toHaveLength(2);
    await worker.ledger.deleteUser(USER);
    await worker.ledger.put(USER, placed('7', 7_000));
    await worker.ledger.put(USER, placed('8', 8_000));
    expect(await stores.raw().hget(stores.keys(front).ledger(USER), 'v')).toBe('2');
    expect((await front.ledger.book(USER)).positions.map((p) => p.id)).toEqual(['7', '8']);
  });

  it('holds the books read last up to its bound, letting go of the least recently read, and reads a let-go book whole again', async () => {
    const front = await stores.open();
    const keys = stores.keys(front);
    for (const user of [1, 2, 3]) {
      for (let n = 1; n <= 3; n++) await front.ledger.put(user, placed(String(n), user * 1_000 + n, user * 10 + n));
    }
    const cache = new BookCache({ redis: stores.raw(), keys: { book: keys.ledger, log: keys.ledgerLog }, log: silentLogger, maxEntries: 7 });
    const stakes = async (user: number) => [...(await cache.get(user)).book().positions].map((p) => p.legs[0]!.stake);
    expect(await stakes(1)).toEqual([11, 12, 13]);
    expect(await stakes(2)).toEqual([21, 22, 23]);
    expect([1, 2].map((u) => cache.holds(u))).toEqual([true, true]);
    // 1 is read again, so 2 is now the least recently read: the third book lets 2 go, not 1.
    await stakes(1);
    expect(await stakes(3)).toEqual([31, 32, 33]);
    expect([1, 2, 3].map((u) => cache.holds(u))).toEqual([true, false, true]);
    // Changed while let go: read whole again, so nothing of it is missed.
    await front.ledger.put(2, placed('1', 2_001, 99));
    expect(await stakes(2)).toEqual([99, 22, 23]);
    expect([1, 2, 3].map((u) => cache.holds(u))).toEqual([false, true, true]);
    // One book over the bound alone is still held: it is the one being read.
    const big = new BookCache({ redis: stores.raw(), keys: { book: keys.ledger, log: keys.ledgerLog }, log: silentLogger, maxEntries: 2 });
    await big.get(3);
    expect(big.holds(3)).toBe(true);
  });

  it('a book without an epoch (written by an older build) is read whole at every read', async () => {
    const front = await stores.open();
    const key = stores.keys(front).ledger(USER);
    await stores.raw().hset(key, 'p:1', JSON.stringify(placed('1', 1_000)));
    expect((await front.ledger.book(USER)).positions.map((p) => p.id)).toEqual(['1']);
    await stores.raw().hset(key, 'p:2', JSON.stringify(placed('2', 2_000)));
    expect((await front.ledger.book(USER)).positions.map((p) => p.id)).toEqual(['1', '2']);
  });
});
