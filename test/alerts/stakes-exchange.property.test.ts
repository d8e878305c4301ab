/**
 * A seeded property test of the stakes an alert prints with exchange legs, commissions and the
 * user's bookmaker settings (issue 22, item 6): thousands of random 2- and 3-way arbs — back/back
 * and back/lay pairs, exchange commissions (defaults by name and the user's own), per-bookmaker
 * steps, minimums and caps — are rendered as real alert texts; the PRINTED TEXT is parsed back and
 * every number is recomputed with this file's own arithmetic (integer cents, odds in thousandths,
 * commission in hundredths of a per cent; nothing shared with the code under test):
 *
 * - the headline: 1/Σ(1/o') − 1 over effective odds (back 1 + (o − 1)(1 − c), lay 1 + (1 − c)/(L − 1)),
 *   with "after commission" exactly when a commission applies;
 * - each leg's printed effective odds ("→ 2.029 after 2% commission");
 * - each stake on its leg's step, at least its minimum, its money at risk within its cap; the total
 *   at risk within the bankroll and equal to the title's; capped legs named in the title;
 * - a lay leg's liability ℓ(L − 1), every return (back s + s(o − 1)(1 − c); lay liability + ℓ(1 − c)),
 *   the worst case min(returns) − total and its %;
 * - optimality: 2-way, equal to an independent scan over the coarser leg's stakes (the other leg's best
 *   is where its return crosses, proven in `best2`); 3-way, within the rounding-loss bound of the
 *   continuous optimum; "no guaranteed profit" only when the scan (or the bound) finds none;
 * - break-even odds as the bookmaker or exchange shows them; the Russian text prints the same numbers.
 */
import { describe, expect, it } from 'vitest';
import type { BookSettings } from '../../src/store/book-settings.js';
import { formatAlert, type AlertView } from '../../src/alerts/format.js';
import { createRng, type Rng } from '../../src/sandbox/prng.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import type { Leg, Opportunity } from '../../src/service/opportunity.js';
import { arbDictionaries, cents, near, pct, unhtml } from '../support/printed-text.js';

const CASES = 4000;
const NOW = Date.UTC(2026, 0, 3, 10, 0);

/** Bookmakers: two bookmakers and two exchanges whose default commissions are known by name. */
const BOOKS: Record<number, { name: string; defaultBp: number; exchange: boolean }> = {
  1: { name: 'Alpha', defaultBp: 0, exchange: false },
  2: { name: 'Beta', defaultBp: 0, exchange: false },
  3: { name: 'Betfair Exchange', defaultBp: 500, exchange: true },
  4: { name: 'Smarkets', defaultBp: 200, exchange: true },
};
const dicts = (lang: 'en' | 'ru') => arbDictionaries(Object.fromEntries(Object.entries(BOOKS).map(([id, b]) => [id, b.name])), lang);
const names = { en: namesFor(dicts('en'), 'en'), ru: namesFor(dicts('ru'), 'ru') };

// ---------------------------------------------------------------------------------------------
// The test's own arithmetic.

/** num / den rounded half up, for non-negative integers. */
const div = (num: number, den: number): number => Math.floor((2 * num + den) / (2 * den));

interface TLeg {
  /** odds in thousandths, as printed */
  o: number;
  lay: boolean;
  /** commission, hundredths of a per cent */
  bp: number;
  /** stake step, cents */
  step: number;
  minCents: number;
  maxCents: number | undefined;
  bookmakerId: number;
}

/** Money at risk and return (cents) of `units` steps of a leg. */
function money(l: TLeg, units: number): { stake: number; cost: number; pay: number } {
  const s = units * l.step;
  if (l.lay) {
    const cost = div(s * (l.o - 1000), 1000);
    return { stake: s, cost, pay: cost + div(s * (10_000 - l.bp), 10_000) };
  }
  return { stake: s, cost: s, pay: s + div(s * (l.o - 1000) * (10_000 - l.bp), 10_000_000) };
}

/**
 * Effective odds (float) of a leg, as the alert's figures use them: a lay leg's from its
 * zero-commission equivalent (L − c)/(1 − c) as printed, to five decimals (docs/maths.md's rule).
 */
const eff = (l: TLeg): number => {
  if (!l.lay) return 1 + ((l.o - 1000) / 1000) * (1 - l.bp / 10_000);
  const c = l.bp / 10_000;
  const equivalent = l.bp === 0 ? l.o / 1000 : Number(((l.o / 1000 - c) / (1 - c)).toFixed(5));
  return 1 + 1 / (equivalent - 1);
};

/** A leg's units range within its minimum, its cap and the budget. */
function range(l: TLeg, budget: number): { lo: number; hi: number } {
  const lo = Math.max(1, Math.ceil(l.minCents / l.step));
  const limit = Math.min(budget, l.maxCents ?? Infinity);
  if (!Number.isFinite(limit)) return { lo, hi: lo };
  // an estimate from a thousand units' cost (one unit's cost is rounded to the cent), then exact
  let hi = Math.floor((limit * 1000) / Math.max(1, money(l, 1000).cost)) + 2;
  while (hi >= lo && money(l, hi).cost > limit) hi -= 1;
  while (money(l, hi + 1).cost <= limit) hi += 1;
  return { lo, hi };
}

/**
 * The best worst case (and the smallest total giving it) of a 2-leg arb: every units count of the
 * leg with fewer of them, and for the other leg the counts where its return crosses the first's:
 * below the crossing the worst case rises with its stake (its own winnings grow), above it the
 * worst case falls (more cost, same minimum), so only the last count below and the first at or
 * above the crossing can be best — or the largest count the budget allows, when that is lower;
 * below the crossing, smaller counts whose winnings round to the same cents tie at a smaller total.
 */
function best2(legs: [TLeg, TLeg], budget: number): { worst: number; total: number } | undefined {
  const ranges = legs.map((l) => range(l, budget));
  const a = (ranges[0]?.hi ?? 0) - (ranges[0]?.lo ?? 0) <= (ranges[1]?.hi ?? 0) - (ranges[1]?.lo ?? 0) ? 0 : 1;
  const b = 1 - a;
  const la = legs[a] as TLeg;
  const lb = legs[b] as TLeg;
  const ra = ranges[a] as { lo: number; hi: number };
  const rb = ranges[b] as { lo: number; hi: number };
  let best: { worst: number; total: number } | undefined;
  for (let ua = ra.lo; ua <= ra.hi; ua++) {
    const ma = money(la, ua);
    const left = budget - ma.cost;
    if (left < 0) break;
    // first count of leg b whose return reaches ma.pay
    let cross = Math.max(rb.lo, Math.floor((ma.pay * 1000) / Math.max(1, money(lb, 1000).pay)) - 2);
    while (cross <= rb.hi && money(lb, cross).pay < ma.pay) cross += 1;
    let budgetMax = Math.min(rb.hi, Math.floor((left * 1000) / Math.max(1, money(lb, 1000).cost)) + 2);
    while (budgetMax >= rb.lo && money(lb, budgetMax).cost > left) budgetMax -= 1;
    while (budgetMax < rb.hi && money(lb, budgetMax + 1).cost <= left) budgetMax += 1;
    // below the crossing, a smaller count with the same winnings (cent rounding) ties at a smaller total
    const below = (u: number): number => {
      const won = (x: number) => money(lb, x).pay - money(lb, x).cost;
      let v = u;
      while (v - 1 >= rb.lo && won(v - 1) === won(v)) v -= 1;
      return v;
    };
    const under = Math.min(cross - 1, budgetMax);
    for (const ub of new Set([under, below(under), cross, budgetMax])) {
      if (ub < rb.lo || ub > rb.hi || ub > budgetMax) continue;
      const mb = money(lb, ub);
      const total = ma.cost + mb.cost;
      const worst = Math.min(ma.pay, mb.pay) - total;
      if (!best || worst > best.worst || (worst === best.worst && total < best.total)) best = { worst, total };
    }
  }
  return best && best.worst > 0 ? best : undefined;
}

// ---------------------------------------------------------------------------------------------
// Random cases.

interface Case {
  item: Opportunity;
  view: AlertView;
  legs: TLeg[];
}

const odds2 = (rng: Rng, x: number): number => Math.max(1.02, Math.round(x * 100) / 100);

function randomCase(rng: Rng, n: number): Case {
  const threeWay = rng.chance(0.3);
  const backLay = !threeWay && rng.chance(0.5);
  const margin = rng.uniform(-0.02, 0.07);
  let oddsList: number[];
  let lays: boolean[];
  let bookIds: number[];
  if (backLay) {
    // back b at a bookmaker, lay L at an exchange with 1/b + 1 − 1/L = 1/(1 + margin)
    const b = odds2(rng, rng.uniform(1.5, 5));
    const denom = 1 - 1 / (1 + margin) + 1 / b;
    const L = odds2(rng, denom > 0 ? Math.min(1 / denom, b) : b);
    oddsList = [b, Math.max(1.02, L)];
    lays = [false, true];
    bookIds = [rng.pick([1, 2]), rng.pick([3, 4])];
  } else {
    const count = threeWay ? 3 : 2;
    const w = Array.from({ length: count }, () => rng.uniform(0.3, 1));
    const sum = w.reduce((x, y) => x + y, 0);
    oddsList = w.map((x) => odds2(rng, ((1 + margin) * sum) / x));
    lays = w.map(() => false);
    bookIds = rng.sample([1, 2, 3, 4], count);
  }
  const bankroll = rng.pick([50, 100, 300, 1000, 2500]);
  const roundingStep = rng.pick([0.5, 1, 5, 10]);
  const books: Record<string, BookSettings> = {};
  for (const id of bookIds) {
    const s: BookSettings = {};
    if (rng.chance(0.3)) s.commission = rng.pick([0, 1, 2, 3.5, 5]);
    if (rng.chance(0.25)) s.max = rng.pick([20, 50, 120, 300]);
    if (rng.chance(0.15)) s.min = rng.pick([2, 5, 10]);
    if (rng.chance(0.2)) s.step = rng.pick([0.5, 1, 2, 5]);
    if (Object.keys(s).length > 0) books[String(id)] = s;
  }
  const legs: TLeg[] = oddsList.map((o, i) => {
    const id = bookIds[i] as number;
    const own = books[String(id)];
    const lay = lays[i] === true;
    return {
      o: Math.round(o * 1000),
      lay,
      bp: own?.commission !== undefined ? Math.round(own.commission * 100) : (BOOKS[id]?.defaultBp ?? 0),
      step: Math.round((own?.step ?? (lay ? 0.01 : roundingStep)) * 100),
      minCents: Math.round((own?.min ?? 0) * 100),
      maxCents: own?.max !== undefined ? Math.round(own.max * 100) : undefined,
      bookmakerId: id,
    };
  });
  const itemLegs: Leg[] = legs.map((l, i) => ({
    subEventId: `s${i}`,
    bookmakerId: l.bookmakerId,
    typeId: l.lay ? 21 : i + 1,
    line: '',
    odds: l.o / 1000,
    prevOdds: null,
    updatedAt: NOW,
    initiator: i === 0,
  }));
  const item: Opportunity = {
    id: `c${n}`,
    service: 'arbs_prematch',
    kind: 'arbs',
    event: { id: `e${n}`, sportId: 1, league: 'L', team1: 'Home', team2: 'Away', startsAt: NOW + 3_600_000, live: false },
    legs: itemLegs,
    profit: null,
    middleProfit: null,
    overvalue: null,
    probability: null,
    createdAt: NOW,
    masked: false,
  };
  return { item, view: { lang: 'en', timeZone: 'UTC', bankroll, roundingStep, now: NOW, books }, legs };
}

// ---------------------------------------------------------------------------------------------
// Reading the text back.

const oddsOf = (text: string): number => {
  if (text === '—') return Infinity;
  const m = /^(\d+)\.(\d{2,3})$/.exec(text);
  if (!m) throw new Error(`not odds: ${text}`);
  return Number(m[1]) + Number((m[2] ?? '').padEnd(3, '0')) / 1000;
};

interface StakeRow {
  stake: number;
  liability: number;
  pay: number;
  capped: boolean;
}

function checkCase(c: Case, counts: Record<string, number>): void {
  const html = formatAlert(c.item, names.en, c.view, { state: 'new' }).text;
  const text = unhtml(html);
  const lines = text.split('\n');
  const effOdds = c.legs.map(eff);
  const sumInv = effOdds.reduce((s, o) => s + 1 / o, 0);
  const withCommission = c.legs.some((l) => l.bp > 0);

  // headline
  const head = /^⚖️ (?:Arb|Not an arb for you:) (\S+)( after commission)? · prematch$/.exec(lines[0] ?? '');
  expect(head, `headline: ${lines[0]}`).not.toBeNull();
  // "Not an arb for you" in the title exactly when the stakes block says no stakes give a guaranteed profit.
  expect(lines[0]?.includes('Not an arb for you'), 'title says "not an arb" iff 🚫').toBe(lines.some((l) => l.startsWith('🚫')));
  near(pct(head?.[1] ?? ''), (1 / sumInv - 1) * 100, 0.005, 'headline %');
  expect(head?.[2] !== undefined, '"after commission" iff a commission applies').toBe(withCommission);

  // leg lines: the effective odds after commission
  c.legs.forEach((l, i) => {
    const line = lines.find((x) => x.startsWith(`${i + 1}) `) && x.includes(' · ')) ?? '';
    // A leg may end with its odds' age (" · 0 s"), which is no number of the maths.
    const m = /^\d+\) .+ · \S+ · (\d+\.\d+)(?: → (\d+\.\d+) after (\S+?)% commission)?(?: · (?:⚠️ )?\d+ (?:s|min)(?: \d+ s)?)?$/.exec(line);
    expect(m, `leg line: ${line}`).not.toBeNull();
    expect(oddsOf(m?.[1] ?? '')).toBeCloseTo(l.o / 1000, 9);
    if (m?.[2] !== undefined) {
      const c1 = l.bp / 10_000;
      const shown = l.lay ? (l.o / 1000 - c1) / (1 - c1) : eff(l);
      // printed as the maths use them: a back leg's in full, a lay leg's equivalent to five decimals
      near(Number(m[2]), shown, l.lay ? 0.000005 : 0, `effective odds of leg ${i + 1}`);
      near(Number(m[3]), l.bp / 100, 1e-9, 'commission %');
    } else {
      expect(l.bp, `leg ${i + 1} has a commission but no effective odds`).toBe(0);
    }
  });

  const budget = Math.round(c.view.bankroll * 100);
  const titleAt = lines.findIndex((x) => x.startsWith('💰 Stakes'));
  const noProfit = lines.some((x) => x.includes('No stakes on your steps and limits give a guaranteed profit'));
  const tooSmall = lines.some((x) => x.includes('The bankroll is too small'));
  const conflict = lines.some((x) => x.includes('its minimum is over its maximum'));
  const exact2 = c.legs.length === 2 ? best2([c.legs[0] as TLeg, c.legs[1] as TLeg], budget) : undefined;
  if (titleAt < 0) {
    expect(noProfit || tooSmall || conflict, `no stakes and no reason:\n${text}`).toBe(true);
    if (conflict) {
      const clash = c.legs.some((l) => l.maxCents !== undefined && money(l, Math.max(1, Math.ceil(l.minCents / l.step))).cost > l.maxCents);
      expect(clash, 'a leg whose minimum is over its cap').toBe(true);
    } else if (noProfit) {
      counts.noProfit = (counts.noProfit ?? 0) + 1;
      if (c.legs.length === 2) expect(exact2, 'a positive worst case exists on the grid').toBeUndefined();
    } else {
      const least = c.legs.reduce((s, l) => s + money(l, range(l, Infinity).lo).cost, 0);
      expect(least, 'every leg\'s least stake fits, yet "too small"').toBeGreaterThan(budget);
    }
    return;
  }

  // stakes
  const rows: StakeRow[] = [];
  for (const line of lines.slice(titleAt + 1)) {
    const lay = /^\d+\) .+? lay (\S+) · liability (\S+)( \(capped\))? → (\S+)$/.exec(line);
    const back = /^\d+\) .+? (\d+(?:\.\d{2})?)( \(capped\))? → (\S+)$/.exec(line);
    if (lay) rows.push({ stake: cents(lay[1] ?? ''), liability: cents(lay[2] ?? ''), capped: lay[3] !== undefined, pay: cents(lay[4] ?? '') });
    else if (back) rows.push({ stake: cents(back[1] ?? ''), liability: cents(back[1] ?? ''), capped: back[2] !== undefined, pay: cents(back[3] ?? '') });
    else break;
  }
  expect(rows.length).toBe(c.legs.length);
  let total = 0;
  rows.forEach((r, i) => {
    const l = c.legs[i] as TLeg;
    expect(r.stake % l.step, `leg ${i + 1} off its step`).toBe(0);
    const m = money(l, r.stake / l.step);
    expect(r.liability, `liability of leg ${i + 1}`).toBe(m.cost);
    expect(r.pay, `return of leg ${i + 1}`).toBe(m.pay);
    expect(r.stake, `leg ${i + 1} under its minimum`).toBeGreaterThanOrEqual(l.minCents);
    if (l.maxCents !== undefined) {
      expect(m.cost, `leg ${i + 1} over its cap`).toBeLessThanOrEqual(l.maxCents);
      expect(r.capped, `leg ${i + 1}'s cap mark`).toBe(money(l, r.stake / l.step + 1).cost > l.maxCents);
    } else expect(r.capped).toBe(false);
    total += m.cost;
  });
  expect(total, 'Σ money at risk within the bankroll').toBeLessThanOrEqual(budget);
  const title = lines[titleAt] ?? '';
  const plain = /^💰 Stakes for (?:bankroll )?(\S+):$/.exec(title);
  const withTotal = /^💰 Stakes for (?:bankroll )?(\S+) \(total (\S+)(?:: (.+))?\):$/.exec(title);
  expect(plain ?? withTotal, `title: ${title}`).not.toBeNull();
  expect(cents((plain ?? withTotal)?.[1] ?? '')).toBe(budget);
  expect(plain ? budget : cents(withTotal?.[2] ?? ''), 'title total = Σ').toBe(total);
  const cappedNames = rows.flatMap((r, i) => (r.capped ? [BOOKS[c.legs[i]?.bookmakerId ?? 0]?.name ?? ''] : []));
  if (withTotal) {
    const named = withTotal[3] ?? '';
    for (const name of cappedNames) expect(named, 'a capped leg named in the title').toContain(`${name} capped at`);
    // With no leg at its cap the title still says why: a cap that sets the size, or the steps.
    if (cappedNames.length === 0) expect(named).toMatch(/^(?:.+’s max \S+ limits the stakes(?:, .+’s max \S+ limits the stakes)*|more on these steps would not guarantee more|the next step would not fit in it)$/);
  }
  if (cappedNames.length > 0) counts.capped = (counts.capped ?? 0) + 1;

  // worst case
  const worst = Math.min(...rows.map((r) => r.pay)) - total;
  const wl = lines.find((x) => x.startsWith('Worst case after rounding')) ?? '';
  const wm = /^Worst case after rounding( and commission)?: (\S+) \((\S+)\)$/.exec(wl);
  expect(wm, `worst line: ${wl}`).not.toBeNull();
  expect(wm?.[1] !== undefined).toBe(withCommission);
  expect(cents(wm?.[2] ?? '')).toBe(worst);
  near(pct(wm?.[3] ?? ''), (worst / total) * 100, 0.005, 'worst %');
  expect(worst).toBeGreaterThan(0);

  // optimal
  if (c.legs.length === 2) {
    expect(exact2, 'the scan finds a positive worst case too').toBeDefined();
    expect(worst, 'worst case = the best on the grid').toBe(exact2?.worst);
    expect(total, 'ties: the smallest total').toBe(exact2?.total);
    counts.optimal2 = (counts.optimal2 ?? 0) + 1;
  } else if (c.legs.every((l) => l.minCents === 0)) {
    // continuous optimum R*(1 − L) with R* = min(B/L, caps × o'); the grid loses at most Σ(unit cost)/L (+ cents)
    const caps = c.legs.map((l, i) => (l.maxCents === undefined ? Infinity : Math.floor(l.maxCents / l.step) * l.step * (effOdds[i] ?? 1)));
    const R = Math.min(budget / sumInv, ...caps);
    const wStar = R * (1 - sumInv);
    const loss = c.legs.reduce((s, l) => s + money(l, 1).cost, 0) / sumInv + c.legs.length + 2;
    expect(worst).toBeLessThanOrEqual(wStar + c.legs.length + 2);
    expect(worst).toBeGreaterThanOrEqual(wStar - loss);
    counts.bounded3 = (counts.bounded3 ?? 0) + 1;
  }

  // break-even odds, as shown at the bookmaker or exchange
  const be = /^Break-even odds: (.*)$/.exec(lines.find((x) => x.startsWith('Break-even odds: ')) ?? '');
  expect(be).not.toBeNull();
  (be?.[1] ?? '').split(' · ').forEach((part, i) => {
    const m = /^(\d+)\) (\S+)$/.exec(part);
    const l = c.legs[i] as TLeg;
    const others = sumInv - 1 / (effOdds[i] ?? 1);
    const needed = 1 / (1 - others);
    const c1 = l.bp / 10_000;
    const shown = l.lay ? 1 + (1 - c1) / (needed - 1) : 1 + (needed - 1) / (1 - c1);
    // Printed at the odds' precision, rounded to the side the user can take: up for a back leg, down for a lay leg.
    const printed = oddsOf(m?.[2] ?? '');
    const decimals = (m?.[2] ?? '').split('.')[1]?.length ?? 0;
    const gap = l.lay ? shown - printed : printed - shown;
    expect(gap, `break-even ${i + 1}: ${printed} for ${shown}`).toBeGreaterThanOrEqual(-1e-9);
    expect(gap, `break-even ${i + 1}: ${printed} for ${shown}`).toBeLessThan(10 ** -decimals + 1e-9);
  });

  // default commission note: exactly the exchanges whose commission the user did not set
  const defaults = c.legs.filter((l) => c.view.books?.[String(l.bookmakerId)]?.commission === undefined && BOOKS[l.bookmakerId]?.exchange);
  expect(lines.some((x) => x.startsWith('ℹ️ Commission assumed'))).toBe(defaults.length > 0);

  // the Russian text prints the same numbers
  const ru = formatAlert(c.item, names.ru, { ...c.view, lang: 'ru' }, { state: 'new' }).text;
  expect(unhtml(ru).match(/\d+(?:\.\d+)?/g)).toEqual(text.match(/\d+(?:\.\d+)?/g));
  if (c.legs.some((l) => l.lay)) counts.lay = (counts.lay ?? 0) + 1;
  if (withCommission) counts.commission = (counts.commission ?? 0) + 1;
}

describe('stakes with exchanges, commission and bookmaker settings (seeded property test)', () => {
  it(`every printed number holds for ${CASES} random arbs`, { timeout: 120_000 }, () => {
    const rng = createRng(2026_11_26, 'stakes-exchange');
    const counts: Record<string, number> = {};
    for (let n = 0; n < CASES; n++) {
      const c = randomCase(rng, n);
      try {
        checkCase(c, counts);
      } catch (err) {
        const text = unhtml(formatAlert(c.item, names.en, c.view, { state: 'new' }).text);
        throw new Error(`case ${n}: ${JSON.stringify({ legs: c.legs, bankroll: c.view.bankroll, step: c.view.roundingStep, books: c.view.books })}\n${text}\n${String(err)}`);
      }
    }
    if (process.env.SHOW_CASE_COUNTS) process.stdout.write(`${JSON.stringify(counts)}\n`);
    // The generator reaches every case the checks are about.
    expect(counts.lay ?? 0).toBeGreaterThan(CASES / 5);
    expect(counts.commission ?? 0).toBeGreaterThan(CASES / 4);
    expect(counts.capped ?? 0).toBeGreaterThan(50);
    expect(counts.noProfit ?? 0).toBeGreaterThan(50);
    expect(counts.optimal2 ?? 0).toBeGreaterThan(CASES / 4);
    expect(counts.bounded3 ?? 0).toBeGreaterThan(100);
  });
});
