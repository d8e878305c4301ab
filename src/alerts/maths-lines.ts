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
  // The title never claims a total the stakes below do not add up to.
  const title = (r: ArbStakes): string => {
    if (r.overBankroll) return t.stakesOverBankroll(money(view.bankroll), money(r.total));
    const sameCents = Math.round(r.total * 100) === Math.round(view.bankroll * 100);
    return sameCents ? t.stakesTitle(money(view.bankroll)) : t.stakesTitleTotal(money(view.bankroll), money(r.total));
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
      const shownBreakEven = r.breakEven.slice(0, ctx.limits.legs).map((b, i) => `${i + 1}) ${fmtOdds(b)}`);
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
            ? t.kelly(fmtShare(r.kellyFraction), money(r.kellyStake))
            : t.kellyBelowStep(fmtShare(r.kellyFraction));
      return [t.ev(fmtPct(r.evPct), fmtOdds(r.fairOdds)), kelly];
    }
  }
}
