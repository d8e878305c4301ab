/**
 * Which arbs a user of the busy world (default settings: bankroll 100, stakes in whole units, lay
 * stakes to the cent, the exchanges' usual commission, `min_profit=0`) should be alerted to: those
 * on which some stakes on that grid, within the bankroll, win money in every outcome. The bot sends
 * no alert for any other (issue 31: never a push for what is no arb for the user; docs/maths.md,
 * "Commission" and "Rounding"): a fifth of the sandbox's arbs are a back at a bookmaker and the lay
 * at an exchange priced to the service's profit before commission, which a thin one loses after it;
 * and a thin arb of any kind may have no whole-unit stakes within 100 that win in every outcome.
 * Such an item qualifies for neither side; how many there were, and how many alerts the poller
 * (which knows neither) sent for them, is printed beside the figures.
 *
 * Worked out here from the formulas of docs/maths.md, not with the bot's code: a back leg of u units
 * costs u and wins round(u (o − 1)(1 − c)); a lay leg of u cents (its backer's stake) risks
 * round(u (L − 1)) and wins round(u (1 − c)); the best worst case is searched over every grid point
 * of the other legs, the last leg set where its two sides cross (`bestWorstCents`). The world is
 * sampled every SAMPLE_MS; an item counts as worth alerting if any sample of it (its odds move) had
 * a positive best worst case, and one that became so only after a move counts from that move
 * (`worthFrom`, timed by the world's own log, not by the sample that found it): its latency is from
 * when it became an arb for the user, not from its birth. One that was an arb from its birth counts
 * from its appearance (timing it by its first sample would read every latency up to SAMPLE_MS short).
 */
import type { Sandbox } from '../../src/sandbox/index.js';
import { EXCHANGE_BOOKMAKERS, isLayType } from '../../src/sandbox/dictionaries.js';
import type { Service } from '../../src/service/services.js';

/** The exchanges' usual commission on winnings (the sandbox's Betfair Exchange 5 %, Matchbook 2 %). */
const COMMISSION: Readonly<Record<number, number>> = { 31: 0.05, 40: 0.02 };
const SAMPLE_MS = 250;

interface Leg {
  bookmakerId: number;
  typeId: number;
  odds: number;
}

/** The worst case of an arb's legs after commission, as a fraction (0.01 = +1 %). */
export function worstCaseAfterCommission(legs: readonly Leg[]): number {
  let inverse = 0;
  for (const leg of legs) {
    const c = EXCHANGE_BOOKMAKERS.includes(leg.bookmakerId) ? (COMMISSION[leg.bookmakerId] ?? 0) : 0;
    const effective = isLayType(leg.typeId) ? 1 + (1 - c) / (leg.odds - 1) : 1 + (leg.odds - 1) * (1 - c);
    inverse += 1 / effective;
  }
  return 1 / inverse - 1;
}

/** The busy world's users: the bot's defaults (bankroll 100, step 1; a lay leg's stake to the cent). */
const BANKROLL_CENTS = 10_000;
const BACK_STEP_CENTS = 100;
const LAY_STEP_CENTS = 1;

interface GridLeg {
  cost(u: number): number;
  win(u: number): number;
  /** The most units the bankroll buys. */
  hi: number;
}

function gridLeg(leg: Leg): GridLeg {
  const c = EXCHANGE_BOOKMAKERS.includes(leg.bookmakerId) ? (COMMISSION[leg.bookmakerId] ?? 0) : 0;
  const lay = isLayType(leg.typeId);
  const step = lay ? LAY_STEP_CENTS : BACK_STEP_CENTS;
  const cost = lay ? (u: number) => Math.round(u * step * (leg.odds - 1)) : (u: number) => u * step;
  const win = lay ? (u: number) => Math.round(u * step * (1 - c)) : (u: number) => Math.round(u * step * (leg.odds - 1) * (1 - c));
  let hi = Math.floor(BANKROLL_CENTS / (lay ? step * (leg.odds - 1) : step)) + 1;
  while (hi > 0 && cost(hi) > BANKROLL_CENTS) hi -= 1;
  return { cost, win, hi };
}

/**
 * The best worst case, in cents, of stakes on the grid within the bankroll (−Infinity when none
 * fit). The legs before the last are enumerated; the last one's worst case is the lesser of its
 * own winnings less the others' stakes (rising with its units) and the others' least return less
 * everything staked (falling), so its best units are where the two cross, found by bisection.
 */
export function bestWorstCents(legs: readonly Leg[]): number {
  // The finest grid (a lay leg's cents) last, so that it is the one solved rather than enumerated.
  const grid = legs.map(gridLeg).sort((a, b) => a.hi - b.hi);
  const last = grid.pop();
  if (!last) return Number.NEGATIVE_INFINITY;
  let best = Number.NEGATIVE_INFINITY;
  const walk = (i: number, spent: number, leastPay: number): void => {
    if (i < grid.length) {
      const leg = grid[i]!;
      for (let u = 1; u <= leg.hi && spent + leg.cost(u) <= BANKROLL_CENTS; u++) walk(i + 1, spent + leg.cost(u), Math.min(leastPay, leg.cost(u) + leg.win(u)));
      return;
    }
    const worst = (u: number) => Math.min(last.win(u) - spent, leastPay - spent - last.cost(u));
    let lo = 1;
    let hi = last.hi;
    while (hi >= lo && spent + last.cost(hi) > BANKROLL_CENTS) hi -= 1;
    if (hi < lo) return;
    // The first units at which the rising side reaches the falling one.
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (last.win(mid) - spent >= leastPay - spent - last.cost(mid)) hi = mid;
      else lo = mid + 1;
    }
    best = Math.max(best, worst(lo), lo > 1 ? worst(lo - 1) : Number.NEGATIVE_INFINITY);
  };
  walk(0, 0, Number.POSITIVE_INFINITY);
  return best;
}

export interface CommissionWatch {
  /** Items never seen with stakes on the users' grid that win in every outcome. */
  losing(): Set<string>;
  /** Items that had such stakes only after a move: the (sandbox) time of that move. */
  worthFrom(): ReadonlyMap<string, number>;
  stop(): void;
}

export function watchCommission(sandbox: Pick<Sandbox, 'currentEnvelope' | 'world'>, services: readonly Service[]): CommissionWatch {
  const seen = new Set<string>();
  const worthIt = new Set<string>();
  const worthFrom = new Map<string, number>();
  /** Odds move every 15–40 s: each set of legs is searched once. */
  const verdicts = new Map<string, boolean>();
  const sample = () => {
    const now = Date.now();
    for (const service of services) {
      // What a reader of the service sees: each leg's bookmaker is its sub-event's.
      const envelope = sandbox.currentEnvelope(service);
      const bookmakerOf = new Map(envelope.events.flatMap((e) => e.sub_events.map((s) => [s.id, s.bookmaker_id] as const)));
      for (const item of envelope.items) {
        const legs = item.odds.map((o) => ({ bookmakerId: bookmakerOf.get(o.sub_event_id) ?? 0, typeId: o.type_id, odds: o.value }));
        const firstSight = !seen.has(item.id);
        seen.add(item.id);
        if (worthIt.has(item.id)) continue;
        const key = JSON.stringify(legs);
        let worth = verdicts.get(key);
        if (worth === undefined) {
          worth = worstCaseAfterCommission(legs) >= 0 && bestWorstCents(legs) > 0;
          verdicts.set(key, worth);
        }
        if (!worth) continue;
        worthIt.add(item.id);
        // An arb for the user from its birth counts from its appearance; one made so by a move, from that move.
        if (!firstSight) {
          const moves = sandbox.world.changes(now - 10 * SAMPLE_MS, service).filter((c) => c.id === item.id && c.at <= now);
          worthFrom.set(item.id, moves[moves.length - 1]?.at ?? now);
        }
      }
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    losing: () => new Set([...seen].filter((id) => !worthIt.has(id))),
    worthFrom: () => worthFrom,
    stop: () => clearInterval(timer),
  };
}
