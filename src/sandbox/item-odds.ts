/**
 * An item's odds: drawn at its birth for a value in its kind's range (or the profit a test
 * injected), then nudged a little at each move while its value stays within its band. Pure given
 * the item's own random stream.
 */
import { coverMarket, middleMarket } from './catalog.js';
import { EXCHANGE_BOOKMAKERS, LAY_OF } from './dictionaries.js';
import { arbProfit, oddsForProfit, round } from './pricing.js';
import { createRng, type Rng } from './prng.js';
import type { Kind } from '../service/services.js';
import { valuesOf } from './to-wire.js';
import type { SimEvent, SimItem, SimLeg } from './world-model.js';

/** Legs (bookmakers, market, odds) for a new item of this service's kind. */
export function priceItem(
  rng: Rng,
  kind: Kind,
  bookmakers: readonly number[],
  event: SimEvent,
  profit: number | undefined,
  at: number,
): { legs: SimLeg[]; probability: number } {
  const sport = event.sport;
  const outcomes = kind === 'arbs' ? coverMarket(rng, sport) : kind === 'middles' ? middleMarket(rng, sport) : [rng.pick(coverMarket(rng, sport))];
  const books = rng.sample(bookmakers, outcomes.length);
  let odds: number[];
  let probability = 0;
  if (kind === 'valuebets') {
    const target = profit ?? Math.min(30, 0.5 + rng.exp(4));
    const o = round(rng.uniform(1.4, 4.5));
    probability = Math.min(0.95, round((1 + target / 100) / o, 4));
    odds = [o];
  } else {
    let q: number[];
    if (outcomes.length === 2) {
      const spread = kind === 'middles' ? 0.1 : 0.25;
      const q1 = rng.uniform(0.5 - spread, 0.5 + spread);
      q = [q1, 1 - q1];
    } else {
      const w = outcomes.map(() => rng.uniform(0.6, 1.4));
      const sum = w.reduce((s, x) => s + x, 0);
      q = w.map((x) => x / sum);
    }
    const target = profit ?? (kind === 'arbs' ? Math.min(12, 0.1 + rng.exp(1.4)) : rng.uniform(-3, 0.8));
    odds = oddsForProfit(q, target);
    // Rounding the odds can push a thin arb below zero: lengthen the longest leg until it pays.
    while (kind === 'arbs' && profit === undefined && arbProfit(odds) < 0.05) {
      const i = odds.indexOf(Math.max(...odds));
      odds[i] = round((odds[i] as number) + 0.01);
    }
  }
  const initiator = rng.int(0, outcomes.length - 1);
  const legs = outcomes.map((o, i): SimLeg => {
    const bookmakerId = books[i] as number;
    const sub = event.subEvents.get(bookmakerId);
    const leg = odds[i] as number;
    return {
      subEventId: sub?.id ?? `${event.id}-${bookmakerId}`,
      bookmakerId,
      typeId: o.typeId,
      line: o.line,
      odds: leg,
      prev: leg,
      updatedMs: at,
      initiator: i === initiator,
    };
  });
    // Injected items keep exactly the profit a test asked for; natural arbs may come as a back/lay pair.
  const pair = kind === 'arbs' && profit === undefined ? backLayPair(legs, bookmakers, event, arbProfit(odds)) : undefined;
  return { legs: pair ?? legs, probability };
}

/** Share of arbs that come as a back at a bookmaker and a lay of the same selection at an exchange. */
export const BACK_LAY_SHARE = 0.2;

/**
 * Some arbs as exchange bettors meet them: a back leg at a bookmaker and the lay of the same
 * selection at an exchange, with lay odds L such that the pair yields `profitPct` (no commission):
 * 1/b + 1 − 1/L = 1/(1 + p). Drawn from a stream of its own (named by the event and the odds), so
 * every other item of the world stays what it was. Undefined when the item stays as it is.
 */
function backLayPair(legs: SimLeg[], bookmakers: readonly number[], event: SimEvent, profitPct: number): SimLeg[] | undefined {
  const exchanges = EXCHANGE_BOOKMAKERS.filter((b) => bookmakers.includes(b));
  const back = legs.find((l) => LAY_OF[l.typeId] !== undefined && !EXCHANGE_BOOKMAKERS.includes(l.bookmakerId));
  if (exchanges.length === 0 || !back) return undefined;
  const rng = createRng(legs.length, `back-lay:${event.id}:${legs.map((l) => `${l.bookmakerId}@${l.odds}`).join(',')}`);
  if (!rng.chance(BACK_LAY_SHARE)) return undefined;
  const exchange = rng.pick(exchanges);
  const bookSum = 1 / (1 + profitPct / 100);
  const denominator = 1 - bookSum + 1 / back.odds;
  // Rounded down: lower lay odds only make the pair better for the layer.
  const lay = denominator > 0 ? Math.floor((1 / denominator) * 100) / 100 : 0;
  if (!(lay >= 1.02) || lay >= back.odds) return undefined;
  const sub = event.subEvents.get(exchange);
  return [
    { ...back, initiator: true },
    {
      ...back,
      subEventId: sub?.id ?? `${event.id}-${exchange}`,
      bookmakerId: exchange,
      typeId: LAY_OF[back.typeId] ?? back.typeId,
      odds: lay,
      prev: lay,
      initiator: false,
    },
  ];
}

/** One leg's odds change a little, keeping the item's value within its band; false when no step fits. */
export function moveItem(item: SimItem, at: number): boolean {
  const rng = item.rng;
  const leg = item.legs[rng.int(0, item.legs.length - 1)];
  if (!leg) return false;
  const step = rng.uniform(0.004, 0.025) * (rng.chance(0.5) ? 1 : -1);
  const old = leg.odds;
  for (const sign of [1, -1]) {
    let next = round(old * (1 + sign * step));
    if (Math.abs(next - old) < 0.01) next = round(old + 0.01 * Math.sign(sign * step));
    if (next < 1.01) continue;
    leg.odds = next;
    const v = valuesOf(item).value;
    if (v >= item.band.min && v <= item.band.max) {
      leg.prev = old;
      leg.updatedMs = at;
      return true;
    }
    leg.odds = old;
  }
  return false;
}
