/**
 * The ledger's maths against stake-maths §3 and §5 (`devig.mjs`, `ledger.mjs`, §1.6's refused
 * leg): per-leg and total P&L, turnover on money at risk, yield, ROI on the bank, by book and
 * month, arbs expected vs realised, CLV; commission netted per exchange market; periods.
 */
import { describe, expect, it } from 'vitest';
import { devigMultiplicative, devigPower, devigShin } from '../../src/ledger/devig.js';
import { makeLeg, positionSchema, type Position } from '../../src/ledger/model.js';
import { parsePeriod, periodRange } from '../../src/ledger/periods.js';
import { hedgeFor, legPnls, positionPnl, worstCase } from '../../src/ledger/settle.js';
import { dailySeries, summarize } from '../../src/ledger/summary.js';
import { workedBook } from './worked.js';

const r = (x: number | null | undefined, d = 2): number => Number((x ?? NaN).toFixed(d));
const ALL = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY] as const;

describe('the worked ledger of stake-maths §5.2', () => {
  const book = workedBook();
  const s = summarize(book, ...ALL);

  it('gives each leg the script’s P&L', () => {
    const perLeg = book.positions.flatMap((p) => legPnls(p).map((x) => (x === undefined ? null : r(x))));
    expect(perLeg).toEqual([544.5, -505, -50, -100, 103.65, 45, -30, 0, null]);
  });

  it('P&L 8.15, turnover on money at risk 1506.35, yield 0.5413 %, ROI on the bank 0.4077 %', () => {
    expect(r(s.totals.pnl)).toBe(8.15);
    expect(r(s.totals.turnover)).toBe(1506.35);
    expect(r(s.totals.yieldPct, 4)).toBe(0.5413);
    expect(r(s.roiOnBankPct, 4)).toBe(0.4077);
    expect(s.totals.count).toBe(6);
    expect(s.open).toBe(1);
    // In profit: arb-1, bl-1, vb-2; lost: vb-1, vb-3; the void is left out.
    expect(r(s.winRatePct)).toBe(60);
  });

  it('by book: turnover, P&L and count per bookmaker', () => {
    const byBook = Object.fromEntries(s.byBookmaker.map(([k, v]) => [k, [r(v.pnl), r(v.turnover), v.count]]));
    expect(byBook).toEqual({
      Bet365: [589.5, 595, 2],
      Pinnacle: [-505, 585, 2],
      Unibet: [-80, 110, 2],
      'William Hill': [-100, 100, 1],
      Betfair: [103.65, 116.35, 1],
    });
  });

  it('by month: 2026-11 −6.85 on 1266.35, 2026-12 15 on 240', () => {
    const nov = periodRange(parsePeriod('2026-11')!, 0);
    const dec = periodRange(parsePeriod('2026-12')!, 0);
    const a = summarize(book, nov.from, nov.to);
    const b = summarize(book, dec.from, dec.to);
    expect([r(a.totals.pnl), r(a.totals.turnover), r(a.totals.yieldPct)]).toEqual([-6.85, 1266.35, -0.54]);
    expect([r(b.totals.pnl), r(b.totals.turnover), r(b.totals.yieldPct)]).toEqual([15, 240, 6.25]);
  });

  it('arbs: expected (worst case as placed) vs realised', () => {
    expect(s.arbs.count).toBe(2);
    expect(r(worstCase(book.positions[0]!))).toBe(35.25);
    expect(r(worstCase(book.positions[2]!))).toBe(3.65);
    expect(r(s.arbs.expected)).toBe(38.9);
    expect(r(s.arbs.realised)).toBe(43.15);
  });

  it('CLV: mean 2.2179 % over the non-void bets, stake-weighted 1.989 %, 2 of 3 beat the close', () => {
    expect(s.clv?.count).toBe(3);
    expect(r(s.clv?.meanPct, 4)).toBe(2.2179);
    expect(r(s.clv?.weightedPct, 3)).toBe(1.989);
    expect(r(s.clv?.beatSharePct)).toBe(66.67);
  });

  it('a daily series that ends at the total P&L', () => {
    const days = dailySeries(book, ...ALL);
    expect(days.map((d) => d.day)).toEqual(['2026-11-02', '2026-11-05', '2026-11-09', '2026-12-01', '2026-12-03', '2026-12-04']);
    expect(r(days.at(-1)?.cumulative)).toBe(8.15);
    expect(r(days[1]?.clvPct, 4)).toBe(6.1538);
  });
});

const pos = (legs: Position['legs'], kind: Position['kind'] = 'arbs'): Position =>
  positionSchema.parse({ id: '1', kind, service: 'arbs-prematch', itemId: 'i', eventId: 'e', placedAt: 0, legs });

describe('commission on net winnings per market', () => {
  it('nets a back and a lay at one exchange on one market before charging', () => {
    const p = pos([
      { ...makeLeg({ outcome: 0, bookmaker: 'Betfair', market: 'Home', odds: 3, stake: 100, commission: 0.05 }), result: 'won' },
      { ...makeLeg({ outcome: 0, bookmaker: 'Betfair', market: 'Home', odds: 2.5, stake: 50, commission: 0.05, lay: true }), result: 'lost' },
    ]);
    // gross +200 and −75: net 125, 5 % of it → 118.75 (per bet it would be 190 − 75 = 115).
    expect(r(positionPnl(p))).toBe(118.75);
    expect(legPnls(p).map((x) => r(x))).toEqual([193.75, -75]);
  });

  it('charges nothing on a losing net (the Smarkets example nets 19.07 + 9.66 − 10.71 = 18.02 → 17.66)', () => {
    const smarkets = pos([
      { ...makeLeg({ outcome: 0, bookmaker: 'Smarkets', market: 'M', odds: 2.907, stake: 10, commission: 0.02 }), result: 'won' },
      { ...makeLeg({ outcome: 0, bookmaker: 'Smarkets', market: 'M', odds: 1.966, stake: 10, commission: 0.02 }), result: 'won' },
      { ...makeLeg({ outcome: 0, bookmaker: 'Smarkets', market: 'M', odds: 2.071, stake: 10, commission: 0.02, lay: true }), result: 'lost' },
    ]);
    expect(r(positionPnl(smarkets))).toBe(17.66);
    const losing = pos([{ ...makeLeg({ outcome: 0, bookmaker: 'Betfair', odds: 2, stake: 10, commission: 0.05 }), result: 'lost' }]);
    expect(positionPnl(losing)).toBe(-10);
    // A winning back netted against a bigger losing lay in one market: the net is a loss, no commission.
    const netLoss = pos([
      { ...makeLeg({ outcome: 0, bookmaker: 'Betfair', market: 'M', odds: 2, stake: 50, commission: 0.05 }), result: 'won' },
      { ...makeLeg({ outcome: 0, bookmaker: 'Betfair', market: 'M', odds: 2.5, stake: 50, commission: 0.05, lay: true }), result: 'lost' },
    ]);
    expect(positionPnl(netLoss)).toBe(-25);
  });

  it('gives a lay its effective odds and liability', () => {
    const l = makeLeg({ outcome: 1, bookmaker: 'Betfair', odds: 2.1, stake: 105.77, lay: true, commission: 0.02 });
    expect(l.liability).toBe(116.35);
    expect(r(l.effectiveOdds, 6)).toBe(1.890909);
    expect(r(makeLeg({ outcome: 0, bookmaker: 'X', odds: 3.6, stake: 1, commission: 0.02 }).effectiveOdds, 3)).toBe(3.548);
  });
});

describe('a refused leg (stake-maths §1.6)', () => {
  it('2-way: 495 @ 2.10 placed, the other refused: break-even 1.9091, hedge 525 at 1.98, worst +19.50', () => {
    const p = pos([makeLeg({ outcome: 0, bookmaker: 'A', odds: 2.1, stake: 495 }), makeLeg({ outcome: 1, bookmaker: 'B', odds: 2.05, stake: 505, status: 'refused' })]);
    const h = hedgeFor(p, 1, 1.98)!;
    expect([r(h.breakEven, 4), h.stake, r(h.worst)]).toEqual([1.9091, 525, 19.5]);
  });

  it('3-way: 200 @ 2.60 and 145 @ 3.60 placed: break-even 2.9714; hedge 167.75 at 3.10 (+7.25; 167.74 returns 519.99, a cent short), 179.31 at 2.90 (−4.31)', () => {
    const p = pos([
      makeLeg({ outcome: 0, bookmaker: 'A', odds: 2.6, stake: 200 }),
      makeLeg({ outcome: 1, bookmaker: 'B', odds: 3.6, stake: 145 }),
      makeLeg({ outcome: 2, bookmaker: 'C', odds: 3.4, stake: 150, status: 'refused' }),
    ]);
    const a = hedgeFor(p, 2, 3.1)!;
    const b = hedgeFor(p, 2, 2.9)!;
    expect([r(a.breakEven, 4), a.stake, r(a.worst)]).toEqual([2.9714, 167.75, 7.25]);
    expect([b.stake, r(b.worst)]).toEqual([179.31, -4.31]);
  });
});

describe('de-vig (stake-maths §3.3)', () => {
  it('Shin matches mberk/shin’s README and the 2-way closed form', () => {
    expect(devigShin([2.6, 2.4, 4.3]).map((x) => r(x, 12))).toEqual([0.372994060332, 0.40477941092, 0.222226528747]);
    expect(devigShin([1.8, 2.1]).map((x) => r(x, 6))).toEqual([0.539683, 0.460317]);
  });
  it('multiplicative and power on the 1X2 of 3.2', () => {
    expect(devigMultiplicative([2.45, 3.4, 3.05]).map((x) => r(x, 6))).toEqual([0.396217, 0.28551, 0.318273]);
    expect(devigPower([2.45, 3.4, 3.05]).map((x) => r(x, 6))).toEqual([0.398033, 0.284194, 0.317773]);
  });
  it('the longshot of 3.3 by each method gives the script’s CLV', () => {
    const clv = (p: number[]) => r((11 * p[2]! - 1) * 100, 4);
    expect(clv(devigMultiplicative([1.25, 6.5, 10]))).toBe(4.3796);
    expect(clv(devigShin([1.25, 6.5, 10]))).toBe(-5.9601);
    expect(clv(devigPower([1.25, 6.5, 10]))).toBe(-9.0101);
  });
});

describe('periods', () => {
  const now = Date.parse('2026-11-26T14:00:00Z');
  it('accepts 7d, 30d, month, all and YYYY-MM', () => {
    expect(periodRange(parsePeriod('7d')!, now).from).toBe(now - 7 * 86_400_000);
    expect(periodRange(parsePeriod('month')!, now).from).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(periodRange(parsePeriod('2026-02')!, now)).toEqual({ from: Date.parse('2026-02-01T00:00:00Z'), to: Date.parse('2026-03-01T00:00:00Z') });
    expect(parsePeriod('')).toEqual({ kind: 'all' });
  });
  it('refuses anything else', () => {
    for (const bad of ['2026-13', '1999-01', '12d', 'yesterday', '2026-1', '=1+1']) expect(parsePeriod(bad)).toBeUndefined();
  });
});
