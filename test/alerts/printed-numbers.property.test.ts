/**
 * Every printed number reproducible from the printed ones (issue 29, item 5; newcomer #14, #15): a
 * seeded generator builds random arbs — 2- and 3-way, back and lay legs, exchange commissions
 * (defaults by name and the user's own, with up to two decimals of a per cent), caps, minimums and
 * steps per bookmaker — and renders their TEXT as a user meets it: the alert, the /item card, the
 * ✏️ Leg limited cards ("1 150", "2 profit"), the hedge of a rejected leg ("2 0", then the odds the
 * user sends), the ledger's ❌ Refused answer, and the alert's edit after its odds move. The
 * numbers are then parsed back out of the text alone and recomputed with this file's own
 * arithmetic (integer cents, decimals as BigInt fractions), as a bettor with a calculator would:
 *
 * - the headline 1/Σ(1/o′) − 1 from the effective odds as printed ("1.61 → 1.5795", a lay's "→ 2.85263"
 *   read as 1 + 1/(2.85263 − 1)), to the printed two decimals;
 * - each return: a back leg stake × printed effective odds, to the cent exactly; a lay leg
 *   liability (lay stake × (L − 1)) + lay stake × (1 − printed commission);
 * - the total at risk against the title, the worst case and its %, each leg's "Profit if it wins";
 * - every break-even at the printed precision on the side the user can take: an alert's from the
 *   other legs' printed effective odds; a hedge's the lowest odds (three decimals) at which the
 *   hedge, staked to the cent, loses nothing — and the hedge stake and worst case at typed odds.
 */
import { describe, expect, it } from 'vitest';
import { alertStakes } from '../../src/alerts/alert-stakes.js';
import { formatAlert, formatCard, type AlertView } from '../../src/alerts/format.js';
import { hedgeResultText, refusedLegText, rejectedLegText } from '../../src/bot/ui/hedge-text.js';
import { refuse } from '../../src/ledger/actions.js';
import { makeLeg, type Position } from '../../src/ledger/model.js';
import { translator } from '../../src/locales/i18n.js';
import { createRng, type Rng } from '../../src/sandbox/prng.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import type { Leg, Opportunity } from '../../src/service/opportunity.js';
import { arbDictionaries, cents, near, pct, unhtml } from '../support/printed-text.js';
import type { BookSettings } from '../../src/store/book-settings.js';

const CASES = 1500;
const NOW = Date.UTC(2026, 0, 3, 10, 0);
const BOOKS: Record<number, string> = { 1: 'Alpha', 2: 'Beta', 3: 'Betfair Exchange', 4: 'Smarkets' };
const dicts = arbDictionaries(Object.fromEntries(Object.entries(BOOKS)));
const names = namesFor(dicts, 'en');
const t = translator('en');

// ---------------------------------------------------------------------------------------------
// The generator.

interface Case {
  item: Opportunity;
  view: AlertView;
}

const roundTo = (x: number, decimals: number): number => Math.round(x * 10 ** decimals) / 10 ** decimals;

function randomCase(rng: Rng, n: number): Case {
  const count = rng.chance(0.3) ? 3 : 2;
  const backLay = count === 2 && rng.chance(0.45);
  const margin = rng.uniform(-0.01, 0.07);
  const decimals = () => rng.pick([2, 2, 3]);
  let odds: number[];
  let bookIds: number[];
  if (backLay) {
    const b = roundTo(rng.uniform(1.4, 5), decimals());
    const denom = 1 - 1 / (1 + margin) + 1 / b;
    odds = [b, Math.max(1.02, roundTo(denom > 0 ? Math.min(1 / denom, b) : b, decimals()))];
    bookIds = [rng.pick([1, 2]), rng.pick([3, 4])];
  } else {
    const w = Array.from({ length: count }, () => rng.uniform(0.3, 1));
    const sum = w.reduce((x, y) => x + y, 0);
    odds = w.map((x) => Math.max(1.02, roundTo(((1 + margin) * sum) / x, decimals())));
    bookIds = rng.sample([1, 2, 3, 4], count);
  }
  const books: Record<string, BookSettings> = {};
  for (const id of bookIds) {
    const s: BookSettings = {};
    if (rng.chance(0.4)) s.commission = rng.pick([0, 1, 1.5, 2, 2.5, 3.25, 4.75, 5]);
    if (rng.chance(0.25)) s.max = rng.pick([20, 30, 50, 120, 300]);
    if (rng.chance(0.1)) s.min = rng.pick([2, 5]);
    if (rng.chance(0.2)) s.step = rng.pick([0.5, 1, 2, 5]);
    if (Object.keys(s).length > 0) books[String(id)] = s;
  }
  const legs: Leg[] = odds.map((o, i) => ({
    subEventId: `s${i}`,
    bookmakerId: bookIds[i] ?? 1,
    typeId: backLay && i === 1 ? 21 : i + 1,
    line: '',
    odds: o,
    prevOdds: null,
    updatedAt: NOW,
    initiator: i === 0,
  }));
  const item: Opportunity = {
    id: `p${n}`,
    service: 'arbs_prematch',
    kind: 'arbs',
    event: { id: `e${n}`, sportId: 1, league: 'L', team1: 'Home', team2: 'Away', startsAt: NOW + 3_600_000, live: false },
    legs,
    profit: null,
    middleProfit: null,
    overvalue: null,
    probability: null,
    createdAt: NOW - 60_000,
    masked: false,
  };
  const bankroll = rng.pick([50, 100, 300, 1000, 2500, 10_000]);
  return { item, view: { lang: 'en', timeZone: 'UTC', bankroll, roundingStep: rng.pick([0.5, 1, 5, 10]), now: NOW, books } };
}

// ---------------------------------------------------------------------------------------------
// The test's own arithmetic: decimals as exact fractions, money in integer cents.

/** A printed decimal as an exact fraction num / den. */
interface Dec {
  num: bigint;
  den: bigint;
}
function dec(text: string): Dec {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const frac = m[2] ?? '';
  return { num: BigInt(`${m[1]}${frac}`), den: 10n ** BigInt(frac.length) };
}
const float = (d: Dec): number => Number(d.num) / Number(d.den);
/** cents × num / den, rounded half up (non-negative). */
const mulCents = (cents: number, d: Dec): number => Number((2n * BigInt(cents) * d.num + d.den) / (2n * d.den));

/** One leg as its line prints it. */
interface LegText {
  book: string;
  odds: Dec;
  oddsText: string;
  /** The figure after "→" (a back's effective odds, a lay's zero-commission equivalent). */
  after: Dec | undefined;
  /** Hundredths of a per cent. */
  bp: number;
}
interface StakeText {
  lay: boolean;
  stake: number;
  liability: number;
  ret: number;
}

function legLines(lines: string[]): LegText[] {
  return lines.flatMap((line) => {
    // A leg may end with its odds' age (" · 0 s"), which is no number of the maths.
    const m = /^\d+\) (.+) · \S+ · (\d+\.\d+)(?: [▲▼] \(was \d+\.\d+\))?(?: → (\d+\.\d+) after (\d+(?:\.\d+)?)% commission)?(?: · (?:⚠️ )?\d+ (?:s|min)(?: \d+ s)?)?$/.exec(line);
    if (!m) return [];
    return [{ book: m[1] ?? '', odds: dec(m[2] ?? ''), oddsText: m[2] ?? '', after: m[3] ? dec(m[3]) : undefined, bp: Math.round(Number(m[4] ?? '0') * 100) }];
  });
}

function stakeLines(lines: string[], from: number): StakeText[] {
  const rows: StakeText[] = [];
  for (const line of lines.slice(from)) {
    const lay = /^\d+\) .+? lay (\S+) · liability (\S+)(?: \(capped\))? → (\S+)$/.exec(line);
    const back = /^\d+\) .+? (\d+(?:\.\d{2})?)(?: \(capped\))? → (\S+)$/.exec(line);
    if (lay) rows.push({ lay: true, stake: cents(lay[1] ?? ''), liability: cents(lay[2] ?? ''), ret: cents(lay[3] ?? '') });
    else if (back) rows.push({ lay: false, stake: cents(back[1] ?? ''), liability: cents(back[1] ?? ''), ret: cents(back[2] ?? '') });
    else break;
  }
  return rows;
}

/** A leg's effective odds from its printed line (and whether it is a lay, which its stake line says). */
function effective(l: LegText, lay: boolean): number {
  const shown = float(l.after ?? l.odds);
  return lay ? 1 + 1 / (shown - 1) : shown;
}

/** What a leg returns, from its printed stake, odds and commission. */
function legReturn(l: LegText, s: StakeText): number {
  if (!s.lay) return mulCents(s.stake, l.after ?? l.odds);
  const liability = mulCents(s.stake, { num: l.odds.num - l.odds.den, den: l.odds.den });
  expect(s.liability, 'liability = lay stake × (L − 1)').toBe(liability);
  return liability + mulCents(s.stake, { num: BigInt(10_000 - l.bp), den: 10_000n });
}

/** Checks a stakes block (alert, card or Leg limited card); returns its stake rows, or undefined when none is printed. */
function checkMaths(html: string, what: string): { legs: LegText[]; rows: StakeText[]; total: number } | undefined {
  const lines = unhtml(html).split('\n');
  const legs = legLines(lines);
  const titleAt = lines.findIndex((l) => l.startsWith('💰 Stakes'));
  const rows = titleAt < 0 ? [] : stakeLines(lines, titleAt + 1);
  const lays = legs.map((_, i) => rows[i]?.lay ?? /LayW1/.test(lines.find((l) => l.startsWith(`${i + 1}) `)) ?? ''));
  const eff = legs.map((l, i) => effective(l, lays[i] ?? false));
  const sumInv = eff.reduce((s, o) => s + 1 / o, 0);
  const head = /^⚖️ (?:Arb|Not an arb for you:) (\S+)(?: [▲▼])?(?: after commission)? · prematch$/.exec(lines[0] ?? '');
  expect(head, `${what}: headline ${lines[0]}`).not.toBeNull();
  near(pct(head?.[1] ?? ''), (1 / sumInv - 1) * 100, 0.005, `${what}: headline from the printed effective odds`);
  if (titleAt < 0) return undefined;
  expect(rows.length, `${what}: a stake line per leg`).toBe(legs.length);
  rows.forEach((r, i) => expect(r.ret, `${what}: return of leg ${i + 1}`).toBe(legReturn(legs[i] as LegText, r)));
  const total = rows.reduce((s, r) => s + r.liability, 0);
  const title = lines[titleAt] ?? '';
  const stated = /\(total (\S+?)[:)]/.exec(title);
  expect(stated ? cents(stated[1] ?? '') : cents(/bankroll (\S+?):?$/.exec(title.replace(/:$/, ''))?.[1] ?? ''), `${what}: total in the title`).toBe(total);
  const worst = Math.min(...rows.map((r) => r.ret)) - total;
  const wm = /^Worst case after rounding(?: and commission)?: (\S+) \((\S+)\)$/.exec(lines.find((l) => l.startsWith('Worst case')) ?? '');
  expect(wm, `${what}: worst case line`).not.toBeNull();
  expect(cents(wm?.[1] ?? ''), `${what}: worst = min(returns) − total`).toBe(worst);
  near(pct(wm?.[2] ?? ''), (worst / total) * 100, 0.005, `${what}: worst %`);
  const wins = /^Profit if it wins: (.*)$/.exec(lines.find((l) => l.startsWith('Profit if it wins')) ?? '');
  wins?.[1]?.split(' · ').forEach((part, i) => expect(cents(part.replace(/^\d+\) /, '')), `${what}: profit if ${i + 1} wins`).toBe((rows[i]?.ret ?? 0) - total));
  // break-even: from the other legs' printed effective odds, at the legs' precision, on the user's side
  const decimals = Math.max(...legs.map((l) => l.oddsText.split('.')[1]?.length ?? 2));
  const be = /^Break-even odds: (.*)$/.exec(lines.find((l) => l.startsWith('Break-even odds')) ?? '');
  expect(be, `${what}: break-even line`).not.toBeNull();
  be?.[1]?.split(' · ').forEach((part, i) => {
    const printed = part.replace(/^\d+\) /, '');
    const others = sumInv - 1 / (eff[i] ?? 1);
    if (others >= 1) return expect(printed).toBe('—');
    const needed = 1 / (1 - others);
    const c = (legs[i]?.bp ?? 0) / 10_000;
    const lay = lays[i] ?? false;
    const shown = lay ? 1 + (1 - c) / (needed - 1) : 1 + (needed - 1) / (1 - c);
    const f = 10 ** decimals;
    const expected = (lay ? Math.floor(shown * f + 1e-9) : Math.ceil(shown * f - 1e-9)) / f;
    expect(printed, `${what}: break-even ${i + 1} (${shown})`).toBe(expected.toFixed(decimals));
  });
  return { legs, rows, total };
}

/** A hedge at odds x for `covered` (cents) with `spent` at risk, staked to the cent: money at risk, lay stake, worst. */
function hedgeAtOdds(covered: number, spent: number, x: number, lay: boolean, bp: number): { money: number; stake: number; worst: number } {
  const xd = dec(x.toFixed(3));
  const c = { num: BigInt(10_000 - bp), den: 10_000n };
  const winsPerUnit = lay ? undefined : { num: (xd.num - xd.den) * c.num, den: xd.den * c.den };
  // back: the least stake s with s + s(x − 1)(1 − c) ≥ covered
  if (winsPerUnit) {
    let s = Math.max(0, Math.floor(covered / (1 + float(winsPerUnit))) - 2);
    while (s + mulCents(s, winsPerUnit) < covered) s += 1;
    return { money: s, stake: s, worst: covered - spent - s };
  }
  // lay: the least liability ℓ with ℓ + ℓ(1 − c)/(x − 1) ≥ covered (settled to the cent), staked as ⌈ℓ / (x − 1)⌉
  const perLiability = { num: c.num * xd.den, den: c.den * (xd.num - xd.den) };
  let l = Math.max(0, Math.floor(covered / (1 + float(perLiability))) - 2);
  while (l + mulCents(l, perLiability) < covered) l += 1;
  const stake = Number((BigInt(l) * xd.den + (xd.num - xd.den) - 1n) / (xd.num - xd.den));
  const money = mulCents(stake, { num: xd.num - xd.den, den: xd.den });
  const ret = money + mulCents(stake, c);
  return { money, stake, worst: Math.min(covered, ret) - spent - money };
}

/** The lowest (a lay: highest) three-decimal odds at which the hedge, staked to the cent, loses nothing. */
function hedgeBreakEven(covered: number, spent: number, lay: boolean, bp: number): number {
  const eff = 1 + spent / (covered - spent);
  const c = bp / 10_000;
  const exact = lay ? 1 + (1 - c) / (eff - 1) : 1 + (eff - 1) / (1 - c);
  let k = lay ? Math.floor(exact * 1000 + 1e-9) : Math.ceil(exact * 1000 - 1e-9);
  while (hedgeAtOdds(covered, spent, k / 1000, lay, bp).worst < 0) k += lay ? -1 : 1;
  return k / 1000;
}

const fmt3 = (x: number): string => {
  const s = x.toFixed(3);
  return s.endsWith('0') ? s.slice(0, -1) : s;
};

// ---------------------------------------------------------------------------------------------

describe('every printed number recomputes from the printed ones (seeded property test)', () => {
  it(`holds for ${CASES} random alerts, cards, Leg limited cards, hedges and ledger refusals`, { timeout: 180_000 }, () => {
    const rng = createRng(20261128, 'printed-numbers');
    const counts = { alerts: 0, commission: 0, lay: 0, legLimited: 0, profitOn: 0, hedges: 0, hedgeResults: 0, refusals: 0 };
    for (let n = 0; n < CASES; n++) {
      const c = randomCase(rng, n);
      const alert = formatAlert(c.item, names, c.view, { state: 'new' }).text;
      try {
        const shown = checkMaths(alert, 'alert');
        checkMaths(formatCard(c.item, names, c.view), 'card');
        // the alert's edit after its odds move
        const moved: Opportunity = { ...c.item, legs: c.item.legs.map((l) => (rng.chance(0.5) || l.odds === null ? l : { ...l, odds: roundTo(l.odds + rng.pick([-0.03, -0.01, 0.01, 0.02, 0.05]), 3) })) };
        checkMaths(formatAlert(moved, names, c.view, { state: 'moved', prev: c.item }).text, 'edit');
        if (!shown) continue;
        counts.alerts += 1;
        if (shown.legs.some((l) => l.bp > 0)) counts.commission += 1;
        if (shown.rows.some((r) => r.lay)) counts.lay += 1;
        const leg = rng.int(0, shown.rows.length - 1);
        // ✏️ Leg limited "N amount": a card with that leg fixed
        const row = shown.rows[leg] as StakeText;
        const amount = Math.max(0.01, Math.round((row.stake / 100) * rng.uniform(0.3, 1.1) * 100) / 100);
        const fixed = checkMaths(formatCard(c.item, names, { ...c.view, fixedLegs: { [leg]: amount } }), 'Leg limited card');
        if (fixed) {
          expect(fixed.rows[leg]?.stake, 'the fixed leg stakes what was typed').toBe(Math.round(amount * 100));
          counts.legLimited += 1;
        }
        // "N profit": all the profit on one leg
        if (checkMaths(formatCard(c.item, names, { ...c.view, profitOn: leg }), 'profit-on card')) counts.profitOn += 1;

        // "N 0": the leg rejected after the others were placed as the alert showed them
        const plan = alertStakes(c.item, names, c.view);
        if (!plan?.ok) continue;
        const bookmakers = c.item.legs.map((l) => names.bookmaker(l.bookmakerId));
        const rejected = rejectedLegText(t, plan, leg, bookmakers, '');
        const placedRows = shown.rows.filter((_, i) => i !== leg);
        const covered = Math.min(...placedRows.map((r) => r.ret));
        const spent = placedRows.reduce((s, r) => s + r.liability, 0);
        const bp = shown.legs[leg]?.bp ?? 0;
        if (covered <= spent) {
          expect(rejected, 'no break-even when the placed legs return less than they cost').toBeUndefined();
          continue;
        }
        const be = /the break-even odds to hedge it are (\d+\.\d+)\./.exec(unhtml(rejected ?? ''));
        expect(be, `hedge text: ${rejected}`).not.toBeNull();
        expect(be?.[1], 'the hedge break-even: the lowest odds at which the hedge loses nothing').toBe(fmt3(hedgeBreakEven(covered, spent, row.lay, bp)));
        counts.hedges += 1;
        // the odds the user sends, around the break-even
        const x = Math.max(1.01, roundTo(Number(be?.[1]) + rng.pick([-0.2, -0.01, -0.001, 0, 0.001, 0.05, 0.3]), 3));
        const result = unhtml(hedgeResultText(t, plan, leg, bookmakers[leg] ?? '', x, '') ?? '');
        const hm = /^Hedge leg \d+ \(.+\) at (\S+): (?:lay (\S+) · liability (\S+)|(\S+))\. Worst case after the hedge: (\S+?)( \(below the break-even (\S+): a loss\))?\.$/.exec(result);
        expect(hm, `hedge result: ${result}`).not.toBeNull();
        const mine = hedgeAtOdds(covered, spent, Number(hm?.[1]), row.lay, bp);
        expect(cents(hm?.[2] ?? hm?.[4] ?? ''), 'hedge stake').toBe(mine.stake);
        if (row.lay) expect(cents(hm?.[3] ?? ''), 'hedge liability').toBe(mine.money);
        expect(cents(hm?.[5] ?? ''), 'worst case after the hedge').toBe(mine.worst);
        expect(hm?.[6] !== undefined, '"below the break-even" exactly when it loses').toBe(mine.worst < 0);
        counts.hedgeResults += 1;

        // ✏️ Placed differently → ❌ Refused: the ledger's hedge, for back legs as typed (odds × stake)
        if (shown.rows.some((r) => r.lay)) continue;
        const typed = shown.rows.map((r, i) => ({ odds: roundTo(float(shown.legs[i]?.odds ?? dec('2')) + rng.pick([0, 0, -0.05, 0.05]), 2), stake: r.stake / 100 }));
        const position: Position = {
          id: '1', kind: 'arbs', service: 'arbs_prematch', itemId: c.item.id, eventId: 'e', sport: '', league: '', event: '', eventStart: null,
          placedAt: NOW, settledAt: null, currency: '', alertProfitPct: null, chatId: null, messageId: null, note: '',
          legs: typed.map((l, i) => makeLeg({ outcome: i, bookmaker: bookmakers[i] ?? '', odds: Math.max(1.01, l.odds), stake: l.stake, commission: (shown.legs[i]?.bp ?? 0) / 10_000 })),
        };
        const r = refuse(position, leg);
        if (!r?.hedge) continue;
        const open = r.position.legs.find((l) => l.status === 'open');
        const text = unhtml(refusedLegText(t, leg + 1, bookmakers[leg] ?? '', position.legs[leg]!, r.hedge, open?.stake ?? 0, ''));
        // recomputed from what the user typed ("Leg 1: 2.90 × 340 saved.") and the commissions the alert printed
        const pays = typed.map((l, i) => {
          if (i === leg) return Infinity;
          const o = dec(Math.max(1.01, l.odds).toFixed(2));
          const stake = Math.round(l.stake * 100);
          return stake + mulCents(stake, { num: (o.num - o.den) * BigInt(10_000 - (shown.legs[i]?.bp ?? 0)), den: o.den * 10_000n });
        });
        const cover = Math.min(...pays);
        const risk = typed.reduce((s, l, i) => (i === leg ? s : s + Math.round(l.stake * 100)), 0);
        if (cover <= risk) {
          expect(text).toContain('No hedge can bring the legs placed to break even');
          continue;
        }
        const rm = /To break even, the hedge needs odds of at least (\S+)\.\nAt (\S+) the hedge stake is (\S+) \(worst case then (\S+)\)\.$/.exec(text);
        expect(rm, `refusal: ${text}`).not.toBeNull();
        expect(rm?.[1], 'the ledger hedge break-even').toBe(fmt3(hedgeBreakEven(cover, risk, false, bp)));
        const atRefused = hedgeAtOdds(cover, risk, Number(rm?.[2]), false, bp);
        expect(cents(rm?.[3] ?? ''), 'the ledger hedge stake').toBe(atRefused.stake);
        expect(cents(rm?.[4] ?? ''), `the ledger hedge worst case (cover ${cover}, risk ${risk}, ${text})`).toBe(atRefused.worst);
        counts.refusals += 1;
      } catch (err) {
        throw new Error(`case ${n}: ${JSON.stringify({ odds: c.item.legs.map((l) => l.odds), lay: c.item.legs.map((l) => l.typeId === 21), books: c.view.books, bankroll: c.view.bankroll, step: c.view.roundingStep })}\n${unhtml(alert)}\n${String(err)}`);
      }
    }
    // The generator reaches every case the checks are about.
    expect(counts.alerts).toBeGreaterThan(CASES / 3);
    expect(counts.commission).toBeGreaterThan(CASES / 10);
    expect(counts.lay).toBeGreaterThan(CASES / 20);
    expect(counts.legLimited).toBeGreaterThan(CASES / 10);
    expect(counts.profitOn).toBeGreaterThan(CASES / 10);
    expect(counts.hedges).toBeGreaterThan(CASES / 10);
    expect(counts.hedgeResults).toBeGreaterThan(CASES / 10);
    expect(counts.refusals).toBeGreaterThan(CASES / 20);
  });
});
