/**
 * The bettor's ledger: what a placed position is, in the one shape the store keeps, the bot shows
 * and the maths reads. A position is what the user placed from one alert (an arb's legs, a
 * middle's two legs, a valuebet's one leg); each leg keeps the odds as the bookmaker showed them
 * and, derived once when the leg is made, the effective odds after exchange commission and the
 * money at risk (the liability of a lay), so that every later figure reads the same numbers.
 *
 * Statuses: a leg is `placed` (taken), `refused` (the bookmaker would not take it; kept for the
 * record, it never counts in P&L or turnover) or `open` (a hedge still to place after a refusal).
 * Results follow the position's owner: a lay "won" means the selection lost.
 */
import { z } from 'zod';

/** Largest odds and money the ledger accepts (typed values past these are typos, not bets). */
export const MAX_ODDS = 1_000;
export const MAX_MONEY = 100_000_000;

/** `dead_heat`: tied for the place; `deadHeat` of the stake is paid at the full odds, the rest lost. */
export const LEG_RESULTS = ['won', 'half_won', 'void', 'half_lost', 'lost', 'dead_heat'] as const;
export type LegResult = (typeof LEG_RESULTS)[number];
export const LEG_STATUSES = ['open', 'placed', 'refused'] as const;
export type LegStatus = (typeof LEG_STATUSES)[number];
export const POSITION_KINDS = ['arbs', 'middles', 'valuebets'] as const;
export type PositionKind = (typeof POSITION_KINDS)[number];
export const DEVIG_METHODS = ['multiplicative', 'shin', 'power'] as const;
export type DevigMethod = (typeof DEVIG_METHODS)[number];

const text = (max: number) => z.string().max(max);
/** An ISO-4217-like currency code: three capital letters (EUR, USD, RUB, USDT-style codes are not currencies). */
export const CURRENCY_CODE = /^[A-Z]{3}$/;
const odds = z.number().gt(1).max(MAX_ODDS);
const money = z.number().min(0).max(MAX_MONEY);

/** The last odds the bot saw for a placed leg's selection before its event started or the item went away (its closing line). */
export const closeSchema = z.object({
  /** The selection's last-seen odds, as shown. */
  odds,
  /** When they were seen, ms since the epoch. */
  at: z.number(),
  /** The service's own fair odds for the selection then, when it gave a probability. */
  fairOdds: odds.nullable().default(null),
  /** The market's closing odds (ours at `index`) when the service gave the other outcomes. */
  market: z.array(odds).max(16).nullable().default(null),
  index: z.number().int().min(0).max(15).default(0),
});
export type Close = z.infer<typeof closeSchema>;

export const legSchema = z.object({
  /** Which outcome of the position this leg covers (an arb's legs 0…n−1; a hedge covers its refused leg's). */
  outcome: z.number().int().min(0).max(15),
  bookmaker: text(64),
  /** What was bet on, as the alert named it (market and line). */
  market: text(120).default(''),
  /** Odds as the bookmaker showed them (decimal). */
  odds,
  /** Exchange commission on net winnings, a fraction (0.02 = 2 %); 0 at a bookmaker. */
  commission: z.number().min(0).max(0.5).default(0),
  lay: z.boolean().default(false),
  /** Back: the stake. Lay: the lay stake (the backer's stake). */
  stake: money.gt(0),
  /** Money at risk: the stake of a back, stake × (odds − 1) of a lay. */
  liability: money,
  /** Odds after commission, as a back bet paying on `liability` (a lay: the back of "not the selection"). */
  effectiveOdds: z.number().gt(1),
  status: z.enum(LEG_STATUSES),
  result: z.enum(LEG_RESULTS).nullable().default(null),
  /** A dead heat's share of the stake paid at the full odds (½ for two tied); null for any other result. */
  deadHeat: z.number().gt(0).lt(1).nullable().optional(),
});
export type LedgerLeg = z.infer<typeof legSchema>;

export const positionSchema = z.object({
  /** Short id, unique per user (base 36), used in buttons and the CSV. */
  id: z.string().regex(/^[0-9a-z]{1,10}$/),
  kind: z.enum(POSITION_KINDS),
  service: text(32),
  itemId: text(64),
  eventId: text(64),
  sport: text(64).default(''),
  league: text(120).default(''),
  event: text(200).default(''),
  /** Event start, ms since the epoch; null when the service did not say. */
  eventStart: z.number().nullable().default(null),
  placedAt: z.number(),
  /** When the last result was set; null while anything is unsettled. */
  settledAt: z.number().nullable().default(null),
  currency: text(8).default(''),
  /** The alert's profit % when placed (arb: its guaranteed %; valuebet: its EV %). */
  alertProfitPct: z.number().nullable().default(null),
  /** Where the alert is, to keep its "✅ Placed" line (null when placed elsewhere). */
  chatId: z.number().int().nullable().default(null),
  messageId: z.number().int().nullable().default(null),
  /** What the message printed when it was placed from one (src/ledger/prints.ts); absent otherwise. */
  printId: z.string().max(12).optional(),
  legs: z.array(legSchema).min(1).max(16),
  note: text(200).default(''),
  /** The legs and settle time before the user's last change (settle, edit, reopen), for its ↩️ Undo (src/ledger/edits.ts). */
  undo: z
    .object({ n: z.number().int().min(1), at: z.number(), legs: z.array(legSchema).max(16), settledAt: z.number().nullable() })
    .nullable()
    .optional(),
});
export type Position = z.infer<typeof positionSchema>;

/** Per user: the positions and the few settings of the ledger. */
export const ledgerSettingsSchema = z.object({
  /** The bank ROI is measured on; set from the bankroll at the first position. */
  startBank: z.number().positive().max(MAX_MONEY).nullable().default(null),
  devig: z.enum(DEVIG_METHODS).default('multiplicative'),
  /** When the last settle digest was sent, ms since the epoch. */
  digestAt: z.number().nullable().default(null),
  /** The next position id (as a number; shown base 36). */
  nextId: z.number().int().min(1).default(1),
  /** The user's currency (`/settings currency EUR`), shown beside stakes in /open, /pnl and the CSV; null: none said. */
  currency: z.string().regex(CURRENCY_CODE).nullable().default(null),
});
export type LedgerSettings = z.infer<typeof ledgerSettingsSchema>;

/** What one user's ledger holds: positions by id, settings, closing lines by `${positionId}:${leg}`. */
export interface LedgerBook {
  settings: LedgerSettings;
  positions: readonly Position[];
  closes: ReadonlyMap<string, Close>;
}

export const closeKey = (positionId: string, leg: number): string => `${positionId}:${leg}`;

/** Back odds after commission on net winnings: 1 + (o − 1)(1 − c). */
export const effectiveBackOdds = (o: number, c: number): number => 1 + (o - 1) * (1 - c);
/** A lay at L with commission c seen as a back of "not the selection", stake = liability: 1 + (1 − c)/(L − 1). */
export const layAsBackOdds = (L: number, c: number): number => 1 + (1 - c) / (L - 1);

/** What makes a leg: everything derived (liability, effective odds) is computed here, once. */
export interface LegInput {
  outcome: number;
  bookmaker: string;
  market?: string;
  odds: number;
  stake: number;
  commission?: number;
  lay?: boolean;
  status?: LegStatus;
}

const cents = (x: number): number => Math.round(Number((x * 100).toFixed(6))) / 100;

export function makeLeg(input: LegInput): LedgerLeg {
  const c = input.commission ?? 0;
  const lay = input.lay ?? false;
  const liability = lay ? cents(input.stake * (input.odds - 1)) : input.stake;
  return legSchema.parse({
    outcome: input.outcome,
    bookmaker: input.bookmaker.slice(0, 64),
    market: (input.market ?? '').slice(0, 120),
    odds: input.odds,
    commission: c,
    lay,
    stake: input.stake,
    liability,
    effectiveOdds: lay ? layAsBackOdds(input.odds, c) : effectiveBackOdds(input.odds, c),
    status: input.status ?? 'placed',
    result: null,
  });
}

/** Legs that count: taken by the bookmaker. */
export const placedLegs = (p: Position): LedgerLeg[] => p.legs.filter((l) => l.status === 'placed');

/** Settled: every placed leg has a result and no hedge is still open. */
export function isSettled(p: Position): boolean {
  // A loop, not filters: it runs for every position of a 20,000-position book on /export and /pnl.
  let placed = 0;
  for (const leg of p.legs) {
    if (leg.status === 'open') return false;
    if (leg.status !== 'placed') continue;
    if (leg.result === null) return false;
    placed++;
  }
  return placed > 0;
}

/** Nothing placed at all (every leg refused, no hedge): nothing to settle, nothing counts. */
export const isEmpty = (p: Position): boolean => placedLegs(p).length === 0 && !p.legs.some((l) => l.status === 'open');

/** The position id as shown and in buttons. */
export const positionId = (n: number): string => n.toString(36);

/** One user's ledger as stored (the file's `ledger` section; Redis holds the same parts per field). */
export const bookRecordSchema = z.object({
  settings: ledgerSettingsSchema.default({ startBank: null, devig: 'multiplicative', digestAt: null, nextId: 1, currency: null }),
  positions: z.array(positionSchema).default([]),
  /** Closing lines by `${positionId}:${leg}`. */
  closes: z.record(z.string(), closeSchema).default({}),
});
export type BookRecord = z.infer<typeof bookRecordSchema>;

export const defaultLedgerSettings = (): LedgerSettings => ({ startBank: null, devig: 'multiplicative', digestAt: null, nextId: 1, currency: null });

/** The currency a position's amounts are in: the one it was recorded with, else the user's setting. */
export const currencyOf = (p: Position, settings: LedgerSettings): string => p.currency || (settings.currency ?? '');
