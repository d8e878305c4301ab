/**
 * What an item's numbers are: the headline figure(s) computed from the printed odds when every
 * leg's odds are shown (the service's own figures, labelled so, only when they are hidden), which
 * of them moved since the last version, and which leg of the last version a leg is.
 *
 * The figures use each leg's effective odds (leg-pricing.ts): a lay leg as the lay bet it is, and
 * the user's commission on winnings. `afterCommission` says when a commission changed them.
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Leg, Opportunity } from '../service/opportunity.js';
import { isLive } from '../service/services.js';
import type { AlertTexts } from './alert-texts.js';
import type { BookSettings } from '../store/book-settings.js';
import { commissionApplies, effectiveLayOdds, isLayLeg, priceLegs, type PricedLeg } from './leg-pricing.js';
import { fmtPct, printedOdds } from './printed.js';
import { arbProfitPct, middleIdealPct, valuebetProbability, type CannotCompute } from './stakes.js';

/** What pricing a leg needs besides the item: the dictionaries' names and the user's bookmaker settings. */
export interface Pricing {
  names: Pick<Names, 'oddsType' | 'bookmaker'>;
  books?: Readonly<Record<string, BookSettings>> | undefined;
}

/** Every leg priced from its printed odds, or undefined when any odds are hidden or unusable. */
export function pricedLegs(item: Opportunity, pricing: Pricing): PricedLeg[] | undefined {
  const odds = legOdds(item);
  return odds ? priceLegs(item.legs, odds, pricing.names, pricing.books) : undefined;
}

/** A number from the service worth showing: masked envelopes send zeros, which mean "hidden". */
export function shown(value: number | null, item: Opportunity): number | undefined {
  if (value === null || !Number.isFinite(value)) return undefined;
  if (item.masked && value === 0) return undefined;
  return value;
}

/** Every leg's odds as printed, or undefined when any is hidden. */
export function legOdds(item: Opportunity): number[] | undefined {
  if (item.legs.length === 0) return undefined;
  const odds: number[] = [];
  for (const leg of item.legs) {
    if (leg.odds === null || (item.masked && leg.odds === 0)) return undefined;
    odds.push(printedOdds(leg.odds));
  }
  return odds;
}

/**
 * A valuebet's probability as its alert prints it: 1 / the fair odds shown (the service's
 * probability, else the one its overvalue implies, rounded as fair odds are printed).
 */
export function printedProbability(item: Opportunity, odds: number): number | CannotCompute {
  const p = valuebetProbability(odds, item.probability, shown(item.overvalue, item) ?? null);
  return typeof p === 'number' ? 1 / printedOdds(1 / p) : p;
}

/** Live by the event's flag or by the service it came from (a live service's items are live). */
export const isLiveItem = (item: Opportunity): boolean => item.event.live || isLive(item.service);

export const isHidden = (item: Opportunity, leg: Leg): boolean => leg.odds === null || (item.masked && leg.odds === 0);

export interface Metric {
  /** "hit"/"miss" for middles; empty when the kind has one number. */
  label: string;
  value: number | undefined;
}

/** The headline number(s) and where they come from. */
export interface Metrics {
  /** 'odds': computed from the odds the message prints; 'service': the service's figures (odds hidden). */
  source: 'odds' | 'service';
  values: Metric[];
  /** True when a commission changed the figures (the headline then says "after commission"). */
  afterCommission: boolean;
}

/**
 * The headline number(s), computed from the printed odds whenever they are all shown (arbs:
 * 1/Σ(1/o) − 1; middles: hit 2/Σ(1/o) − 1 and miss 1/Σ(1/o) − 1; valuebets: odds / fair odds − 1);
 * the service's own figures only when the odds are hidden.
 */
export function metrics(item: Opportunity, t: AlertTexts, pricing: Pricing): Metrics {
  const legs = pricedLegs(item, pricing);
  const odds = legs?.map((l) => l.effectiveOdds);
  const afterCommission = legs !== undefined && commissionApplies(legs);
  const fromOdds = (values: Metric[]): Metrics => ({ source: 'odds', values, afterCommission });
  const fromService = (values: Metric[]): Metrics => ({ source: 'service', values, afterCommission: false });
  switch (item.kind) {
    case 'arbs': {
      const value = odds ? arbProfitPct(odds) : undefined;
      if (value !== undefined) return fromOdds([{ label: '', value }]);
      return fromService([{ label: '', value: shown(item.profit, item) }]);
    }
    case 'middles': {
      const ideal = odds?.length === 2 ? middleIdealPct([odds[0] ?? 0, odds[1] ?? 0]) : undefined;
      if (ideal) return fromOdds([{ label: t.hitWord, value: ideal.hit }, { label: t.missWord, value: ideal.miss }]);
      return fromService([
        { label: t.serviceValueWord, value: shown(item.profit, item) },
        { label: t.serviceMiddleWord, value: shown(item.middleProfit, item) },
      ]);
    }
    case 'valuebets': {
      const first = legs?.[0];
      // The probability comes from the odds the service priced (as shown); the bet pays the effective odds.
      const p = first === undefined ? undefined : printedProbability(item, first.odds);
      if (first !== undefined && typeof p === 'number') return fromOdds([{ label: '', value: (first.effectiveOdds * p - 1) * 100 }]);
      return fromService([{ label: '', value: shown(item.overvalue, item) }]);
    }
  }
}

/**
 * The arb's profit % from the printed odds before the user's commission (lay legs read as lay
 * bets), when the service gave its own figure and the two disagree by more than the service's
 * rounding: a misread market (a lay leg taken for a back bet says +87 % where the service says
 * +1.15 %). Either convention of the service's figure is accepted (1/Σ − 1 or 1 − Σ).
 */
export function serviceMismatch(item: Opportunity, pricing: Pricing): { ours: number; service: number } | undefined {
  if (item.kind !== 'arbs') return undefined;
  const service = shown(item.profit, item);
  const odds = legOdds(item);
  if (service === undefined || !odds) return undefined;
  // Before commission: each leg's printed odds, a lay leg as a back of "not this selection".
  const sumInv = item.legs.reduce((s, leg, i) => {
    const o = odds[i] ?? 1;
    return s + 1 / (isLayLeg(leg, pricing.names) ? effectiveLayOdds(o, 0) : o);
  }, 0);
  if (!Number.isFinite(sumInv) || sumInv <= 0) return undefined;
  const ours = (1 / sumInv - 1) * 100;
  const alt = (1 - sumInv) * 100;
  // The service's own rounding (from its decimals), plus what printing the odds to 3 decimals moves.
  const decimals = (String(service).split('.')[1] ?? '').length;
  const tolerance = 0.5 * 10 ** -Math.min(decimals, 6) + 0.05;
  if (Math.abs(ours - service) <= tolerance || Math.abs(alt - service) <= tolerance) return undefined;
  return { ours, service };
}

/** A headline number moved when its printed value changed (never "+2.35% → +2.35%"). */
export const moved = (now: number | undefined, before: number | undefined): boolean =>
  now !== undefined && before !== undefined && fmtPct(now) !== fmtPct(before);

export const arrow = (now: number, before: number): string => (now > before ? '▲' : '▼');

/** The previous version of `leg`: same position when it is the same market, else found by key. */
export function matchLeg(prev: Opportunity, leg: Leg, index: number): Leg | undefined {
  const same = (l: Leg | undefined): l is Leg =>
    l !== undefined && l.subEventId === leg.subEventId && l.typeId === leg.typeId && l.line === leg.line;
  const at = prev.legs[index];
  if (same(at)) return at;
  return prev.legs.find(same);
}

/** The earlier headline numbers to compare with, when they come from the same source as now. */
export function comparable(now: Metrics, prev: Opportunity | undefined, t: AlertTexts, pricing: Pricing): Metrics | undefined {
  const before = prev ? metrics(prev, t, pricing) : undefined;
  return before?.source === now.source ? before : undefined;
}
