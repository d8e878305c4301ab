/**
 * The maths block of an alert or card, for the user's bankroll: stakes and returns, the worst case
 * and break-even odds of an arb, a middle's hit and miss, a valuebet's EV and Kelly stake. Every
 * figure is derived from the printed odds (see `printed.ts`), each leg's effective odds (a lay leg
 * as a lay bet, the user's commission: leg-pricing.ts) and the user's settings per bookmaker; where
 * the odds are hidden it says so.
 */
import { clipText, escapeHtml } from '../lib/html.js';
import { bookmakerName, fmtCommission, pricingOf, type AlertView, type LineContext } from './alert-lines.js';
import { alertStakes, profitLeg } from './alert-stakes.js';
import { isHidden, pricedLegs, printedProbability, serviceMismatch } from './headline-figures.js';
import { commissionApplies, type PricedLeg } from './leg-pricing.js';
import { fmtMoney, fmtOdds, fmtPct, fmtShare } from './printed.js';
import type { SolvedLeg, StakePlan } from './stake-solver.js';
import { middleOutcomes, valuebetMaths, type ArbStakes, type CannotCompute } from './stakes.js';

const withCurrency = (amount: string, view: AlertView): string =>
  view.currency ? `${amount} ${escapeHtml(clipText(view.currency, 8))}` : amount;

const cannot = (ctx: LineContext, r: { reason: keyof LineContext['t']['cannotCompute'] }): string => `<i>${ctx.t.cannotCompute[r.reason]}</i>`;

/** "Betfair Exchange 5%" for each leg whose commission is an exchange default, once per bookmaker. */
function defaultCommissionNote(ctx: LineContext, legs: readonly PricedLeg[]): string[] {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const leg of legs) {
    if (!leg.commissionIsDefault) continue;
    const name = escapeHtml(clipText(leg.bookmaker, ctx.limits.bookmaker));
    if (seen.has(name)) continue;
    seen.add(name);
    parts.push(`${name} ${fmtCommission(leg.commission)}%`);
  }
  return parts.length > 0 ? [ctx.t.defaultCommission(parts.join(', '))] : [];
}

/** How many decimals the legs' odds are printed with: 2, or 3 when any leg needs a third. */
const oddsDecimals = (odds: readonly number[]): number => Math.max(2, ...odds.map((o) => fmtOdds(o).split('.')[1]?.length ?? 0));

/**
 * Break-even odds at the legs' own precision, so the line reads like the odds above it (1.97
 * beside 2.25, not 1.962), rounded toward the side the user can take: up for a back leg (just
 * below them it loses), down for a lay leg (just above them it loses).
 */
const fmtBreakEven = (value: number, decimals: number, lay: boolean): string => {
  if (!Number.isFinite(value)) return '—';
  const f = 10 ** decimals;
  const scaled = lay ? Math.floor(value * f + 1e-9) : Math.ceil(value * f - 1e-9);
  return (scaled / f).toFixed(decimals);
};

/** The maths for the user's bankroll: stakes, outcomes, break-even, EV and Kelly. */
export function mathsLines(ctx: LineContext): string[] {
  const { item, view, t } = ctx;
  if (item.legs.length === 0) return [];
  if (item.masked || item.legs.some((leg) => isHidden(item, leg))) return [t.maskedNote];
  const legs = pricedLegs(item, pricingOf(ctx));
  if (!legs) return [cannot(ctx, { reason: 'invalid-odds' })];
  const odds = legs.map((l) => l.effectiveOdds);
  const withCommission = commissionApplies(legs);
  const money = (amount: number) => withCurrency(fmtMoney(amount, { whole: true }), view);
  // Long arbs list as many stakes as legs were listed, then say how many more.
  const shortList = <T>(values: T[], render: (v: T, i: number) => string): string[] => {
    const lines = values.slice(0, ctx.limits.legs).map(render);
    const more = values.length - ctx.limits.legs;
    return more > 0 ? [...lines, t.moreLegs(more)] : lines;
  };
  const notes = defaultCommissionNote(ctx, legs);
  switch (item.kind) {
    case 'arbs': {
      const mismatch = serviceMismatch(item, pricingOf(ctx));
      const warn = mismatch ? [t.serviceMismatch(fmtPct(mismatch.service), fmtPct(mismatch.ours))] : [];
      const r = alertStakes(item, ctx.names, view, view.fixedLegs);
      if (!r) return [t.maskedNote];
      if (!r.ok) return [...warn, cannot(ctx, r), ...notes];
      const onLeg = Object.keys(view.fixedLegs ?? {}).length > 0 ? undefined : profitLeg(legs, view);
      return [...warn, ...arbLines(ctx, r, money, onLeg), ...notes];
    }
    case 'middles': {
      const [a, b] = odds;
      if (odds.length !== 2 || a === undefined || b === undefined) return [cannot(ctx, { reason: 'invalid-odds' })];
      const r = middleOutcomes([a, b], view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const line = (s: number, i: number): string => {
        const leg = item.legs[i];
        const book = leg ? `${bookmakerName(ctx, leg)} ` : '';
        return `${i + 1}) ${book}${money(s)} → ${fmtMoney(r.arb.payouts[i] ?? 0)}`;
      };
      return [
        middleTitle(ctx, r.arb, money),
        ...shortList(r.stakes, line),
        t.ifHit(withCurrency(fmtMoney(r.ifHit.profit, { signed: true }), view), fmtPct(r.ifHit.pct)),
        t.ifMiss(withCurrency(fmtMoney(r.ifMiss.profit, { signed: true }), view), fmtPct(r.ifMiss.pct)),
        ...(withCommission ? notes : []),
      ];
    }
    case 'valuebets': {
      const first = legs[0];
      if (first === undefined) return [cannot(ctx, { reason: 'no-odds' })];
      const p = printedProbability(item, first.odds);
      if (typeof p !== 'number') return [cannot(ctx, p)];
      const r = valuebetMaths(first.effectiveOdds, p, null, view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const kelly =
        r.kellyFraction <= 0
          ? t.kellyNoEdge
          : r.kellyStake > 0
            ? t.kelly(fmtShare(r.kellyFraction), `${money(r.kellyStake)} ${t.kellyForBankroll(money(view.bankroll))}`)
            : t.kellyBelowStep(fmtShare(r.kellyFraction));
      return [t.ev(fmtPct(r.evPct), fmtOdds(r.fairOdds)), kelly, ...notes];
    }
  }
}

/** A middle's title never claims a total the stakes below do not add up to. */
function middleTitle(ctx: LineContext, r: ArbStakes, money: (n: number) => string): string {
  const { t, view } = ctx;
  if (r.overBankroll) return t.stakesOverBankroll(stakeBasis(ctx, money, true), money(r.total));
  const basis = stakeBasis(ctx, money);
  const sameCents = Math.round(r.total * 100) === Math.round(view.bankroll * 100);
  return sameCents ? t.stakesTitle(basis) : t.stakesTitleTotal(basis, money(r.total));
}

/** What stakes are for: the bankroll, named ("bankroll 1000"), or the amount the user typed, as it is. */
function stakeBasis(ctx: LineContext, money: (n: number) => string, over = false): string {
  const { t, view } = ctx;
  if (view.otherAmount) return money(view.bankroll);
  return over ? t.bankrollAmountOver(money(view.bankroll)) : t.bankrollAmount(money(view.bankroll));
}

/** A leg's money at risk with one more step of its stake (a lay leg: its liability). */
const nextStepCost = (leg: SolvedLeg): number =>
  leg.lay ? Math.round((leg.stake + leg.step) * (leg.odds - 1) * 100) / 100 : leg.stake + leg.step;

/** An arb's stakes block from the exact solver: title, one line per leg, worst case, break-even odds. */
function arbLines(ctx: LineContext, r: StakePlan, money: (n: number) => string, onLeg: number | undefined): string[] {
  const { t, view, item } = ctx;
  // Why the stakes add up to less than the bankroll: the legs at their cap, a cap that sets the
  // size although its leg sits under it (a step there pays less), else the steps themselves.
  const capped = r.legs.flatMap((leg, i) => {
    const source = item.legs[i];
    if (!source || leg.max === undefined) return [];
    if (leg.capped) return [t.cappedAt(bookmakerName(ctx, source), money(leg.max))];
    return r.limitedBy.includes(i) ? [t.maxLimits(bookmakerName(ctx, source), money(leg.max))] : [];
  });
  const nextFits = r.legs.some((leg) => r.total - leg.liability + nextStepCost(leg) <= view.bankroll + 1e-9);
  const basis = stakeBasis(ctx, money);
  const sameCents = Math.round(r.total * 100) === Math.round(view.bankroll * 100);
  const fixed = Object.entries(view.fixedLegs ?? {}).flatMap(([i, amount]) => {
    const source = item.legs[Number(i)];
    return source ? [t.fixedAt(Number(i) + 1, bookmakerName(ctx, source), money(amount))] : [];
  });
  const profitSource = onLeg === undefined ? undefined : item.legs[onLeg];
  const title = fixed.length > 0
    ? t.stakesTitleFixed(basis, money(r.total), fixed.join(', '))
    : profitSource && onLeg !== undefined
    ? t.stakesTitleProfitOn(basis, money(r.total), `${onLeg + 1}) ${bookmakerName(ctx, profitSource)}`)
    : sameCents
    ? t.stakesTitle(basis)
    : t.stakesTitleCapped(basis, money(r.total), capped.length > 0 ? capped.join(', ') : t.stepsLimit(nextFits));
  const lines = r.legs.slice(0, ctx.limits.legs).map((leg, i) => {
    const source = item.legs[i];
    const book = source ? bookmakerName(ctx, source) : '';
    const stake = withCurrency(fmtMoney(leg.stake, { whole: true }), ctx.view);
    const payout = fmtMoney(leg.payout);
    return leg.lay
      ? t.layStakeLine(i + 1, book, stake, withCurrency(fmtMoney(leg.liability, { whole: true }), ctx.view), payout, leg.capped)
      : t.stakeLine(i + 1, book, stake, payout, leg.capped);
  });
  const more = r.legs.length - ctx.limits.legs;
  if (more > 0) lines.push(t.moreLegs(more));
  const withCommission = r.legs.some((l) => l.commission > 0);
  const worst = (withCommission ? t.worstCaseCommission : t.worstCase)(withCurrency(fmtMoney(r.worstProfit, { signed: true }), ctx.view), fmtPct(r.worstProfitPct));
  const decimals = oddsDecimals(r.legs.map((l) => l.odds));
  const shownBreakEven = r.breakEven.slice(0, ctx.limits.legs).map((b, i) => `${i + 1}) ${fmtBreakEven(b, decimals, r.legs[i]?.lay ?? false)}`);
  if (r.breakEven.length > ctx.limits.legs) shownBreakEven.push('…');
  // With the profit on one leg the outcomes differ: each is said.
  const outcomes =
    onLeg === undefined
      ? []
      : [t.ifLegWins(r.legs.slice(0, ctx.limits.legs).map((l, i) => `${i + 1}) ${withCurrency(fmtMoney(Math.round(l.payout * 100) / 100 - r.total, { signed: true }), ctx.view)}`).join(' · '))];
  return [title, ...lines, ...outcomes, worst, t.breakEven(shownBreakEven.join(' · '))];
}

export type { CannotCompute };
