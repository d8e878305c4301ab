/**
 * An item's odds: drawn at its birth for a value in its kind's range (or the profit a test
 * injected) from the chances its event's market already has, on bookmakers not quoting those
 * outcomes for another item; then nudged a little at each move while its value stays within its
 * band. Deterministic given the item's own random stream and the event's quotes.
 */
import { coverMarket, middleMarket, type Outcome } from './catalog.js';
import { EXCHANGE_BOOKMAKERS, LAY_OF, TYPE } from './dictionaries.js';
import { arbProfit, oddsForProfit, round } from './pricing.js';
import { createRng, type Rng } from './prng.js';
import type { Kind } from '../service/services.js';
import { valuesOf } from './to-wire.js';
import { legKey, type SimEvent, type SimItem, type SimLeg } from './world-model.js';

/**
 * Legs (bookmakers, market, odds) for a new item of this service's kind, or `undefined` when the
 * market drawn has no free bookmaker left for some outcome on this event (the caller tries again).
 * Bookmakers already quoting an outcome for another alive item are not used for it, and the
 * market's chances are the event's (drawn by its first item), so prices never contradict.
 * `ordered`: the legs take `bookmakers` in their order (a test that chose them), not a random draw.
 */
export function priceItem(
  rng: Rng,
  kind: Kind,
  bookmakers: readonly number[],
  event: SimEvent,
  profit: number | undefined,
  at: number,
  ordered = false,
): { legs: SimLeg[]; probability: number } | undefined {
  const sport = event.sport;
  const market = kind === 'middles' ? middleMarket(rng, sport) : coverMarket(rng, sport);
  const pickedLeg = kind === 'valuebets' ? rng.int(0, market.length - 1) : -1;
  const outcomes = pickedLeg >= 0 ? [market[pickedLeg] as Outcome] : market;
  const books = freeBooks(ordered ? bookmakers : rng.sample(bookmakers, bookmakers.length), outcomes, event);
  if (!books) return undefined;
  const known = knownChances(event, market);
  let odds: number[];
  let probability = 0;
  if (kind === 'valuebets') {
    const target = profit ?? Math.min(30, 0.5 + rng.exp(4));
    if (known) {
      probability = round(known[pickedLeg] as number, 4);
      odds = [Math.max(1.01, round((1 + target / 100) / probability))];
    } else {
      const o = round(rng.uniform(1.4, 4.5));
      probability = Math.min(0.95, round((1 + target / 100) / o, 4));
      odds = [o];
      settleChances(rng, kind, event, market, { index: pickedLeg, p: probability });
    }
  } else {
    const q = known ?? settleChances(rng, kind, event, market);
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
  const layType = LAY_OF[back.typeId] ?? back.typeId;
  // One price per event, outcome and bookmaker: an exchange already laying this outcome for another item is not used.
  if (event.quotes.held.has(legKey(layType, back.line, exchange))) return undefined;
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
      typeId: layType,
      odds: lay,
      prev: lay,
      initiator: false,
    },
  ];
}

/** Takes the item's legs on the event (no other item may quote them until it goes). */
export function holdLegs(item: SimItem): void {
  for (const l of item.legs) item.event.quotes.held.set(legKey(l.typeId, l.line, l.bookmakerId), item.id);
}

/** Frees the legs a gone item held. */
export function releaseLegs(item: SimItem): void {
  const held = item.event.quotes.held;
  for (const l of item.legs) {
    const key = legKey(l.typeId, l.line, l.bookmakerId);
    if (held.get(key) === item.id) held.delete(key);
  }
}

/** A different bookmaker per outcome, each not quoting that outcome for another item; in random order. */
function freeBooks(order: readonly number[], outcomes: readonly Outcome[], event: SimEvent): number[] | undefined {
  const used = new Set<number>();
  const books: number[] = [];
  for (const o of outcomes) {
    const b = order.find((id) => !used.has(id) && !event.quotes.held.has(legKey(o.typeId, o.line, id)));
    if (b === undefined) return undefined;
    used.add(b);
    books.push(b);
  }
  return books;
}

/**
 * The match result's markets (1, X, 2, 1X, X2, 12) share one set of chances per event, home /
 * draw / away, so a "2" priced inside 1X–2 agrees with the same "2" inside 1–X–2; every other
 * market has its own (its outcomes never appear in another's).
 */
const RESULT_COVER: Readonly<Record<number, readonly [number, number, number]>> = {
  [TYPE.home]: [1, 0, 0],
  [TYPE.draw]: [0, 1, 0],
  [TYPE.away]: [0, 0, 1],
  [TYPE.homeOrDraw]: [1, 1, 0],
  [TYPE.drawOrAway]: [0, 1, 1],
  [TYPE.homeOrAway]: [1, 0, 1],
};
const RESULT_KEY = 'result';

const isResultMarket = (market: readonly Outcome[]): boolean => market.every((o) => RESULT_COVER[o.typeId] !== undefined);
const signatureOf = (market: readonly Outcome[]): string => market.map((o) => `${o.typeId}:${o.line}`).join(',');
const fromResult = (market: readonly Outcome[], result: readonly number[]): number[] =>
  market.map((o) => (RESULT_COVER[o.typeId] ?? [0, 0, 0]).reduce((s, covers, i) => s + covers * (result[i] ?? 0), 0));

/** The chances the event already gives this market's outcomes, if any. */
function knownChances(event: SimEvent, market: readonly Outcome[]): number[] | undefined {
  if (!isResultMarket(market)) return event.quotes.chances.get(signatureOf(market));
  const result = event.quotes.chances.get(RESULT_KEY);
  return result && fromResult(market, result);
}

/** Draws the market's chances (outcome `pinned.index` at `pinned.p` when given), records them on the event. */
function settleChances(rng: Rng, kind: Kind, event: SimEvent, market: readonly Outcome[], pinned?: { index: number; p: number }): number[] {
  if (!isResultMarket(market)) {
    const q = pinned ? chancesAround(rng, market.length, pinned.index, pinned.p) : drawChances(rng, kind, market.length);
    event.quotes.chances.set(signatureOf(market), q);
    return q;
  }
  let result: number[];
  const cover = pinned ? RESULT_COVER[market[pinned.index]?.typeId ?? -1] : undefined;
  if (pinned && cover) {
    // Home / draw / away with the pinned outcome's results summing to p, the others to 1 − p.
    const w = cover.map(() => rng.uniform(0.6, 1.4));
    const inside = w.reduce((s, x, i) => s + (cover[i] ? x : 0), 0);
    const outside = w.reduce((s, x, i) => s + (cover[i] ? 0 : x), 0);
    result = w.map((x, i) => (cover[i] ? (pinned.p * x) / inside : ((1 - pinned.p) * x) / outside));
  } else {
    result = drawChances(rng, kind, 3);
  }
  event.quotes.chances.set(RESULT_KEY, result);
  return fromResult(market, result);
}

/** The chances of a market's outcomes: near even for two (closer for a middle), weighted for three. */
function drawChances(rng: Rng, kind: Kind, count: number): number[] {
  if (count === 2) {
    const spread = kind === 'middles' ? 0.1 : 0.25;
    const q1 = rng.uniform(0.5 - spread, 0.5 + spread);
    return [q1, 1 - q1];
  }
  const w = Array.from({ length: count }, () => rng.uniform(0.6, 1.4));
  const sum = w.reduce((s, x) => s + x, 0);
  return w.map((x) => x / sum);
}

/** Chances with outcome `fixed` at `p` and the rest sharing 1 − p. */
function chancesAround(rng: Rng, count: number, fixed: number, p: number): number[] {
  const w = Array.from({ length: count }, (_, i) => (i === fixed ? 0 : rng.uniform(0.6, 1.4)));
  const sum = w.reduce((s, x) => s + x, 0);
  return w.map((x, i) => (i === fixed ? p : ((1 - p) * x) / sum));
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
