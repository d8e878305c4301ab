/**
 * A property: over random ledgers worked on as a user would — results set all at once or leg by leg
 * (half results, dead heats, pushes), legs corrected (odds, stake, bookmaker), reopened, undone,
 * deleted — /pnl's total and turnover (`summarize`) equal the sums of /export's CSV (`ledgerCsv`,
 * read back), to the cent, after every step. Seeded, so a failure names the seed that made it; the
 * ledger lives in a store (embedded, and Redis when there is one), so removal and the kept undo are the store's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { ledgerCsv, readLedgerCsv } from '../../src/ledger/csv.js';
import { applyResults, editLegValues, reopen, undoChange, withUndo, type LegOutcome } from '../../src/ledger/edits.js';
import { manualPosition, type ManualLeg } from '../../src/ledger/manual.js';
import { legResultChoices } from '../../src/ledger/markets.js';
import { isSettled, type Position } from '../../src/ledger/model.js';
import { summarize } from '../../src/ledger/summary.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, tempDir } from '../store/fixtures.js';
import { redisStoreSuite } from '../store/redis-fixtures.js';
import { createRng } from '../../src/sandbox/prng.js';

const { redis, stores } = await redisStoreSuite('pnl-csv-property');
afterAll(removeTempDirs);

/** The sandbox's seeded generator (mulberry32), so a failure is the same on every run. */
function prng(seed: number): () => number {
  const rng = createRng(seed, 'ledger');
  return () => rng.next();
}

const MARKETS = ['TO(2.25)', 'TU(2.75)', 'AH1(-0.25)', 'AH2(+0.75)', 'AH1(-1)', 'TO(2.5)', 'W1', 'X', 'Lay TO(2.25)', 'Top scorer', 'Outright'];
const BOOKS: [string, number][] = [['Pinnacle', 0], ['Betfair Exchange', 0.05], ['Smarkets', 0.02], ['Bet365', 0]];

async function run(seeds: number, open: () => Promise<Store>): Promise<void> {
  for (let seed = 1; seed <= seeds; seed++) {
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const money = (lo: number, hi: number) => Math.round((lo + rnd() * (hi - lo)) * 100) / 100;
    const store = await open();
    const user = 1;
    let now = Date.parse('2026-11-01T00:00:00Z');
    try {
      for (let step = 0; step < 30; step++) {
        now += 60_000 + Math.floor(rnd() * 3_600_000);
        const positions = (await store.ledger.book(user)).positions;
        const p = positions.length > 0 ? pick(positions) : undefined;
        const op = positions.length < 3 ? 0 : Math.floor(rnd() * 6);
        let next: Position | undefined;
        if (op === 0 || !p) {
          const legs: ManualLeg[] = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
            const [bookmaker, commission] = pick(BOOKS);
            const market = pick(MARKETS);
            return { bookmaker, commission, market, odds: money(1.2, 8), stake: money(1, 900), lay: market.startsWith('Lay') || (commission > 0 && rnd() < 0.3) };
          });
          await store.ledger.put(user, manualPosition(await store.ledger.takeId(user), now, 'A — B', legs));
          continue;
        } else if (op === 1 || op === 2) {
          // Results: every leg at once (op 1) or one leg (op 2), each a result its market allows.
          const outcomes = new Map<number, LegOutcome>();
          p.legs.forEach((l, i) => {
            if (l.status !== 'placed' || (op === 2 && outcomes.size > 0)) return;
            const result = pick(legResultChoices(l));
            outcomes.set(i, result === 'dead_heat' ? { result, deadHeat: 1 / (2 + Math.floor(rnd() * 3)) } : { result });
          });
          next = applyResults(p, outcomes, now);
        } else if (op === 3) {
          const i = Math.floor(rnd() * p.legs.length);
          const [bookmaker, commission] = pick(BOOKS);
          next = editLegValues(p, i, { odds: money(1.2, 8), stake: money(1, 900), ...(rnd() < 0.5 ? { bookmaker, commission } : {}) });
        } else if (op === 4) {
          next = isSettled(p) ? reopen(p) : undefined;
        } else {
          if (rnd() < 0.2) {
            await store.ledger.remove(user, p.id);
            continue;
          }
          const undone = p.undo ? undoChange(p, p.undo.n, now) : undefined;
          if (undone?.ok) await store.ledger.put(user, undone.position);
          continue;
        }
        if (next) await store.ledger.put(user, withUndo(p, next, now));

        const book = await store.ledger.book(user);
        const s = summarize(book, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
        const rows = readLedgerCsv(ledgerCsv(book, book.positions));
        const pnl = rows.reduce((sum, r) => sum + (r.pnl === '' ? 0 : Number(r.pnl)), 0);
        const settledRows = rows.filter((r) => r.pnl !== '' && r.status !== 'refused' && r.status !== 'open');
        const turnover = settledRows.reduce((sum, r) => sum + Number(r.liability), 0);
        expect(Math.abs(pnl - s.totals.pnl), `seed ${seed} step ${step}: CSV ${pnl} vs /pnl ${s.totals.pnl}`).toBeLessThan(0.005 * rows.length + 1e-9);
        expect(Math.abs(turnover - s.totals.turnover), `seed ${seed} step ${step}`).toBeLessThan(0.005 * rows.length + 1e-9);
      }
    } finally {
      await store.close();
    }
  }
}

describe('/pnl and the CSV agree over random ledgers with edits and undos', () => {
  it('after every step of 40 random ledgers, embedded', async () => {
    await run(40, async () => openStore({ dataDir: await tempDir(), logger: silentLogger, debounceMs: 5 }));
  });

  it.skipIf(!redis.available)('after every step of 10 random ledgers, on Redis', async () => {
    await run(10, () => stores.open());
  });
});
