/**
 * GET /app/api/boot?screen=ledger|filters|books (contract.ts's auth): `me` and the first screen's
 * data in one answer — the bodies of GET /me and of GET /ledger (unfiltered), /filters or /books,
 * exactly as those routes answer. A screen name it does not know means the ledger, as on the page.
 */
import { z } from 'zod';
import { booksSchema, filtersSchema, ledgerSchema, meSchema } from './contract.js';

export const BOOT_SCREENS = ['ledger', 'filters', 'books'] as const;
export const bootScreenSchema = z.enum(BOOT_SCREENS).catch('ledger');
export type BootScreen = z.infer<typeof bootScreenSchema>;

export const bootSchema = z.object({
  me: meSchema,
  /** Only the asked screen's key is present. */
  ledger: ledgerSchema.optional(),
  filters: filtersSchema.optional(),
  books: booksSchema.optional(),
});
export type BootAnswer = z.infer<typeof bootSchema>;
