/**
 * What an item's numbers are: the headline figure(s) computed from the printed odds when every
 * leg's odds are shown (the service's own figures, labelled so, only when they are hidden), which
 * of them moved since the last version, and which leg of the last version a leg is.
 */
import type { Leg, Opportunity } from '../service/opportunity.js';
import { isLive } from '../service/services.js';
import type { AlertTexts } from './alert-texts.js';
import { fmtPct, printedOdds } from './printed.js';
import { arbProfitPct, middleIdealPct, valuebetProbability, type CannotCompute } from './stakes.js';

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
}

/**
 * The headline number(s), computed from the printed odds whenever they are all shown (arbs:
 * 1/Σ(1/o) − 1; middles: hit 2/Σ(1/o) − 1 and miss 1/Σ(1/o) − 1; valuebets: odds / fair odds − 1);
 * the service's own figures only when the odds are hidden.
 */
export function metrics(item: Opportunity, t: AlertTexts): Metrics {
  const odds = legOdds(item);
  switch (item.kind) {
    case 'arbs': {
      const value = odds ? arbProfitPct(odds) : undefined;
      if (value !== undefined) return { source: 'odds', values: [{ label: '', value }] };
      return { source: 'service', values: [{ label: '', value: shown(item.profit, item) }] };
    }
    case 'middles': {
      const ideal = odds?.length === 2 ? middleIdealPct([odds[0] ?? 0, odds[1] ?? 0]) : undefined;
      if (ideal) {
        return { source: 'odds', values: [{ label: t.hitWord, value: ideal.hit }, { label: t.missWord, value: ideal.miss }] };
      }
      return {
        source: 'service',
        values: [
          { label: t.serviceValueWord, value: shown(item.profit, item) },
          { label: t.serviceMiddleWord, value: shown(item.middleProfit, item) },
        ],
      };
    }
    case 'valuebets': {
      const first = odds?.[0];
      const p = first === undefined ? undefined : printedProbability(item, first);
      if (first !== undefined && typeof p === 'number') {
        return { source: 'odds', values: [{ label: '', value: (first * p - 1) * 100 }] };
      }
      return { source: 'service', values: [{ label: '', value: shown(item.overvalue, item) }] };
    }
  }
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
export function comparable(now: Metrics, prev: Opportunity | undefined, t: AlertTexts): Metrics | undefined {
  const before = prev ? metrics(prev, t) : undefined;
  return before?.source === now.source ? before : undefined;
}
