/** Hand-built opportunities for the diff and notifier tests. */
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Service } from '../../src/service/services.js';
import { kindOf } from '../../src/service/services.js';

/** An arb (or middle/valuebet by `service`) with the given legs' odds and headline number. */
export function opp(
  id: string,
  odds: (number | null)[] = [2.1, 2.05],
  profit: number | null = 2.35,
  service: Service = 'arbs_prematch',
  eventId = `e-${id}`,
): Opportunity {
  const kind = kindOf(service);
  return {
    id,
    service,
    kind,
    event: {
      id: eventId,
      sportId: 6,
      league: 'ATP Doha',
      team1: 'Player A',
      team2: 'Player B',
      startsAt: Date.UTC(2026, 0, 3, 12, 0),
      live: service.endsWith('_live'),
    },
    legs: odds.map((o, i) => ({
      subEventId: `s${i}`,
      bookmakerId: [7, 21, 39][i] ?? 7,
      typeId: i + 1,
      line: '',
      odds: o,
      prevOdds: null,
      updatedAt: undefined,
      initiator: i === 0,
    })),
    profit: kind === 'valuebets' ? null : profit,
    middleProfit: null,
    overvalue: kind === 'valuebets' ? profit : null,
    probability: null,
    createdAt: undefined,
    masked: false,
  };
}

/** The names the notifier tests' items (`opp`) need: two bookmakers, tennis, W1 and W2. */
export const DICTS: Dictionaries = {
  lang: 'en',
  bookmakers: { '7': 'Pinnacle', '21': '1XBet' },
  liveBookmakers: [],
  sports: { '6': 'Tennis' },
  oddsGroups: {},
  oddsSections: {},
  oddsTypes: { '1': { titleShort: 'W1', titleFull: 'Home win', lay: false, sectionId: 1 }, '2': { titleShort: 'W2', titleFull: 'Away win', lay: false, sectionId: 1 } },
  reflections: {},
};
