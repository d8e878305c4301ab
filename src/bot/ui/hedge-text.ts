/**
 * The words of a hedge, as pure functions of the numbers, so the chat and the property test that
 * recomputes every printed figure (test/alerts/printed-numbers.property.test.ts) read one text:
 * "✏️ Leg limited" → "<leg> 0" (the break-even odds to hedge a rejected leg, then the hedge at the
 * odds the user sends) and "✏️ Placed differently" → ❌ Refused (the ledger's hedge).
 *
 * Every break-even printed here is the one the user can take: three decimals, rounded up for a
 * back hedge (down for a lay), and checked against the hedge as staked to the cent
 * (`shownHedgeBreakEven`), so at the printed odds the hedge never loses.
 */
import { displayedFor } from '../../alerts/leg-pricing.js';
import { fmtMoney, fmtOdds, withUnit } from '../../alerts/printed.js';
import { hedgeAt, hedgePlan, shownHedgeBreakEven, type HedgeAt, type HedgePlan } from '../../alerts/stake-modes.js';
import type { StakePlan } from '../../alerts/stake-solver.js';
import type { LedgerLeg } from '../../ledger/model.js';
import type { Hedge } from '../../ledger/settle.js';
import type { Translate } from '../../locales/i18n.js';

/** The hedge of leg `leg` of the alert's stakes: what the other legs cover and spend, and its break-even as printed. */
export function alertHedge(plan: StakePlan, leg: number): { hedge: HedgePlan; breakEven: number } | undefined {
  const rejected = plan.legs[leg];
  if (!rejected) return undefined;
  const hedge = hedgePlan(plan.legs.filter((_, i) => i !== leg), rejected);
  const breakEven = shownHedgeBreakEven(hedge, rejected);
  return Number.isFinite(breakEven) ? { hedge, breakEven } : undefined;
}

/** "❌ Leg 2 (Bwin) rejected … the break-even odds to hedge it are 1.91", or undefined when no hedge can break even. */
export function rejectedLegText(t: Translate, plan: StakePlan, leg: number, bookmakers: readonly string[], currency: string): string | undefined {
  const h = alertHedge(plan, leg);
  if (!h) return undefined;
  const placed = plan.legs
    .flatMap((l, i) => (i === leg ? [] : [`${i + 1}) ${bookmakers[i] ?? ''} ${withUnit(fmtMoney(l.stake, { whole: true }), currency)} @ ${fmtOdds(l.odds)}`]))
    .join(', ');
  return t('leg_rejected', { leg: leg + 1, book: bookmakers[leg] ?? '', placed, odds: fmtOdds(h.breakEven) });
}

/** "Hedge leg 2 (Bwin) at 1.98: 525.00. Worst case after the hedge: +19.50." for the odds the user sent. */
export function hedgeResultText(t: Translate, plan: StakePlan, leg: number, book: string, odds: number, currency: string): string | undefined {
  const rejected = plan.legs[leg];
  const h = alertHedge(plan, leg);
  const at: HedgeAt | undefined = rejected && h ? hedgeAt(h.hedge, odds, rejected) : undefined;
  if (!rejected || !h || !at) return undefined;
  const money = (x: number) => withUnit(fmtMoney(x), currency);
  const stake = rejected.lay ? t('hedge_lay_stake', { stake: money(at.stake), liability: money(at.liability) }) : money(at.stake);
  return t('hedge_result', {
    leg: leg + 1,
    book,
    odds: fmtOdds(odds),
    stake,
    worst: withUnit(fmtMoney(at.worstProfit, { signed: true }), currency),
    below: at.worstProfit < 0 ? t('hedge_below', { odds: fmtOdds(h.breakEven) }) : '',
  });
}

/** The ledger's hedge as the alerts' hedge maths read it: break-even as the bookmaker or exchange shows it. */
const ledgerHedgePlan = (hedge: Hedge, refused: LedgerLeg): HedgePlan => ({
  covered: hedge.cover,
  spent: hedge.spent,
  breakEvenOdds: displayedFor(hedge.breakEven, refused.lay, refused.commission),
});

/** A ledger hedge's break-even odds as printed (in /open too): on the user's side, checked as staked. */
export const ledgerHedgeBreakEven = (hedge: Hedge, refused: LedgerLeg): number => shownHedgeBreakEven(ledgerHedgePlan(hedge, refused), refused);

/**
 * The ledger's refused leg (`refused`, as it was placed) and its hedge: the break-even odds as the
 * bookmaker or exchange shows them, and the stake at the refused odds (`openStake`: what the open
 * hedge leg asks for).
 */
export function refusedLegText(t: Translate, n: number, book: string, refused: LedgerLeg, hedge: Hedge, openStake: number, currency: string): string {
  const signed = (x: number) => withUnit(fmtMoney(x, { signed: true }), currency);
  if (!Number.isFinite(hedge.breakEven)) return t('ledger_refused_no_hedge', { n, book, worst: signed(hedge.cover - hedge.spent) });
  const plan = ledgerHedgePlan(hedge, refused);
  const be = shownHedgeBreakEven(plan, refused);
  // The worst case of the hedge as it is staked (a lay: its lay stake's liability, to the cent).
  const at = hedgeAt(plan, refused.odds, refused);
  return t('ledger_refused', {
    n,
    book,
    be: fmtOdds(be),
    odds: fmtOdds(refused.odds),
    stake: withUnit(fmtMoney(openStake, { whole: true }), currency),
    worst: signed(at?.worstProfit ?? hedge.worst),
  });
}
