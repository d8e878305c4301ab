/**
 * Which arbs a user who asked for `min_profit=0` should get once an exchange's commission is
 * counted. The sandbox serves a fifth of its arbs as a back at a bookmaker and the lay of the same
 * selection at an exchange, priced to the service's profit before commission; after the exchange's
 * usual commission a thin one loses money in every outcome, and the bot rightly sends no alert for
 * it (docs/maths.md, "Commission"). Such an item qualifies for neither side of the busy world; how
 * many there were, and how many alerts the poller (which knows no commission) sent for them, is
 * printed beside the figures.
 *
 * Worked out here from the formulas of docs/maths.md, not with the bot's code: a back leg at an
 * exchange has effective odds 1 + (o − 1)(1 − c), a lay at odds L 1 + (1 − c)/(L − 1), and the
 * arb's worst case is 1 / Σ 1/effective − 1. The world is sampled every SAMPLE_MS; an item counts
 * as worth alerting if any sample of it (its odds move) was at or above zero after commission, and
 * one that became so only after a move counts from that sample (`worthFrom`): its latency is from
 * when it became an arb for the user, not from its birth (up to SAMPLE_MS late, so its latency may
 * read up to that much short).
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

export interface CommissionWatch {
  /** Items seen with an exchange leg that never reached zero after commission. */
  losing(): Set<string>;
  /** Items with an exchange leg that reached zero after commission: the (sandbox) time of the first sample that saw it. */
  worthFrom(): ReadonlyMap<string, number>;
  stop(): void;
}

export function watchCommission(sandbox: Sandbox, services: readonly Service[]): CommissionWatch {
  const exchangeItems = new Set<string>();
  const worthIt = new Map<string, number>();
  const sample = () => {
    for (const service of services) {
      // What a reader of the service sees: each leg's bookmaker is its sub-event's.
      const envelope = sandbox.currentEnvelope(service);
      const bookmakerOf = new Map(envelope.events.flatMap((e) => e.sub_events.map((s) => [s.id, s.bookmaker_id] as const)));
      for (const item of envelope.items) {
        const legs = item.odds.map((o) => ({ bookmakerId: bookmakerOf.get(o.sub_event_id) ?? 0, typeId: o.type_id, odds: o.value }));
        if (!legs.some((l) => EXCHANGE_BOOKMAKERS.includes(l.bookmakerId))) continue;
        exchangeItems.add(item.id);
        if (!worthIt.has(item.id) && worstCaseAfterCommission(legs) >= 0) worthIt.set(item.id, Date.now());
      }
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    losing: () => new Set([...exchangeItems].filter((id) => !worthIt.has(id))),
    worthFrom: () => worthIt,
    stop: () => clearInterval(timer),
  };
}
