/**
 * What a leg is really worth to the user: the odds the bookmaker or exchange shows, whether it is a
 * lay bet (the dictionaries mark lay odds types), the user's commission at that bookmaker (an
 * exchange's default until the user sets their own), and the effective odds every formula uses.
 *
 * A back bet at o with commission c on winnings returns 1 + (o − 1)(1 − c) per unit staked. A lay
 * bet at L is a back bet on "not this selection" whose stake is the liability ℓ(L − 1) and whose
 * winnings are the lay stake ℓ less commission: effective odds 1 + (1 − c)/(L − 1). With those, a
 * back/lay arb is an ordinary arb of effective odds (stake-maths.md §2.1), and nothing downstream
 * needs to know which legs are lay bets except to print them as the exchange shows them.
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Leg } from '../service/opportunity.js';
import type { BookSettings } from '../store/book-settings.js';

/**
 * Exchanges' usual commission on net winnings, matched on the dictionary's bookmaker name (both
 * languages keep the brand). Betfair's sportsbook is a bookmaker, not the exchange. Every default
 * is only a guess at the user's account (discounts, tiers, countries): the alert says so.
 */
const EXCHANGE_DEFAULTS: { match: RegExp; commissionPct: number }[] = [
  { match: /betfair(?!.*sportsbook)/i, commissionPct: 5 },
  { match: /smarkets/i, commissionPct: 2 },
  { match: /matchbook/i, commissionPct: 2 },
  { match: /betdaq/i, commissionPct: 2 },
];

/** The default commission % of a bookmaker by its dictionary name: an exchange's usual rate, else 0. */
export function defaultCommissionPct(bookmakerName: string): number {
  return EXCHANGE_DEFAULTS.find((d) => d.match.test(bookmakerName))?.commissionPct ?? 0;
}

/** True when the name is one of the exchanges with a default commission. */
export const isKnownExchange = (bookmakerName: string): boolean => EXCHANGE_DEFAULTS.some((d) => d.match.test(bookmakerName));

/**
 * Effective odds of a back bet at `odds` with commission `c` (a fraction) on winnings. With odds as
 * printed (three decimals at most) and a commission as printed (two decimals of a per cent) the
 * value ends within seven decimals: it is printed in full, so stake × these odds is the return to
 * the cent. The rounding only removes float noise (0.61 × 0.95 = 0.5794999…).
 */
export function effectiveBackOdds(odds: number, c: number): number {
  return Number((1 + (odds - 1) * (1 - c)).toFixed(9));
}

/** How many decimals a lay leg's zero-commission equivalent is printed with (it rarely ends). */
export const LAY_EQUIVALENT_DECIMALS = 5;

/**
 * The lay odds with no commission that pay what a lay at `odds` with commission `c` pays:
 * (L − c)/(1 − c), as printed after "→" (five decimals). The lay's effective odds are taken from
 * this printed figure, so the headline and break-even odds recompute from the message.
 */
export function layEquivalent(odds: number, c: number): number {
  return c === 0 ? odds : Number(((odds - c) / (1 - c)).toFixed(LAY_EQUIVALENT_DECIMALS));
}

/**
 * Effective odds of a lay bet at `odds` with commission `c`: a back of "not this selection", stake =
 * liability, 1 + (1 − c)/(L − 1) = 1 + 1/(L′ − 1) with L′ the printed equivalent above.
 */
export function effectiveLayOdds(odds: number, c: number): number {
  return 1 + 1 / (layEquivalent(odds, c) - 1);
}

/** Effective odds of a leg, as every printed figure uses them (the printed lay equivalent for a lay leg). */
export const effectiveOdds = (odds: number, lay: boolean, c: number): number =>
  lay ? effectiveLayOdds(odds, c) : effectiveBackOdds(odds, c);

/**
 * What a unit of money at risk really returns, unrounded (a lay: 1 + (1 − c)/(L − 1)): the stake
 * solver's bounds use it, since a pruning bound must hold for the settled amounts themselves.
 */
export const settledOdds = (odds: number, lay: boolean, c: number): number =>
  lay ? 1 + (1 - c) / (odds - 1) : 1 + (odds - 1) * (1 - c);

/**
 * The figure printed after a leg's odds when a commission applies: a back leg's effective odds in
 * full, a lay leg's zero-commission equivalent to five decimals; two decimals at least.
 */
export function shownAfterCommission(odds: number, lay: boolean, c: number): string {
  const value = lay ? layEquivalent(odds, c) : effectiveBackOdds(odds, c);
  const s = value.toFixed(lay ? LAY_EQUIVALENT_DECIMALS : 7);
  return s.replace(/(\.\d\d\d*?)0+$/, '$1');
}

/**
 * The displayed odds at which a leg's effective odds would be `effective` (inverse of
 * `effectiveOdds`): used to print break-even odds as the bookmaker or exchange would show them.
 * For a lay leg that is the highest lay odds that still break even. Infinity when none would do.
 */
export function displayedFor(effective: number, lay: boolean, c: number): number {
  if (!Number.isFinite(effective) || effective <= 1) return Number.POSITIVE_INFINITY;
  if (lay) return 1 + (1 - c) / (effective - 1);
  return c >= 1 ? Number.POSITIVE_INFINITY : 1 + (effective - 1) / (1 - c);
}

/** One leg as the maths see it. */
export interface PricedLeg {
  bookmakerId: number | undefined;
  /** The dictionary's name, unescaped. */
  bookmaker: string;
  /** Odds as the bookmaker or exchange shows them (as printed). */
  odds: number;
  lay: boolean;
  /** Commission on net winnings, a fraction (0.05 = 5 %). */
  commission: number;
  /** True when `commission` is an exchange default the user has not confirmed. */
  commissionIsDefault: boolean;
  effectiveOdds: number;
}

/** Is this leg a lay bet: the leg's own flag when the service gave one, else its odds type's. */
export function isLayLeg(leg: Leg, names: Pick<Names, 'oddsType'>): boolean {
  return leg.lay ?? names.oddsType(leg.typeId)?.lay ?? false;
}

/** The commission (fraction) for a bookmaker: the user's setting, else the exchange default by name. */
export function commissionFor(
  bookmakerId: number | undefined,
  bookmakerName: string,
  books: Readonly<Record<string, BookSettings>> | undefined,
): { commission: number; isDefault: boolean } {
  const own = bookmakerId === undefined ? undefined : books?.[String(bookmakerId)]?.commission;
  // As printed ("2.35%"): two decimals of a per cent, so every figure follows from the message.
  if (own !== undefined) return { commission: Math.round(own * 100) / 10_000, isDefault: false };
  const pct = defaultCommissionPct(bookmakerName);
  return { commission: pct / 100, isDefault: pct > 0 };
}

/**
 * Every leg priced, from odds already as printed (`odds[i]` for `legs[i]`). Legs whose lay odds
 * are 1 or less cannot be priced (a lay at 1.00 has no liability to win with): undefined then.
 */
export function priceLegs(
  legs: readonly Leg[],
  odds: readonly number[],
  names: Pick<Names, 'oddsType' | 'bookmaker'>,
  books: Readonly<Record<string, BookSettings>> | undefined,
): PricedLeg[] | undefined {
  const out: PricedLeg[] = [];
  for (const [i, leg] of legs.entries()) {
    const o = odds[i];
    if (o === undefined || !Number.isFinite(o) || o <= 1) return undefined;
    const lay = isLayLeg(leg, names);
    const name = names.bookmaker(leg.bookmakerId);
    const { commission, isDefault } = commissionFor(leg.bookmakerId, name, books);
    const effective = effectiveOdds(o, lay, commission);
    if (!Number.isFinite(effective) || effective <= 1) return undefined;
    out.push({ bookmakerId: leg.bookmakerId, bookmaker: name, odds: o, lay, commission, commissionIsDefault: isDefault, effectiveOdds: effective });
  }
  return out;
}

/** True when commission changed at least one leg's odds. */
export const commissionApplies = (legs: readonly PricedLeg[]): boolean => legs.some((l) => l.commission > 0);
