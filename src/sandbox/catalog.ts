/**
 * What the world is made of: sports with their leagues, teams and markets. A market is a set of
 * outcomes (odds type + line); `coverMarket` returns outcomes that together cover every result
 * (what an arb needs), `middleMarket` two outcomes that can both win (what a middle needs).
 */
import { TYPE } from './dictionaries.js';
import type { Rng } from './prng.js';

/** One outcome of a market: the dictionary odds type and the line ('' when none). */
export interface Outcome {
  typeId: number;
  line: string;
}

interface League {
  name: string;
  teams: readonly string[];
}

/** The shape of one sport's markets and calendar. */
export interface SportProfile {
  id: number;
  /** Relative share of events of this sport. */
  weight: number;
  leagues: readonly League[];
  /** True when a draw is a result (three-way markets exist). */
  draw: boolean;
  /** Handicap lines (absolute, half lines so that two sides cover every result). */
  handicaps: readonly number[];
  /** Total lines: half lines from `min` to `max` in steps of 1. */
  totals: { min: number; max: number };
  /** Team total lines, or null when the sport has none in the world. */
  teamTotals: { min: number; max: number } | null;
  /** Gaps between the two lines of a middle. */
  middleGaps: readonly number[];
  bothScore: boolean;
  oddEven: boolean;
  /** Odds groups its items name (the first is the whole match). */
  groups: readonly number[];
  /** How long a live event runs, ms. */
  liveDurationMs: number;
}

const MIN = 60_000;

const FOOTBALL: League[] = [
  {
    name: 'England. Premier League',
    teams: ['Arsenal', 'Chelsea', 'Liverpool', 'Manchester City', 'Manchester United', 'Tottenham', 'Newcastle', 'Aston Villa'],
  },
  { name: 'Spain. LaLiga', teams: ['Real Madrid', 'Barcelona', 'Atletico Madrid', 'Sevilla', 'Valencia', 'Real Sociedad', 'Villarreal'] },
  { name: 'Germany. Bundesliga', teams: ['Bayern Munich', 'Borussia Dortmund', 'RB Leipzig', 'Bayer Leverkusen', 'Stuttgart', 'Wolfsburg'] },
  { name: 'Italy. Serie A', teams: ['Inter', 'Milan', 'Juventus', 'Napoli', 'Roma', 'Lazio', 'Atalanta', 'Fiorentina'] },
  { name: 'Russia. Premier League', teams: ['Zenit', 'Spartak Moscow', 'CSKA Moscow', 'Lokomotiv Moscow', 'Krasnodar', 'Dynamo Moscow'] },
];

const HOCKEY: League[] = [
  { name: 'NHL', teams: ['Boston Bruins', 'Toronto Maple Leafs', 'New York Rangers', 'Edmonton Oilers', 'Colorado Avalanche', 'Florida Panthers'] },
  { name: 'KHL', teams: ['SKA St. Petersburg', 'CSKA Moscow', 'Ak Bars Kazan', 'Metallurg Magnitogorsk', 'Avangard Omsk', 'Dynamo Moscow'] },
];

const BASKETBALL: League[] = [
  { name: 'NBA', teams: ['Boston Celtics', 'Denver Nuggets', 'Los Angeles Lakers', 'Golden State Warriors', 'Milwaukee Bucks', 'Miami Heat'] },
  { name: 'Euroleague', teams: ['Real Madrid', 'Fenerbahce', 'Olympiacos', 'Panathinaikos', 'Barcelona', 'Maccabi Tel Aviv'] },
];

const TENNIS: League[] = [
  { name: 'ATP. Australian Open', teams: ['J. Sinner', 'C. Alcaraz', 'N. Djokovic', 'A. Zverev', 'D. Medvedev', 'T. Fritz', 'A. Rublev'] },
  { name: 'WTA. Brisbane', teams: ['A. Sabalenka', 'I. Swiatek', 'C. Gauff', 'E. Rybakina', 'J. Pegula', 'M. Andreeva', 'Q. Zheng'] },
];

const VOLLEYBALL: League[] = [
  { name: 'Italy. SuperLega', teams: ['Perugia', 'Trentino', 'Lube Civitanova', 'Modena', 'Piacenza', 'Milano'] },
];

const HANDBALL: League[] = [
  { name: 'EHF Champions League', teams: ['Barcelona', 'Veszprem', 'Kiel', 'Aalborg', 'Paris Saint-Germain', 'Magdeburg'] },
];

const TABLE_TENNIS: League[] = [
  { name: 'Setka Cup', teams: ['A. Ivanov', 'D. Petrov', 'S. Smirnov', 'V. Kuznetsov', 'M. Popov', 'I. Sokolov', 'P. Lebedev'] },
];

const ESPORTS: League[] = [
  { name: 'CS2. IEM Katowice', teams: ['Natus Vincere', 'FaZe Clan', 'Team Vitality', 'G2 Esports', 'Team Spirit', 'MOUZ'] },
  { name: 'Dota 2. DreamLeague', teams: ['Team Liquid', 'Gaimin Gladiators', 'Tundra Esports', 'Team Falcons', 'BetBoom Team', 'Xtreme Gaming'] },
];

const FUTSAL: League[] = [
  { name: 'Russia. Futsal Superleague', teams: ['Sinara', 'Gazprom-Ugra', 'Norilsky Nickel', 'KPRF', 'Tyumen', 'Novaya Generatsiya'] },
  { name: 'Spain. Primera Division', teams: ['Barca', 'ElPozo Murcia', 'Movistar Inter', 'Palma Futsal', 'Jaen', 'Valdepenas'] },
];

/** The sports the world plays, with their shares and markets. */
export const SPORT_PROFILES: readonly SportProfile[] = [
  {
    id: 1, weight: 30, leagues: FOOTBALL, draw: true, handicaps: [0.5, 1.5], totals: { min: 1.5, max: 3.5 },
    teamTotals: { min: 0.5, max: 1.5 }, middleGaps: [1], bothScore: true, oddEven: false, groups: [1, 2, 3], liveDurationMs: 110 * MIN,
  },
  {
    id: 2, weight: 8, leagues: HOCKEY, draw: true, handicaps: [0.5, 1.5], totals: { min: 4.5, max: 6.5 },
    teamTotals: { min: 1.5, max: 3.5 }, middleGaps: [1], bothScore: false, oddEven: true, groups: [1, 6], liveDurationMs: 150 * MIN,
  },
  {
    id: 4, weight: 5, leagues: VOLLEYBALL, draw: false, handicaps: [1.5, 3.5, 5.5], totals: { min: 178.5, max: 190.5 },
    teamTotals: null, middleGaps: [2, 3], bothScore: false, oddEven: true, groups: [1, 5], liveDurationMs: 120 * MIN,
  },
  {
    id: 5, weight: 15, leagues: BASKETBALL, draw: false, handicaps: [1.5, 3.5, 5.5, 7.5, 9.5, 12.5], totals: { min: 150.5, max: 235.5 },
    teamTotals: { min: 100.5, max: 120.5 }, middleGaps: [2, 3, 4, 5, 6], bothScore: false, oddEven: true, groups: [1, 4],
    liveDurationMs: 140 * MIN,
  },
  {
    id: 6, weight: 15, leagues: TENNIS, draw: false, handicaps: [1.5, 2.5, 3.5, 4.5, 5.5], totals: { min: 19.5, max: 23.5 },
    teamTotals: null, middleGaps: [1, 2], bothScore: false, oddEven: true, groups: [1, 5], liveDurationMs: 130 * MIN,
  },
  {
    id: 7, weight: 4, leagues: HANDBALL, draw: true, handicaps: [1.5, 2.5, 4.5], totals: { min: 50.5, max: 62.5 },
    teamTotals: { min: 24.5, max: 31.5 }, middleGaps: [1, 2, 3], bothScore: false, oddEven: true, groups: [1, 2],
    liveDurationMs: 90 * MIN,
  },
  {
    id: 8, weight: 5, leagues: TABLE_TENNIS, draw: false, handicaps: [1.5, 2.5], totals: { min: 70.5, max: 80.5 },
    teamTotals: null, middleGaps: [1, 2, 3], bothScore: false, oddEven: true, groups: [1, 5], liveDurationMs: 40 * MIN,
  },
  {
    id: 10, weight: 10, leagues: ESPORTS, draw: false, handicaps: [1.5], totals: { min: 2.5, max: 2.5 },
    teamTotals: null, middleGaps: [1], bothScore: false, oddEven: false, groups: [1], liveDurationMs: 150 * MIN,
  },
  {
    id: 14, weight: 8, leagues: FUTSAL, draw: true, handicaps: [0.5, 1.5, 2.5], totals: { min: 4.5, max: 7.5 },
    teamTotals: { min: 1.5, max: 3.5 }, middleGaps: [1], bothScore: true, oddEven: false, groups: [1, 2, 3], liveDurationMs: 70 * MIN,
  },
];

/** A line as the wire writes it in a leg's `index`: "2.5", "-1.5". */
export function formatLine(n: number): string {
  return Number.isInteger(n) ? n.toFixed(0) : String(Math.round(n * 100) / 100);
}

function halfLine(rng: Rng, range: { min: number; max: number }): number {
  return range.min + rng.int(0, Math.round(range.max - range.min));
}

/** Picks a sport by weight. */
export function pickSport(rng: Rng): SportProfile {
  const total = SPORT_PROFILES.reduce((s, p) => s + p.weight, 0);
  let x = rng.uniform(0, total);
  for (const p of SPORT_PROFILES) {
    x -= p.weight;
    if (x < 0) return p;
  }
  return SPORT_PROFILES[0] as SportProfile;
}

/** Two or three outcomes of one market that together cover every result. */
export function coverMarket(rng: Rng, sport: SportProfile): Outcome[] {
  const o = (typeId: number, line = ''): Outcome => ({ typeId, line });
  const options: (() => Outcome[])[] = [];
  if (sport.draw) {
    options.push(() => [o(TYPE.home), o(TYPE.draw), o(TYPE.away)]);
    options.push(() => rng.pick([[o(TYPE.homeOrDraw), o(TYPE.away)], [o(TYPE.drawOrAway), o(TYPE.home)], [o(TYPE.homeOrAway), o(TYPE.draw)]]));
  } else {
    options.push(() => [o(TYPE.win1), o(TYPE.win2)]);
  }
  options.push(() => {
    const h = rng.pick(sport.handicaps) * (rng.chance(0.5) ? 1 : -1);
    return [o(TYPE.ah1, formatLine(h)), o(TYPE.ah2, formatLine(-h))];
  });
  options.push(() => {
    const line = formatLine(halfLine(rng, sport.totals));
    return [o(TYPE.totalOver, line), o(TYPE.totalUnder, line)];
  });
  options.push(() => {
    const line = formatLine(halfLine(rng, sport.totals));
    return [o(TYPE.totalOver, line), o(TYPE.totalUnder, line)];
  });
  const teamTotals = sport.teamTotals;
  if (teamTotals) {
    options.push(() => {
      const line = formatLine(halfLine(rng, teamTotals));
      return rng.chance(0.5)
        ? [o(TYPE.team1Over, line), o(TYPE.team1Under, line)]
        : [o(TYPE.team2Over, line), o(TYPE.team2Under, line)];
    });
  }
  if (sport.bothScore) options.push(() => [o(TYPE.bothScoreYes), o(TYPE.bothScoreNo)]);
  if (sport.oddEven) options.push(() => [o(TYPE.odd), o(TYPE.even)]);
  return rng.pick(options)();
}

/**
 * Two outcomes that both win on a narrow band of results: total over X with total under Y
 * (Y > X), or team 1 with +a and team 2 with b where a + b > 0 (both win when team 1 loses by
 * less than a and by more than −b).
 */
export function middleMarket(rng: Rng, sport: SportProfile): [Outcome, Outcome] {
  const gap = rng.pick(sport.middleGaps);
  if (rng.chance(0.6)) {
    const x = halfLine(rng, { min: sport.totals.min, max: Math.max(sport.totals.min, sport.totals.max - gap) });
    return [
      { typeId: TYPE.totalOver, line: formatLine(x) },
      { typeId: TYPE.totalUnder, line: formatLine(x + gap) },
    ];
  }
  const a = rng.pick(sport.handicaps);
  const sides: [Outcome, Outcome] = [
    { typeId: TYPE.ah1, line: formatLine(a) },
    { typeId: TYPE.ah2, line: formatLine(gap - a) },
  ];
  return sides;
}

/** Two different teams of a league of the sport, and the league's name. */
export function pickFixture(rng: Rng, sport: SportProfile): { league: string; team1: string; team2: string } {
  const league = rng.pick(sport.leagues);
  const [team1, team2] = rng.sample(league.teams, 2) as [string, string];
  return { league: league.name, team1, team2 };
}
