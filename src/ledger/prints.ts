/**
 * What one sent message printed, kept so that "✅ Placed" and "✏️ Placed differently" record exactly
 * that, whatever happened to the item since: it may have moved, gone, or never been an arb for the
 * user. A print is the message's legs (bookmaker, market, odds as printed, the user's commission,
 * lay or back) and the stakes it showed (none on a "not an arb for you" alert), with the event's
 * names — a few hundred bytes. Buttons name a print by a short id (Telegram allows 64 bytes of
 * button data), and the stores keep each print PRINT_TTL_MS after it was last sent, then drop it.
 *
 * The id is a digest of the owner and the content, so the same content printed again (an edit that
 * changed nothing the ledger records, a gone alert that strikes through its last version) is the
 * same print, and every process of a cluster names it alike without asking Redis for a counter.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_MONEY, MAX_ODDS, POSITION_KINDS } from './model.js';

/** How long a sent message's buttons record what it printed (from its last send or edit). */
export const PRINT_TTL_MS = 7 * 24 * 3_600_000;

/** The id's form: base 36, short enough for any button's data beside an action tag. */
export const PRINT_ID = /^[0-9a-z]{1,12}$/;

const text = (max: number) => z.string().max(max);

export const printLegSchema = z.object({
  outcome: z.number().int().min(0).max(15),
  /** The dictionary id of the bookmaker (the user's caps and steps there re-solve a leg); null when the service gave none. */
  bookmakerId: z.number().int().nullable(),
  bookmaker: text(64),
  market: text(120),
  odds: z.number().gt(1).max(MAX_ODDS),
  /** The stake printed; 0 when the message printed none (not an arb for the user). */
  stake: z.number().min(0).max(MAX_MONEY),
  commission: z.number().min(0).max(0.5),
  lay: z.boolean(),
});
export type PrintLeg = z.infer<typeof printLegSchema>;

export const printSchema = z.object({
  id: z.string().regex(PRINT_ID),
  kind: z.enum(POSITION_KINDS),
  service: text(32),
  itemId: text(64),
  eventId: text(64),
  sport: text(64),
  league: text(120),
  event: text(200),
  eventStart: z.number().nullable(),
  /** The printed profit % (arb after commission, middle's miss) or EV %; null when none was printed. */
  profitPct: z.number().nullable(),
  /** When the message was last sent or edited with this content, ms since the epoch (its expiry counts from here). */
  sentAt: z.number(),
  legs: z.array(printLegSchema).min(1).max(16),
});
export type AlertPrint = z.infer<typeof printSchema>;

/** True when the message printed a stake for every leg (else the user's stakes are asked for). */
export const printedStakes = (p: AlertPrint): boolean => p.legs.every((l) => l.stake > 0);

/** The print's id for `userId`: a digest of the owner and everything recorded (not the time). */
export function printId(userId: number, p: Omit<AlertPrint, 'id' | 'sentAt'>): string {
  const content = JSON.stringify([userId, p.kind, p.service, p.itemId, p.eventId, p.event, p.eventStart, p.profitPct, p.legs]);
  const hex = createHash('sha256').update(content).digest('hex').slice(0, 13);
  return BigInt(`0x${hex}`).toString(36).slice(0, 10);
}

/** The store's key of a user's print. */
export const printKey = (userId: number, id: string): string => `${userId}:${id}`;

/** True once the print is past its keeping time at `now`. */
export const printExpired = (p: Pick<AlertPrint, 'sentAt'>, now: number): boolean => now - p.sentAt > PRINT_TTL_MS;
