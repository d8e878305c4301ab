/**
 * The store's schema (checked on load) and the types the rest of the bot uses.
 * Bump SCHEMA_VERSION and add a step to `migrations.ts` when a stored shape changes.
 */
import { z } from 'zod';
import { filterSettingsSchema } from '../service/filter-model.js';
import { bookRecordSchema, CURRENCY_CODE } from '../ledger/model.js';
import { SERVICES, type Service } from '../service/services.js';
import { bookSettingsMapSchema } from './book-settings.js';

export const SCHEMA_VERSION = 1;

export const langSchema = z.enum(['en', 'ru']);
export type Lang = z.infer<typeof langSchema>;

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/);

export const filterRecordSchema = z.object({
  settings: filterSettingsSchema,
  paused: z.boolean().default(false),
  /** Why it is paused, as an error kind or 'user'; null when active. */
  pausedReason: z.enum(['user', 'auth', 'forbidden', 'blocked']).nullable().default(null),
  savedAt: z.number(),
});
export type FilterRecord = z.infer<typeof filterRecordSchema>;

/**
 * A filter the user built whose write the service's budget refused: kept, and written by the
 * scheduler (which holds the key's token budget) as soon as the budget allows; then it becomes the
 * service's filter and the draft goes. `createdAt` tells one draft from the next (a newer save replaces it).
 */
export const draftRecordSchema = z.object({
  settings: filterSettingsSchema,
  createdAt: z.number(),
});
export type DraftRecord = z.infer<typeof draftRecordSchema>;

export const serviceStatusSchema = z.object({
  lastGoodReadAt: z.number().nullable().default(null),
  lastAlertAt: z.number().nullable().default(null),
  lastError: z
    .object({ kind: z.string(), at: z.number() })
    .nullable()
    .default(null),
  /**
   * The key's plan for the service as its reads showed it (odds masked or full), with a digest of
   * that key: under LIMIT_SCOPE=address reads are shared only within one plan.
   */
  plan: z.object({ tier: z.enum(['masked', 'full']), key: z.string().max(64) }).optional(),
  /** Items the filter's market groups left out in the clock hour `hour` (ms / 3,600,000), for /status. */
  leftOut: z.object({ hour: z.number().int(), count: z.number().int().nonnegative() }).optional(),
});
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;

const perService = <T extends z.ZodType>(value: T) => z.partialRecord(z.enum(SERVICES), value).default({});

export const userSchema = z.object({
  /** Telegram user id. */
  id: z.number().int(),
  /** The private chat with the user. */
  chatId: z.number().int(),
  lang: langSchema.default('en'),
  /** IANA time zone, e.g. Europe/Moscow. */
  timeZone: z.string().default('UTC'),
  bankroll: z.number().positive().default(100),
  /** Stakes are rounded to a multiple of this (1, 5, 0.5 …). */
  roundingStep: z.number().positive().default(1),
  /**
   * The currency of the bankroll and of every stake the bot prints (`/settings currency EUR`); null:
   * none said, amounts printed bare. The ledger keeps the same code in its settings for its records.
   */
  currency: z.string().regex(CURRENCY_CODE).nullable().default(null),
  quietHours: z.object({ from: hhmm, to: hhmm }).nullable().default(null),
  /** Where alerts go: the private chat by default, or a group/channel where the bot is admin. */
  alertChatId: z.number().int().nullable().default(null),
  key: z
    .object({
      accessKey: z.string(),
      /** The vault's blob (AES-256-GCM); never the plain secret. */
      secretEnc: z.string(),
      connectedAt: z.number(),
    })
    .nullable()
    .default(null),
  filters: perService(filterRecordSchema),
  /** Filters waiting for the token budget (see draftRecordSchema); absent in older records: none. */
  drafts: perService(draftRecordSchema),
  /**
   * The user's order of their services, first favoured by the token plan (token-plan.ts); services
   * not named follow in the default order (live first). Absent in older records: the default order.
   */
  serviceRank: z.array(z.enum(SERVICES)).max(SERVICES.length).default([]),
  status: perService(serviceStatusSchema),
  /** Event id → muted until (ms). */
  mutedEvents: z.record(z.string(), z.number()).default({}),
  /** Mutes of events, leagues and bookmakers with their names (see mutes.ts): key → until (ms) and name. */
  mutes: z.record(z.string(), z.object({ until: z.number(), label: z.string() })).default({}),
  /** Service → alerts snoozed until (ms). */
  snoozedUntil: perService(z.number()),
  /** Bookmaker id → the user's settings there (commission, max, min, step, status): see book-settings.ts. */
  books: bookSettingsMapSchema.default({}),
  /** How alerts split an arb: equal profit, or all profit on the leg with the highest / lowest odds. */
  stakingMode: z.enum(['equal', 'high', 'low']).default('equal'),
  /** The user's ages (s) past which a leg's odds are stale, live and prematch; absent: STALE_LEG_SECONDS… */
  staleLegSeconds: z.object({ live: z.number().positive().optional(), prematch: z.number().positive().optional() }).default({}),
  /** A live alert whose every leg is stale: 'quiet' comes without a sound, 'drop' is not sent, 'show' as any other. */
  staleMode: z.enum(['show', 'quiet', 'drop']).default('quiet'),
  /**
   * Per service: `from`, the headline % from which a new alert buzzes (below it comes without a
   * sound; null: every alert buzzes), and `rise`, how many points its profit must gain to buzz
   * again (a short reply to it) — crossing `from` buzzes too.
   */
  loud: perService(z.object({ from: z.number().nullable().default(null), rise: z.number().positive().default(1) })),
  /** True while the user has blocked the bot: not polled until they come back. */
  blocked: z.boolean().default(false),
  createdAt: z.number(),
});
export type UserRecord = z.infer<typeof userSchema>;

/** What the diff remembers of one alerted item, so restarts never duplicate an alert. */
export const alertEntrySchema = z.object({
  eventId: z.string(),
  chatId: z.number().int(),
  messageId: z.number().int().nullable(),
  firstSeenAt: z.number(),
  lastSeenAt: z.number(),
  goneAt: z.number().nullable(),
  profit: z.number().nullable(),
  odds: z.array(z.number().nullable()),
  lastEditAt: z.number(),
  /** True once the alert's message was edited to say the item is gone (absent in older files: not yet). */
  goneShown: z.boolean().optional(),
  /**
   * True while the item has had no alert because it did not pass for this user (below min_profit
   * after their commission, a closed bookmaker, a mute or snooze): each move checks it again, and
   * one that passes is alerted then. Absent: it was alerted (or is being).
   */
  withheld: z.boolean().optional(),
  /**
   * The profit % (as the alert shows it) a rise is counted from: the alert's when it was sent, then
   * each loud re-alert's. A move to `loud.rise` points above it (or across `loud.from` from below)
   * buzzes again. Absent: no re-alerts (entries before it, or no number to count from).
   */
  loudBase: z.number().optional(),
  /**
   * What makes it the same arb whatever its item id: the event, and each leg's sub-event, market,
   * line and bookmaker (diff.ts `arbSignature`). An item under a new id with the signature of one
   * that went takes over its entry and message. Absent in older files: matched by id only.
   */
  sig: z.string().max(4000).optional(),
  /**
   * True when `messageId` is the first read's summary that listed the item (alerts/first-read.ts),
   * not an alert of its own: it is never edited for the item. Kept so a restart (a kill -9 too,
   * through the sent journal) knows the item was shown and sends no summary or alert for it again.
   */
  summary: z.boolean().optional(),
  /**
   * The idempotency key of the alert's send while its message id is not known (a cluster's worker
   * stopped waiting for the front's answer, or was killed): the next edit reads the id from the
   * send's claim (`OutboxPort.messageIdOf`). Absent once the id is known, and in one process.
   */
  sentKey: z.string().min(1).max(512).optional(),
});
export type AlertEntry = z.infer<typeof alertEntrySchema>;

export const databaseSchema = z.object({
  version: z.literal(SCHEMA_VERSION),
  users: z.record(z.string(), userSchema).default({}),
  /** Subscription key (`${userId}:${service}`) → item id → entry. */
  alerts: z.record(z.string(), z.record(z.string(), alertEntrySchema)).default({}),
  /** User id → the bettor's ledger (absent in files written before it: empty). */
  ledger: z.record(z.string(), bookRecordSchema).default({}),
  /**
   * `${userId}:${printId}` → what a sent message printed (src/ledger/prints.ts), for its ✅ Placed;
   * checked when loaded (a bad or expired one is left out, not the file), absent in older files.
   */
  prints: z.record(z.string(), z.unknown()).default({}),
});
export type Database = z.infer<typeof databaseSchema>;

export const subscriptionKey = (userId: number, service: Service): string => `${userId}:${service}`;
