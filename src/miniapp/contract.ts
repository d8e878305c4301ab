/**
 * The Mini App's HTTP contract: every request and answer of `/app/api/*` as zod schemas and their
 * types. The server parses every input with these; the page imports the types only (`import type`)
 * so its bundle carries no zod.
 *
 * Auth: every API call sends `Authorization: tma <initData>` (the raw string Telegram put in
 * `location.hash` as `tgWebAppData`). A refused call answers `{ error: { code, message } }`.
 */
import { z } from 'zod';
import { LEG_RESULTS, LEG_STATUSES, POSITION_KINDS } from '../ledger/model.js';
import { BOOK_STATUSES, bookSettingsSchema } from '../store/book-settings.js';
import { filterSettingsSchema } from '../service/filter-model.js';
import { MARKET_GROUPS } from '../service/market-groups.js';

export const API_PREFIX = '/app/api';
export const APP_PREFIX = '/app/';
/** The most bytes a request body may carry (a filter of 1,000 bookmakers fits many times over). */
export const MAX_BODY_BYTES = 64 * 1024;

export const ERROR_CODES = [
  'unauthorized',
  'expired',
  'bad_request',
  'not_found',
  'method_not_allowed',
  'too_large',
  'too_many',
  'conflict',
  'internal',
] as const;
export const errorSchema = z.object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }) });
export type ApiError = z.infer<typeof errorSchema>;

export const langSchema = z.enum(['en', 'ru']);
export type Lang = z.infer<typeof langSchema>;

// GET /app/api/me
export const meSchema = z.object({
  userId: z.number().int(),
  lang: langSchema,
  /** ISO code from `/settings currency`, or null when none was said. */
  currency: z.string().nullable(),
  /** Services the user has a key for (or the operator gave them). */
  services: z.array(z.string()),
  keyStored: z.boolean(),
  timeZone: z.string(),
});
export type Me = z.infer<typeof meSchema>;

// GET /app/api/ledger?from&to&service&bookmaker&sport
const dayString = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const ledgerQuerySchema = z.object({
  /** First UTC day included (YYYY-MM-DD); default: all time. */
  from: dayString.optional(),
  /** Last UTC day included (YYYY-MM-DD); default: today. */
  to: dayString.optional(),
  service: z.string().min(1).max(32).optional(),
  bookmaker: z.string().min(1).max(64).optional(),
  sport: z.string().min(1).max(64).optional(),
});
export type LedgerQuery = z.infer<typeof ledgerQuerySchema>;

export const totalsSchema = z.object({ pnl: z.number(), turnover: z.number(), count: z.number(), yieldPct: z.number().nullable() });
export type Totals = z.infer<typeof totalsSchema>;
const clvSchema = z.object({ count: z.number(), meanPct: z.number(), weightedPct: z.number(), beatSharePct: z.number() }).nullable();

export const openLegSchema = z.object({
  index: z.number().int(),
  outcome: z.number().int(),
  bookmaker: z.string(),
  market: z.string(),
  odds: z.number(),
  stake: z.number(),
  lay: z.boolean(),
  status: z.enum(LEG_STATUSES),
  result: z.enum(LEG_RESULTS).nullable(),
  /** The results this leg's market allows (the per-leg settle buttons). */
  results: z.array(z.enum(LEG_RESULTS)),
});
export type OpenLeg = z.infer<typeof openLegSchema>;

/** The whole-position results /open offers as one tap: `won:<outcome>` (outcome wins), `void`, `hit` (a middle). */
export const positionSchema = z.object({
  id: z.string(),
  kind: z.enum(POSITION_KINDS),
  service: z.string(),
  sport: z.string(),
  league: z.string(),
  event: z.string(),
  eventStart: z.number().nullable(),
  placedAt: z.number(),
  settledAt: z.number().nullable(),
  settled: z.boolean(),
  currency: z.string(),
  pnl: z.number().nullable(),
  legs: z.array(openLegSchema),
  /** The undo handle of the last change, while it can still be undone (the chat's window). */
  undo: z.object({ n: z.number().int(), until: z.number() }).nullable(),
});
export type ApiPosition = z.infer<typeof positionSchema>;

export const daySchema = z.object({ day: z.string(), pnl: z.number(), cumulative: z.number(), turnover: z.number(), clvPct: z.number().nullable() });
export type Day = z.infer<typeof daySchema>;

export const ledgerSchema = z.object({
  from: z.number(),
  to: z.number(),
  currency: z.string(),
  summary: z.object({
    totals: totalsSchema,
    startBank: z.number().nullable(),
    roiOnBankPct: z.number().nullable(),
    winRatePct: z.number().nullable(),
    arbs: z.object({ count: z.number(), expected: z.number(), realised: z.number() }),
    clv: clvSchema,
    legsClv: clvSchema,
    open: z.number(),
    byService: z.array(z.tuple([z.string(), totalsSchema])),
    byBookmaker: z.array(z.tuple([z.string(), totalsSchema])),
    bySport: z.array(z.tuple([z.string(), totalsSchema])),
  }),
  days: z.array(daySchema),
  choices: z.object({ services: z.array(z.string()), bookmakers: z.array(z.string()), sports: z.array(z.string()) }),
  /** Unsettled positions, oldest first (at most MAX_OPEN_LISTED; `openTotal` says how many there are). */
  open: z.array(positionSchema),
  openTotal: z.number(),
});
export type LedgerView = z.infer<typeof ledgerSchema>;
export const MAX_OPEN_LISTED = 200;

// POST /app/api/positions/:id/settle
export const positionIdSchema = z.string().regex(/^[0-9a-z]{1,10}$/);
export const settleBodySchema = z.union([
  /** The whole position as /open's buttons: one outcome won (arbs, middles), a middle hit, all void, a valuebet's result. */
  z.object({ result: z.union([z.enum(['won', 'half_won', 'void', 'half_lost', 'lost', 'hit']), z.object({ outcome: z.number().int().min(0).max(15) }).strict()]) }).strict(),
  /** Every placed leg its own result (null for a leg not placed), as /open's per-leg settle. */
  z.object({ legs: z.array(z.enum(LEG_RESULTS).nullable()).min(1).max(16) }).strict(),
]);
export type SettleBody = z.infer<typeof settleBodySchema>;
// POST /app/api/positions/:id/undo
export const undoBodySchema = z.object({ n: z.number().int().min(1) }).strict();
export type UndoBody = z.infer<typeof undoBodySchema>;
// POST /app/api/positions/:id/edit
export const editBodySchema = z
  .object({
    leg: z.number().int().min(0).max(15),
    odds: z.number().gt(1).max(1000).optional(),
    stake: z.number().gt(0).max(100_000_000).optional(),
    bookmaker: z.string().min(1).max(64).optional(),
  })
  .strict();
export type EditBody = z.infer<typeof editBodySchema>;
/** Answer of settle, undo and edit. */
export const positionAnswerSchema = z.object({ position: positionSchema });
export type PositionAnswer = z.infer<typeof positionAnswerSchema>;

// GET /app/api/ledger.csv?from&to&service&sport&bookmaker → text/csv, the same file as /export.
// POST /app/api/ledger.csv/send?… → the same file sent to the user's chat with the bot.
export const csvSentSchema = z.object({ files: z.number().int(), legs: z.number().int() });
export type CsvSent = z.infer<typeof csvSentSchema>;

// Filters
export const coverageSchema = z.object({
  /** Share of the service's items the budget lets the user see, 0..1; null when the planner has no figure. */
  share: z.number().nullable(),
  /** Seconds between reads for the user on this service, when the planner says. */
  intervalSeconds: z.number().nullable(),
  /** Whether the budget would accept this filter. */
  fits: z.boolean(),
});
export type Coverage = z.infer<typeof coverageSchema>;
export const filterSchema = filterSettingsSchema;
export type Filter = z.infer<typeof filterSchema>;
export const filtersSchema = z.object({
  services: z.array(
    z.object({
      service: z.string(),
      filter: filterSchema,
      /** A filter kept while the budget refused it, if any. */
      draft: filterSchema.nullable(),
      coverage: coverageSchema,
    }),
  ),
  dictionaries: z.object({
    sports: z.array(z.object({ id: z.number(), name: z.string() })),
    bookmakers: z.array(z.object({ id: z.number(), name: z.string() })),
    /** Every market group, named as the chat names it (the form's 🎯 Markets). */
    markets: z.array(z.object({ id: z.enum(MARKET_GROUPS), name: z.string() })),
  }),
});
export type FiltersView = z.infer<typeof filtersSchema>;
export const serviceNameSchema = z.string().regex(/^[a-z0-9_-]{1,32}$/);
export const coverageBodySchema = z.object({ service: serviceNameSchema, filter: filterSettingsSchema }).strict();
export type CoverageBody = z.infer<typeof coverageBodySchema>;
export const filterPutBodySchema = z.object({ filter: filterSettingsSchema }).strict();
export type FilterPutBody = z.infer<typeof filterPutBodySchema>;
export const filterSavedSchema = z.object({ saved: z.enum(['saved', 'draft']), filter: filterSchema, coverage: coverageSchema });
export type FilterSaved = z.infer<typeof filterSavedSchema>;

// Bookmakers
export const bookRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  settings: bookSettingsSchema,
  /** The commission the bot assumes when none is set (an exchange's default), percent. */
  defaultCommission: z.number().nullable(),
  status: z.enum(BOOK_STATUSES),
});
export type BookRow = z.infer<typeof bookRowSchema>;
export const booksSchema = z.object({ books: z.array(bookRowSchema) });
export type BooksView = z.infer<typeof booksSchema>;
export const bookIdSchema = z.string().regex(/^\d{1,9}$/);
export const bookPutBodySchema = z.object({ settings: bookSettingsSchema.strict() }).strict();
export type BookPutBody = z.infer<typeof bookPutBodySchema>;
export const bookSavedSchema = z.object({ book: bookRowSchema });
export type BookSaved = z.infer<typeof bookSavedSchema>;
