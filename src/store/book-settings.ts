/**
 * A user's settings for one bookmaker, as stored and as the stake maths read them: the commission
 * they pay on net winnings there (exchanges), the most and least the bookmaker lets them stake,
 * the step they round that bookmaker's stakes to, and the account's status. Keyed by the
 * dictionary's bookmaker id (a string, as in the dictionaries).
 *
 * `max` caps the money at risk on a leg (a lay leg's liability); `min` is the least stake (a lay
 * leg's lay stake, as exchanges count it); `step` is the stake's step (a lay leg's lay stake).
 * `closed` drops every alert that needs the bookmaker.
 */
import { z } from 'zod';

export const BOOK_STATUSES = ['ok', 'limited', 'closed'] as const;
export type BookStatus = (typeof BOOK_STATUSES)[number];

/** Bounds: a commission above 50 % or amounts beyond a billion are typing mistakes, not settings. */
export const BOOK_LIMITS = { commissionMax: 50, amountMax: 1_000_000_000 } as const;

export const bookSettingsSchema = z.object({
  /** % of net winnings, 0..50. */
  commission: z.number().min(0).max(BOOK_LIMITS.commissionMax).optional(),
  /** Most money at risk on one leg, in the user's currency. */
  max: z.number().positive().max(BOOK_LIMITS.amountMax).optional(),
  /** Least stake the bookmaker takes. */
  min: z.number().positive().max(BOOK_LIMITS.amountMax).optional(),
  /** Stakes there are multiples of this. */
  step: z.number().positive().max(BOOK_LIMITS.amountMax).optional(),
  status: z.enum(BOOK_STATUSES).optional(),
});
export type BookSettings = z.infer<typeof bookSettingsSchema>;

/** Per user: bookmaker id → settings. At most this many bookmakers (the dictionaries hold fewer). */
export const MAX_BOOKS = 500;
export const bookSettingsMapSchema = z
  .record(z.string().regex(/^\d{1,9}$/), bookSettingsSchema)
  .refine((m) => Object.keys(m).length <= MAX_BOOKS, { message: 'too many bookmakers' });
export type BookSettingsMap = z.infer<typeof bookSettingsMapSchema>;

/** True when a setting says nothing (then it is not kept). */
export const isEmptyBook = (s: BookSettings): boolean =>
  s.commission === undefined && s.max === undefined && s.min === undefined && s.step === undefined && (s.status === undefined || s.status === 'ok');
