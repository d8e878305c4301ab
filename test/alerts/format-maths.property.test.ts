/**
 * A property test of the rule in the formatter's header: every number an alert prints is derived
 * from the odds it prints (or labelled as the service's figure). Thousands of seeded random arbs,
 * middles and valuebets are rendered as real texts (a new alert, its edit, the digest line and the
 * card); the PRINTED TEXT is then parsed back and every number is recomputed from the printed odds
 * with this file's own arithmetic (integer cents, no code shared with the formatter): the profit
 * from 1/Σ(1/o), returns = stake × odds, worst case = min(returns) − Σ stakes, Σ stakes within the
 * bankroll and equal to the total the title states, an arb's worst case the best there is on the
 * step grid (an independent scan) with the smallest total among equals, a middle's split the best
 * floor/ceil one, break-even
 * odds, a middle's hit and miss, a valuebet's EV and Kelly from its printed fair odds, and the
 * edit's "Changed" line from the odds before and after. Each within the printed rounding.
 *
 * The service's own figures are random on purpose (often wrong): nothing printed may follow them
 * while the odds are shown.
 */
import { describe, expect, it } from 'vitest';
import { formatAlert, formatCard, formatShortLine, type AlertView } from '../../src/alerts/format.js';
import { createRng, type Rng } from '../../src/sandbox/prng.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import type { Leg, Opportunity } from '../../src/service/opportunity.js';
import { arbDictionaries } from '../support/printed-text.js';

const CASES = 3000;
const NOW = Date.UTC(2026, 0, 3, 10, 0);

const dicts = (lang: 'en' | 'ru') => arbDictionaries({ '1': 'Alpha', '2': 'Beta', '3': 'Gamma' }, lang);
const names = { en: namesFor(dicts('en'), 'en'), ru: namesFor(dicts('ru'), 'ru') };

// ---------------------------------------------------------------------------------------------
// Random items.

/** Odds with 2 decimals mostly, sometimes 3, now and then 4 (printed as 3: the maths must follow the print). */
function randomOdds(rng: Rng, min: number, max: number): number {
  const digits = rng.pick([2, 2, 2, 3, 4]);
  const f = 10 ** digits;
  return Math.max(1.01, Math.round(rng.uniform(min, max) * f) / f);
}

/** Odds for `n` outcomes whose book has a margin between −3 % and +12 % (mostly thin arbs). */
function arbOdds(rng: Rng, n: number): number[] {
  const weights = Array.from({ length: n }, () => rng.uniform(0.2, 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const profit = rng.uniform(-0.03, 0.12);
  return weights.map((w) => {
    const f = 10 ** rng.pick([2, 2, 3, 4]);
    return Math.max(1.01, Math.round(((1 + profit) * sum) / w * f) / f);
  });
}

function leg(i: number, odds: number | null, prevOdds: number | null): Leg {
  return { subEventId: `s${i}`, bookmakerId: (i % 3) + 1, typeId: (i % 3) + 1, line: '', odds, prevOdds, updatedAt: NOW, initiator: i === 0 };
}

function randomItem(rng: Rng, n: number): Opportunity {
  const kind = rng.pick(['arbs', 'arbs', 'middles', 'valuebets'] as const);
  const service = kind === 'arbs' ? 'arbs_prematch' : kind === 'middles' ? 'middles_prematch' : 'valuebets_prematch';
  const masked = rng.chance(0.05);
  const odds =
    kind === 'arbs' ? arbOdds(rng, rng.pick([2, 2, 3])) : kind === 'middles' ? arbOdds(rng, 2) : [randomOdds(rng, 1.1, 12)];
  const probability = kind === 'valuebets' && rng.chance(0.8) ? rng.uniform(0.08, 0.95) : null;
  // The service's own figures: random, so nothing derived from the odds can agree with them by luck.
  const serviceFigure = () => (rng.chance(0.1) ? null : Math.round(rng.uniform(-10, 100) * 100) / 100);
  return {
    id: `i${n}`,
    service,
    kind,
    event: { id: `e${n}`, sportId: 1, league: 'League', team1: 'Home', team2: 'Away', startsAt: NOW + 3_600_000, live: false },
    legs: odds.map((o, i) => leg(i, masked ? null : o, null)),
    profit: kind === 'valuebets' ? null : serviceFigure(),
    middleProfit: kind === 'middles' ? serviceFigure() : null,
    // A valuebet without a probability derives it from the overvalue: keep that one usable (p ≤ 1).
    overvalue: kind === 'valuebets' ? (probability === null ? rng.uniform(-5, 40) : serviceFigure()) : null,
    probability,
    createdAt: NOW - 60_000,
    masked,
  };
}

/** The item a little later: some odds moved (by a tick or more), the service's figures moved at random. */
function movedItem(rng: Rng, item: Opportunity): Opportunity {
  const legs = item.legs.map((l) => {
    if (l.odds === null || rng.chance(0.4)) return l;
    const odds = Math.max(1.01, Math.round((l.odds + rng.pick([-0.1, -0.02, -0.01, -0.0004, 0.0004, 0.01, 0.03, 0.2])) * 10_000) / 10_000);
    return { ...l, odds, prevOdds: l.odds };
  });
  const jitter = (v: number | null) => (v === null ? null : v + rng.uniform(-1, 1));
  return { ...item, legs, profit: jitter(item.profit), middleProfit: jitter(item.middleProfit), overvalue: item.probability === null ? item.overvalue : jitter(item.overvalue) };
}

// ---------------------------------------------------------------------------------------------
// Reading the printed text back. Independent of the formatter: regular expressions over the text.

const unhtml = (html: string): string =>
  html
    .replace(/<\/?(b|i|s|code)>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** "+2.44%", "−4.28%", "0.00%" → number. */
function pct(text: string): number {
  const m = /^([+−]?)(\d+\.\d{2})%$/.exec(text);
  if (!m) throw new Error(`not a percentage: ${text}`);
  return (m[1] === '−' ? -1 : 1) * Number(m[2]);
}

/** "49", "102.90", "+2.00", "−4.45" → integer cents. */
function cents(text: string): number {
  const m = /^([+−]?)(\d+)(?:\.(\d{2}))?$/.exec(text);
  if (!m) throw new Error(`not money: ${text}`);
  return (m[1] === '−' ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3] ?? '0'));
}

/** Printed odds "2.10", "1.875" → integer thousandths. */
function milli(text: string): number {
  const m = /^(\d+)\.(\d{2,3})$/.exec(text);
  if (!m) throw new Error(`not odds: ${text}`);
  return Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0'));
}

/** stake (cents) × odds (thousandths), rounded to cents half up: exact integer arithmetic. */
const payoutCents = (stake: number, oddsMilli: number): number => Math.floor((stake * oddsMilli + 500) / 1000);

/** |printed − exact| within the printed rounding of a percentage (two decimals), plus float dust. */
function expectPct(printed: number, exact: number, what: string): void {
  expect(Math.abs(printed - exact), `${what}: printed ${printed}, from the odds ${exact}`).toBeLessThanOrEqual(0.005 + 1e-9);
}

interface Printed {
  headline: string;
  odds: number[];
  /** Per leg: the odds before the move when the leg says "(was X)". */
  was: (number | undefined)[];
  lines: string[];
}

function read(html: string): Printed {
  const text = unhtml(html);
  const lines = text.split('\n');
  const odds: number[] = [];
  const was: (number | undefined)[] = [];
  for (const line of lines) {
    // A leg may end with its odds' age (" · 0 s"), which is no number of the maths.
    const m = /^(\d+)\) \S+ · \S+ · (\d+\.\d+)(?: [▲▼] \(was (\d+\.\d+)\))?(?: · (?:⚠️ )?\d+ (?:s|min)(?: \d+ s)?)?$/.exec(line);
    if (!m) continue;
    odds.push(milli(m[2] ?? ''));
    was.push(m[3] === undefined ? undefined : milli(m[3]));
  }
  return { headline: lines[0] ?? '', odds, was, lines };
}

const inverseSum = (oddsMilli: number[]): number => oddsMilli.reduce((s, o) => s + 1000 / o, 0);

/** The headline numbers the odds give, as this test computes them. */
function expectedHeadline(kind: Opportunity['kind'], oddsMilli: number[], fairMilli?: number): number[] {
  const s = inverseSum(oddsMilli);
  if (kind === 'arbs') return [(1 / s - 1) * 100];
  if (kind === 'middles') return [(2 / s - 1) * 100, (1 / s - 1) * 100];
  return [((oddsMilli[0] ?? 0) / (fairMilli ?? 1) - 1) * 100];
}

const PCT = '([+−]?\\d+\\.\\d{2}%)';

/** The headline's numbers: "Arb +2.44%", "Middle: hit +91.44%, miss −4.28%", "Value bet +5.00%" (arrows allowed). */
function headlineNumbers(kind: Opportunity['kind'], headline: string): number[] | undefined {
  const arrow = '(?: [▲▼])?';
  const re =
    kind === 'middles'
      ? new RegExp(`Middle: hit ${PCT}${arrow}, miss ${PCT}${arrow}`)
      : new RegExp(`(?:Arb|Not an arb for you:|Value bet) ${PCT}${arrow}(?: ·|$)`);
  const m = re.exec(headline);
  return m ? m.slice(1).map((x) => pct(x ?? '')) : undefined;
}

/** Every check of the stakes block against the printed odds; returns the stakes and payouts for more checks. */
/**
 * The best guaranteed profit (cents) on the step grid within the bankroll and the smallest total
 * that gives it, by scanning every unit count of leg 1 (and, for 3 legs, of leg 2) and trying the
 * last leg's counts around where its return meets the others' smallest: W(u_last) rises (by
 * stake × (odds − 1)) while that leg pays least and falls after, so its best is there. Undefined
 * when the scan would be too long for a test (3 legs on a fine grid). Independent of the solver.
 */
function bestOnGrid(oddsMilli: number[], bankroll: number, step: number): { worst: number; total: number } | undefined {
  const maxU = Math.floor(bankroll / step);
  if (oddsMilli.length === 3 && maxU > 120) return undefined;
  let best: { worst: number; total: number } | undefined;
  const consider = (units: number[]) => {
    const st = units.map((u) => u * step);
    const t = st.reduce((a, b) => a + b, 0);
    if (t > bankroll || units.some((u) => u < 1)) return;
    const w = Math.min(...st.map((x, i) => payoutCents(x, oddsMilli[i] ?? 0))) - t;
    if (!best || w > best.worst || (w === best.worst && t < best.total)) best = { worst: w, total: t };
  };
  const last = oddsMilli.length - 1;
  const around = (fixed: number[]) => {
    const m = Math.min(...fixed.map((u, i) => payoutCents(u * step, oddsMilli[i] ?? 0)));
    const f = Math.floor((m * 1000) / ((oddsMilli[last] ?? 1) * step));
    for (let d = -1; d <= 2; d++) consider([...fixed, f + d]);
  };
  for (let u1 = 1; u1 <= maxU; u1++) {
    if (oddsMilli.length === 2) around([u1]);
    else for (let u2 = 1; u1 + u2 <= maxU; u2++) around([u1, u2]);
  }
  return best !== undefined && (best as { worst: number }).worst > 0 ? best : undefined;
}

function checkStakes(p: Printed, view: AlertView, kind: Opportunity['kind']): { stakes: number[]; payouts: number[] } | undefined {
  const titleAt = p.lines.findIndex((l) => l.startsWith('💰 Stakes'));
  if (titleAt < 0) return undefined;
  const title = p.lines[titleAt] ?? '';
  const bankroll = Math.round(view.bankroll * 100);
  const step = Math.round(view.roundingStep * 100);
  let stated: number;
  let over = false;
  // The amount is named as the bankroll (the views here are the user's own, not "Other amount").
  const plain = /^💰 Stakes for bankroll (\S+):$/.exec(title);
  // An arb's title says why the total is below the bankroll (no caps here: the steps); a middle's does not.
  const withTotal = kind === 'arbs'
    ? /^💰 Stakes for bankroll (\S+) \(total (\S+): (?:more on these steps would not guarantee more|the next step would not fit in it)\):$/.exec(title)
    : /^💰 Stakes for bankroll (\S+) \(total (\S+)\):$/.exec(title);
  const overTitle = /^💰 Stakes: (\S+) in total, more than bankroll (\S+) \(each stake is at least one rounding step\):$/.exec(title);
  if (plain) {
    expect(cents(plain[1] ?? '')).toBe(bankroll);
    stated = bankroll;
  } else if (withTotal) {
    expect(cents(withTotal[1] ?? '')).toBe(bankroll);
    stated = cents(withTotal[2] ?? '');
    expect(stated, 'a stated total differs from the bankroll').not.toBe(bankroll);
  } else if (overTitle) {
    expect(cents(overTitle[2] ?? '')).toBe(bankroll);
    stated = cents(overTitle[1] ?? '');
    over = true;
  } else {
    throw new Error(`unknown stakes title: ${title}`);
  }
  const stakes: number[] = [];
  const payouts: number[] = [];
  for (const line of p.lines.slice(titleAt + 1)) {
    const m = /^(\d+)\) \S+ (\S+) → (\S+)$/.exec(line);
    if (!m) break;
    stakes.push(cents(m[2] ?? ''));
    payouts.push(cents(m[3] ?? ''));
  }
  expect(stakes.length).toBe(p.odds.length);
  // returns = stake × odds, to the cent
  stakes.forEach((s, i) => expect(payouts[i], `return of leg ${i + 1}`).toBe(payoutCents(s, p.odds[i] ?? 0)));
  const total = stakes.reduce((a, b) => a + b, 0);
  // The title never contradicts the stakes under it, and the stakes stay within the bankroll.
  expect(total, 'Σ stakes vs the total the title states').toBe(stated);
  for (const s of stakes) {
    expect(s % step, 'a stake off the rounding step').toBe(0);
    expect(s).toBeGreaterThanOrEqual(step);
  }
  if (over) {
    expect(total).toBeGreaterThan(bankroll);
    expect(total).toBeLessThanOrEqual(bankroll + step);
    expect(stakes.length * step, 'over the bankroll although a step per leg fits').toBeGreaterThan(bankroll);
  } else {
    expect(total, 'Σ stakes over the bankroll').toBeLessThanOrEqual(bankroll);
  }
  if (kind === 'middles') {
    // A middle's split: each stake the ideal one rounded down or up to the step (or the one-step minimum).
    const s = inverseSum(p.odds);
    const ideal = p.odds.map((o) => (bankroll * 1000) / o / s / step);
    stakes.forEach((st, i) => {
      const u = st / step;
      const x = ideal[i] ?? 0;
      expect(u === Math.floor(x + 1e-9) || u === Math.ceil(x - 1e-9) || u === 1, `stake ${i + 1} is not a floor/ceil`).toBe(true);
    });
    // No floor/ceil split within the bankroll has a better worst case (when this one does not lose).
    const worst = Math.min(...payouts) - total;
    if (!over && worst >= 0) {
      const options = ideal.map((x) => [...new Set([Math.max(1, Math.floor(x + 1e-9)), Math.max(1, Math.ceil(x - 1e-9))])]);
      const combos = options.reduce<number[][]>((acc, opts) => acc.flatMap((c) => opts.map((o) => [...c, o])), [[]]);
      for (const units of combos) {
        const st = units.map((u) => u * step);
        const t = st.reduce((a, b) => a + b, 0);
        if (t > bankroll) continue;
        const w = Math.min(...st.map((x, i) => payoutCents(x, p.odds[i] ?? 0))) - t;
        expect(w, `split ${units.join('/')} has a better worst case than the printed one`).toBeLessThanOrEqual(worst);
      }
    }
  } else {
    expect(over, 'an arb never stakes more than the bankroll').toBe(false);
    const best = bestOnGrid(p.odds, bankroll, step);
    if (best) {
      const worst = Math.min(...payouts) - total;
      expect(worst, 'the printed worst case is the best there is on the grid').toBe(best.worst);
      expect(total, 'ties go to the smallest total').toBe(best.total);
    }
  }
  return { stakes, payouts };
}

function checkArbMaths(p: Printed, view: AlertView): void {
  const r = checkStakes(p, view, 'arbs');
  if (!r) {
    // No stakes printed: only because no stakes on the grid give a positive worst case, or a step each does not fit.
    const said = p.lines.some((l) => l.includes('No stakes on your steps and limits') || l.includes('bankroll is too small'));
    expect(said, 'an arb without stakes says why').toBe(true);
    if (p.lines.some((l) => l.includes('No stakes on your steps and limits'))) {
      expect(bestOnGrid(p.odds, Math.round(view.bankroll * 100), Math.round(view.roundingStep * 100)), 'a positive worst case exists').toBeUndefined();
    }
    return;
  }
  const total = r.stakes.reduce((a, b) => a + b, 0);
  const worstLine = p.lines.find((l) => l.startsWith('Worst case after rounding: '));
  const wm = /^Worst case after rounding: (\S+) \((\S+)\)$/.exec(worstLine ?? '');
  expect(wm, 'worst case line').not.toBeNull();
  const worst = Math.min(...r.payouts) - total;
  expect(cents(wm?.[1] ?? ''), 'worst case = min(returns) − Σ stakes').toBe(worst);
  expectPct(pct(wm?.[2] ?? ''), (worst / total) * 100, 'worst case %');
  const be = /^Break-even odds: (.*)$/.exec(p.lines.find((l) => l.startsWith('Break-even odds: ')) ?? '');
  expect(be, 'break-even line').not.toBeNull();
  const parts = (be?.[1] ?? '').split(' · ');
  const s = inverseSum(p.odds);
  // At the legs' precision: three decimals when a leg shows three, else two.
  const decimals = p.odds.some((o) => o % 10 !== 0) ? 3 : 2;
  parts.forEach((part, i) => {
    const m = /^(\d+)\) (\S+)$/.exec(part);
    expect(m).not.toBeNull();
    const others = s - 1000 / (p.odds[i] ?? 1);
    if (others >= 1) expect(m?.[2]).toBe('—');
    else {
      const exact = 1 / (1 - others);
      // rounded up at the legs' precision: never below the exact break-even, less than one unit above
      expect(m?.[2]?.split('.')[1]?.length, `break-even ${i + 1} decimals`).toBe(decimals);
      const printed = milli(m?.[2] ?? '') / 1000;
      expect(printed, `break-even ${i + 1} ≥ exact`).toBeGreaterThanOrEqual(exact - 1e-9);
      expect(printed - exact, `break-even ${i + 1} within one unit`).toBeLessThan(10 ** -decimals + 1e-9);
    }
  });
}

function checkMiddleMaths(p: Printed, view: AlertView): void {
  const r = checkStakes(p, view, 'middles');
  if (!r) return;
  const total = r.stakes.reduce((a, b) => a + b, 0);
  const hit = /^If the middle hits: (\S+) \((\S+)\)$/.exec(p.lines.find((l) => l.startsWith('If the middle hits')) ?? '');
  const miss = /^If it misses: (\S+) \((\S+)\)$/.exec(p.lines.find((l) => l.startsWith('If it misses')) ?? '');
  expect(hit).not.toBeNull();
  expect(miss).not.toBeNull();
  const hitCents = r.payouts.reduce((a, b) => a + b, 0) - total;
  const missCents = Math.min(...r.payouts) - total;
  expect(cents(hit?.[1] ?? ''), 'hit = Σ returns − Σ stakes').toBe(hitCents);
  expect(cents(miss?.[1] ?? ''), 'miss = min(returns) − Σ stakes').toBe(missCents);
  expectPct(pct(hit?.[2] ?? ''), (hitCents / total) * 100, 'hit %');
  expectPct(pct(miss?.[2] ?? ''), (missCents / total) * 100, 'miss %');
}

/** The valuebet's EV line; returns its printed fair odds (thousandths). */
function checkValuebetMaths(p: Printed, view: AlertView): number | undefined {
  const ev = /^📈 EV (\S+) · fair odds (\S+)$/.exec(p.lines.find((l) => l.startsWith('📈 EV')) ?? '');
  if (!ev) return undefined;
  const odds = p.odds[0] ?? 0;
  const fair = milli(ev[2] ?? '');
  expectPct(pct(ev[1] ?? ''), (odds / fair - 1) * 100, 'EV = odds / fair odds − 1');
  const prob = 1000 / fair;
  const b = odds / 1000 - 1;
  const kelly = Math.max(0, (b * prob - (1 - prob)) / b);
  const kellyLine = p.lines.find((l) => l.startsWith('Kelly')) ?? '';
  const step = view.roundingStep;
  if (kelly <= 0) {
    expect(kellyLine).toBe('Kelly: no stake, no edge at these odds');
    return fair;
  }
  const k = /^Kelly (\d+\.\d{2})% of bankroll · (?:¼ Kelly stake: (\S+) for bankroll \S+|¼ Kelly is below one rounding step)$/.exec(kellyLine);
  expect(k, `kelly line: ${kellyLine}`).not.toBeNull();
  expect(Math.abs(Number(k?.[1]) - kelly * 100), 'Kelly %').toBeLessThanOrEqual(0.005 + 1e-9);
  const quarter = (kelly / 4) * view.bankroll;
  const stake = k?.[2] === undefined ? 0 : cents(k[2]) / 100;
  // the quarter-Kelly stake is the nearest multiple of the step (either side of an exact half)
  expect(Math.abs(stake - quarter), 'quarter Kelly stake').toBeLessThanOrEqual(step / 2 + 1e-6);
  expect(Math.round(stake * 100) % Math.round(step * 100)).toBe(0);
  return fair;
}

// ---------------------------------------------------------------------------------------------

/** Every number (digits) in a text, in order: the English and the Russian text must print the same ones. */
const numbersOf = (text: string): string[] => unhtml(text).match(/\d+(?:\.\d+)?/g) ?? [];

describe('every printed number follows from the printed odds (seeded property test)', () => {
  it(`holds for ${CASES} random alerts, their edits, digest lines and cards`, { timeout: 120_000 }, () => {
    const rng = createRng(20260103, 'format-maths');
    const counts = { arbs: 0, middles: 0, valuebets: 0, masked: 0, edits: 0, overBankroll: 0, totalBelow: 0 };
    for (let n = 0; n < CASES; n++) {
      const item = randomItem(rng, n);
      const view: AlertView = {
        lang: 'en',
        timeZone: 'UTC',
        bankroll: rng.pick([10, 20, 37, 50, 100, 100, 250, 1000, 1234.5]),
        roundingStep: rng.pick([0.5, 1, 1, 5, 10]),
        now: NOW,
      };
      const ctx = `case ${n}: ${JSON.stringify({ kind: item.kind, odds: item.legs.map((l) => l.odds), bankroll: view.bankroll, step: view.roundingStep, p: item.probability, ov: item.overvalue })}`;
      const alert = formatAlert(item, names.en, view, { state: 'new' });
      const card = formatCard(item, names.en, view);
      const digest = unhtml(formatShortLine(item, names.en, view));
      const later = movedItem(rng, item);
      const edit = formatAlert(later, names.en, view, { state: 'moved', prev: item });
      try {
        if (item.masked) {
          counts.masked += 1;
          for (const text of [alert.text, card, digest, edit.text]) {
            const head = unhtml(text).split('\n')[0] ?? '';
            // A number with hidden odds is the service's, and says so.
            if (/\d/.test(head.replace(/ · .*/, ''))) expect(head).toMatch(/\(service's figures?\)/);
            expect(unhtml(text)).not.toMatch(/Stakes|Worst case|EV |Kelly/);
          }
          continue;
        }
        counts[item.kind] += 1;
        for (const html of [alert.text, card]) {
          const p = read(html);
          expect(p.odds.length).toBe(item.legs.length);
          let fair: number | undefined;
          if (item.kind === 'arbs') checkArbMaths(p, view);
          if (item.kind === 'middles') checkMiddleMaths(p, view);
          if (item.kind === 'valuebets') fair = checkValuebetMaths(p, view);
          const shown = headlineNumbers(item.kind, p.headline);
          if (item.kind === 'valuebets' && fair === undefined) {
            expect(shown, 'a valuebet headline number without its EV line').toBeUndefined();
          } else {
            expect(shown, `headline: ${p.headline}`).toBeDefined();
            const exact = expectedHeadline(item.kind, p.odds, fair);
            shown?.forEach((v, i) => expectPct(v, exact[i] ?? NaN, `headline number ${i + 1}`));
          }
          if (p.lines.some((l) => /^💰 Stakes: .* in total, more than/.test(l))) counts.overBankroll += 1;
          if (p.lines.some((l) => /^💰 Stakes for bankroll \S+ \(total/.test(l))) counts.totalBelow += 1;
        }
        // The digest line carries the alert's headline numbers (its message has no odds of its own).
        expect(headlineNumbers(item.kind, digest)).toEqual(headlineNumbers(item.kind, read(alert.text).headline));

        // The edit: its own maths from its own odds, and "Changed: A → B" from the odds before and after.
        const e = read(edit.text);
        if (item.kind === 'arbs') checkArbMaths(e, view);
        if (item.kind === 'middles') checkMiddleMaths(e, view);
        const fairNow = item.kind === 'valuebets' ? checkValuebetMaths(e, view) : undefined;
        const before = e.odds.map((o, i) => e.was[i] ?? o);
        const beforeItem = read(alert.text);
        expect(before, 'the odds an edit says it had are the alert\'s').toEqual(beforeItem.odds);
        const changed = e.lines.find((l) => l.startsWith('✏️ Changed: '));
        if (item.kind !== 'valuebets') {
          const nowNums = expectedHeadline(item.kind, e.odds);
          const beforeNums = expectedHeadline(item.kind, before);
          const labels = item.kind === 'middles' ? ['hit ', 'miss '] : [''];
          const printed = changed?.slice('✏️ Changed: '.length).split('; ') ?? [];
          for (const part of printed) {
            const i = labels.findIndex((l) => part.startsWith(l) && (l !== '' || !/^[a-z]/.test(part)));
            const m = new RegExp(`^${labels[i] ?? ''}${PCT} → ${PCT}$`).exec(part);
            expect(m, `changed part: ${part}`).not.toBeNull();
            expectPct(pct(m?.[1] ?? ''), beforeNums[i] ?? NaN, 'changed: before');
            expectPct(pct(m?.[2] ?? ''), nowNums[i] ?? NaN, 'changed: after');
            expect(m?.[1], 'a change that prints the same number').not.toBe(m?.[2]);
          }
          if (changed) counts.edits += 1;
        } else if (changed && fairNow !== undefined) {
          const m = new RegExp(`^✏️ Changed: ${PCT} → ${PCT}$`).exec(changed);
          expect(m).not.toBeNull();
          expectPct(pct(m?.[2] ?? ''), ((e.odds[0] ?? 0) / fairNow - 1) * 100, 'changed: after');
          counts.edits += 1;
        }

        // The Russian text prints the very same numbers.
        const ru = formatAlert(item, names.ru, { ...view, lang: 'ru' }, { state: 'new' });
        expect(numbersOf(ru.text)).toEqual(numbersOf(alert.text));
      } catch (err) {
        throw new Error(`${ctx}\n${unhtml(alert.text)}\n---\n${unhtml(edit.text)}\n${String(err)}`);
      }
    }
    // The generator reaches every case the checks are about.
    expect(counts.arbs).toBeGreaterThan(CASES / 4);
    expect(counts.middles).toBeGreaterThan(CASES / 8);
    expect(counts.valuebets).toBeGreaterThan(CASES / 8);
    expect(counts.masked).toBeGreaterThan(50);
    expect(counts.edits).toBeGreaterThan(CASES / 4);
    expect(counts.overBankroll).toBeGreaterThan(0);
    expect(counts.totalBelow).toBeGreaterThan(100);
  });
});
