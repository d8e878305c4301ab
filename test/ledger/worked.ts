/**
 * The worked ledger of stake-maths §5.2 (`ledger.mjs`) as positions: the arb 495 / 505, the 2.30
 * valuebet, the back/lay arb with 2 % commission, the half results, a void and a pending bet, with
 * closing lines that give the script's CLVs. Shared by the core, store and CSV tests.
 */
import { closeKey, makeLeg, positionSchema, type Close, type LedgerBook, type LedgerLeg, type LegResult, type Position } from '../../src/ledger/model.js';

const at = (date: string, hour: number): number => Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);

function leg(outcome: number, bookmaker: string, stake: number, odds: number, result: LegResult | null, extra: { lay?: boolean; commission?: number } = {}): LedgerLeg {
  return { ...makeLeg({ outcome, bookmaker, stake, odds, ...extra }), result };
}

function position(id: string, kind: Position['kind'], date: string, legs: LedgerLeg[], sport = 'Football'): Position {
  const settled = legs.every((l) => l.result !== null);
  return positionSchema.parse({
    id,
    kind,
    service: kind === 'valuebets' ? 'valuebets-prematch' : 'arbs-prematch',
    itemId: `item-${id}`,
    eventId: `ev-${id}`,
    sport,
    league: 'League',
    event: 'Home – Away',
    eventStart: at(date, 19),
    placedAt: at(date, 18),
    settledAt: settled ? at(date, 21) : null,
    currency: 'EUR',
    legs,
  });
}

/** CLV c (fraction) at odds o: the service's fair closing odds o / (1 + c). */
const fairClose = (o: number, c: number, date: string): Close => ({ odds: o, at: at(date, 18), fairOdds: o / (1 + c), market: null, index: 0 });

export function workedBook(): LedgerBook {
  const positions = [
    position('a1', 'arbs', '2026-11-02', [leg(0, 'Bet365', 495, 2.1, 'won'), leg(1, 'Pinnacle', 505, 2.05, 'lost')]),
    position('v1', 'valuebets', '2026-11-05', [leg(0, 'Unibet', 50, 2.3, 'lost')], 'Tennis'),
    position('b1', 'arbs', '2026-11-09', [leg(0, 'William Hill', 100, 2.2, 'lost'), leg(1, 'Betfair', 105.77, 2.1, 'won', { lay: true, commission: 0.02 })]),
    position('v2', 'valuebets', '2026-12-01', [leg(0, 'Bet365', 100, 1.9, 'half_won')]),
    position('v3', 'valuebets', '2026-12-03', [leg(0, 'Unibet', 60, 2.0, 'half_lost')]),
    position('v4', 'valuebets', '2026-12-04', [leg(0, 'Pinnacle', 80, 3.0, 'void')]),
    position('v5', 'valuebets', '2026-12-06', [leg(0, 'Bet365', 40, 2.5, null)]),
  ];
  const closes = new Map<string, Close>([
    // 3.1: closing 1.80 / 2.10, the bet on side B at 2.30.
    [closeKey('v1', 0), { odds: 2.1, at: at('2026-11-05', 18), fairOdds: null, market: [1.8, 2.1], index: 1 }],
    [closeKey('v2', 0), fairClose(1.9, 0.02, '2026-12-01')],
    [closeKey('v3', 0), fairClose(2.0, -0.015, '2026-12-03')],
    [closeKey('v4', 0), fairClose(3.0, 0.005, '2026-12-04')],
  ]);
  return { settings: { startBank: 2000, devig: 'multiplicative', digestAt: null, nextId: 8, currency: null }, positions, closes };
}
