/**
 * The maths block of an alert or card, for the user's bankroll: stakes and returns, the worst case
 * and break-even odds of an arb, a middle's hit and miss, a valuebet's EV and Kelly stake. Every
 * figure is derived from the printed odds (see `printed.ts`); where they are hidden it says so.
 */
import { clipText, escapeHtml } from '../lib/html.js';
import { bookmakerName, type AlertView, type LineContext } from './alert-lines.js';
import { isHidden, legOdds, printedProbability } from './headline-figures.js';
import { fmtMoney, fmtOdds, fmtPct, fmtShare } from './printed.js';
import { arbStakes, middleOutcomes, valuebetMaths, type ArbStakes, type CannotCompute } from './stakes.js';

const withCurrency = (amount: string, view: AlertView): string =>
  view.currency ? `${amount} ${escapeHtml(clipText(view.currency, 8))}` : amount;

const cannot = (ctx: LineContext, r: CannotCompute): string => `<i>${ctx.t.cannotCompute[r.reason]}</i>`;

/** How many decimals the legs' odds are printed with: 2, or 3 when any leg needs a third. */
const oddsDecimals = (odds: readonly number[]): number => Math.max(2, ...odds.map((o) => fmtOdds(o).split('.')[1]?.length ?? 0));

/**
 * Break-even odds at the legs' own precision, so the line reads like the odds above it (1.97
 * beside 2.25, not 1.962), rounded up: just below them the leg loses, so the printed figure is
 * one the user can take.
 */
const fmtBreakEven = (value: number, decimals: number): string => {
  if (!Number.isFinite(value)) return '—';
  const f = 10 ** decimals;
  return (Math.ceil(value * f - 1e-9) / f).toFixed(decimals);
};

/** The maths for the user's bankroll: stakes, outcomes, break-even, EV and Kelly. */
export function mathsLines(ctx: LineContext): string[] {
  const { item, view, t } = ctx;
  if (item.legs.length === 0) return [];
  if (item.masked || item.legs.some((leg) => isHidden(item, leg))) return [t.maskedNote];
  const odds = legOdds(item) ?? [];
  const stakeLine = (i: number, stake: number, payout: number): string => {
    const leg = item.legs[i];
    const book = leg ? `${bookmakerName(ctx, leg)} ` : '';
    return `${i + 1}) ${book}${fmtMoney(stake, { whole: true })} → ${fmtMoney(payout)}`;
  };
  const money = (amount: number) => withCurrency(fmtMoney(amount, { whole: true }), view);
  // Every stake says what it is for: the bankroll, named, or the amount the user typed.
  const basis = view.otherAmount ? money(view.bankroll) : t.bankrollAmount(money(view.bankroll));
  const basisOver = view.otherAmount ? money(view.bankroll) : t.bankrollAmountOver(money(view.bankroll));
  const decimals = oddsDecimals(odds);
  // The title never claims a total the stakes below do not add up to.
  const title = (r: ArbStakes): string => {
    if (r.overBankroll) return t.stakesOverBankroll(basisOver, money(r.total));
    const sameCents = Math.round(r.total * 100) === Math.round(view.bankroll * 100);
    return sameCents ? t.stakesTitle(basis) : t.stakesTitleTotal(basis, money(r.total));
  };
  // Long arbs list as many stakes as legs were listed, then say how many more.
  const capped = <T>(values: T[], render: (v: T, i: number) => string): string[] => {
    const lines = values.slice(0, ctx.limits.legs).map(render);
    const more = values.length - ctx.limits.legs;
    return more > 0 ? [...lines, t.moreLegs(more)] : lines;
  };
  switch (item.kind) {
    case 'arbs': {
      const r = arbStakes(odds, view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const shownBreakEven = r.breakEven.slice(0, ctx.limits.legs).map((b, i) => `${i + 1}) ${fmtBreakEven(b, decimals)}`);
      if (r.breakEven.length > ctx.limits.legs) shownBreakEven.push('…');
      return [
        title(r),
        ...capped(r.stakes, (s, i) => stakeLine(i, s, r.payouts[i] ?? 0)),
        t.worstCase(fmtMoney(r.worstProfit, { signed: true }), fmtPct(r.worstProfitPct)),
        t.breakEven(shownBreakEven.join(' · ')),
      ];
    }
    case 'middles': {
      const [a, b] = odds;
      if (odds.length !== 2 || a === undefined || b === undefined) return [cannot(ctx, { ok: false, reason: 'invalid-odds' })];
      const r = middleOutcomes([a, b], view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      return [
        title(r.arb),
        ...capped(r.stakes, (s, i) => stakeLine(i, s, r.arb.payouts[i] ?? 0)),
        t.ifHit(fmtMoney(r.ifHit.profit, { signed: true }), fmtPct(r.ifHit.pct)),
        t.ifMiss(fmtMoney(r.ifMiss.profit, { signed: true }), fmtPct(r.ifMiss.pct)),
      ];
    }
    case 'valuebets': {
      const first = odds[0];
      if (first === undefined) return [cannot(ctx, { ok: false, reason: 'no-odds' })];
      const p = printedProbability(item, first);
      if (typeof p !== 'number') return [cannot(ctx, p)];
      const r = valuebetMaths(first, p, null, view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const kelly =
        r.kellyFraction <= 0
          ? t.kellyNoEdge
          : r.kellyStake > 0
            ? t.kelly(fmtShare(r.kellyFraction), `${money(r.kellyStake)} ${t.kellyForBankroll(money(view.bankroll))}`)
            : t.kellyBelowStep(fmtShare(r.kellyFraction));
      return [t.ev(fmtPct(r.evPct), fmtOdds(r.fairOdds)), kelly];
    }
  }
}
