/**
 * The alert stream's wire format, shared by its two ends: the workers' `RemoteOutbox` (which adds
 * sends and edits to the stream) and the front's consumer (which hands them to the one outbox that
 * talks to Telegram). Two Redis Streams under the cluster's key prefix, read by one consumer group:
 * `{prefix}alert-stream:new` (every tick's sends) and `{prefix}alert-stream:edit` (its edits), so a
 * front that holds its bound of alerts takes new alerts ahead of waiting edits.
 *
 * One stream entry is a *batch*: every send or edit a worker's notifier made in one tick (one read's
 * diff, or several reads that ended together), signed once. The entry has two fields: `b`, the batch
 * as JSON, and `s`, the HMAC of exactly those bytes (job-guard.ts), so the front checks the signature
 * before it parses anything. The batch is checked with zod where it is taken off the stream (Redis is
 * shared, so an entry is whatever some process wrote there) and each answer where it comes back.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { langSchema } from '../store/schema.js';
import type { OutboxEditOptions, OutboxSendOptions } from '../outbox/port.js';

/**
 * The streams under the prefix: keys `{prefix}alert-stream:*`, apart from the store's alert state
 * (`{prefix}alerts:<user>:<service>`) and from the BullMQ queue of earlier versions
 * (`{prefix}alert-queue:*`), so that none can read or remove the others' keys (audit 2, N11).
 */
export function alertStreams(prefix: string): { new: string; edit: string } {
  return { new: `${prefix}alert-stream:new`, edit: `${prefix}alert-stream:edit` };
}

/** The consumer group of the fronts (only the holder of the sender lease reads). */
export const SENDERS_GROUP = 'senders';

/** Version of the batch; a consumer discards a version it does not know. */
export const WIRE_VERSION = 2;

/** Longest text taken (the outbox splits text over 4096 characters; an alert is far shorter). */
const MAX_TEXT = 16 * 4096;

/** Most alerts in one batch: a worker splits a larger tick into several entries. */
export const MAX_BATCH = 500;

/** The pub/sub channel of a worker outbox's answers. */
export function answerChannel(prefix: string, replyTo: string): string {
  return `${prefix}alert-answers:${replyTo}`;
}

/** A worker outbox's name on the wire (where its answers go). */
export const replyToSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

/**
 * The answers to one worker, published together: `[item id, true, value]` for an alert handed to
 * Telegram (the message id or null, whether the edit was applied), `[item id, false, why]` for one
 * that failed for good.
 */
export const answersSchema = z.array(z.union([z.tuple([z.number().int().nonnegative(), z.literal(true), z.unknown()]), z.tuple([z.number().int().nonnegative(), z.literal(false), z.string()])])).max(10_000);
export type Answer = z.infer<typeof answersSchema>[number];

/**
 * The claim name of an idempotency key: a hash, so that no user or item id shows in a Redis key
 * name and any key has the same length.
 */
export function idempotencyId(key: string): string {
  return `k-${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
}

const buttonSchema = z.union([
  z.object({ text: z.string().min(1).max(256), callbackData: z.string().min(1).max(64) }).strict(),
  z.object({ text: z.string().min(1).max(256), url: z.string().min(1).max(2048) }).strict(),
]);
const buttonsSchema = z.array(z.array(buttonSchema).max(8)).max(100);
const chatIdSchema = z.number().int().safe().refine((n) => n !== 0, 'not a chat id');
const keySchema = z.string().min(1).max(512);
const textSchema = z.string().min(1).max(MAX_TEXT);

const sendOptionsSchema = z
  .object({
    buttons: buttonsSchema.optional(),
    kind: z.enum(['alert', 'info']).optional(),
    digestLine: z.string().max(4096).optional(),
    digestButtons: z.array(buttonSchema).max(8).optional(),
    holdUntil: z.number().optional(),
    lang: langSchema.optional(),
    late: z.boolean().optional(),
    idempotencyKey: keySchema.optional(),
    forUser: z.number().int().positive().safe().optional(),
    heldItem: z
      .object({ id: z.string().min(1).max(200), userId: z.number().int().safe(), service: z.string().min(1).max(64), openData: z.string().min(1).max(64).optional() })
      .strict()
      .optional(),
    silent: z.boolean().optional(),
    replyTo: z.number().int().positive().safe().optional(),
    foundAt: z.number().optional(),
    expiresAt: z.number().optional(),
  })
  .strict();

const editOptionsSchema = z
  .object({
    buttons: buttonsSchema.optional(),
    gone: z.boolean().optional(),
    idempotencyKey: keySchema.optional(),
  })
  .strict();

const itemIdSchema = z.number().int().nonnegative().safe();

const sendItemSchema = z.object({ i: itemIdSchema, type: z.literal('send'), chatId: chatIdSchema, text: textSchema, opts: sendOptionsSchema }).strict();
const editItemSchema = z
  .object({ i: itemIdSchema, type: z.literal('edit'), chatId: chatIdSchema, messageId: z.number().int().positive().safe(), text: textSchema, opts: editOptionsSchema })
  .strict();

/** One send or edit of a batch. */
export const alertItemSchema = z.discriminatedUnion('type', [sendItemSchema, editItemSchema]);
export type AlertItem = z.infer<typeof alertItemSchema>;
export type SendAlertItem = z.infer<typeof sendItemSchema>;
/** An item before the outbox numbers it. */
export type AlertPayload = AlertItem extends infer T ? (T extends AlertItem ? Omit<T, 'i'> : never) : never;

/**
 * What the consumer accepts off the stream: the worker outbox to answer (`from`), when the worker
 * signed it (its clock, ms) and a random nonce (signed with it, so an old entry cannot be added
 * again: job-guard.ts), and the alerts.
 */
export const alertBatchSchema = z
  .object({
    v: z.literal(WIRE_VERSION),
    from: replyToSchema,
    at: z.number().int().positive().safe(),
    nonce: z.string().regex(/^[\w-]{16,43}$/),
    items: z.array(alertItemSchema).min(1).max(MAX_BATCH),
  })
  .strict();
export type AlertBatch = z.infer<typeof alertBatchSchema>;

/** A send's answer: the message id, or null (folded, held, dropped, given up, or already sent without an id). */
export const sendResultSchema = z.number().int().positive().safe().nullable();
/** An edit's answer: applied (or already so), or not. */
export const editResultSchema = z.boolean();

/**
 * The payload of a send, as plain data: only the fields the wire knows (an options object built
 * with extra fields in it would otherwise be refused by the consumer).
 */
export function sendPayload(chatId: number, text: string, opts: OutboxSendOptions): AlertPayload {
  const { buttons, kind, digestLine, digestButtons, holdUntil, lang, late, idempotencyKey, forUser, heldItem, silent, replyTo, foundAt, expiresAt } = opts;
  return { type: 'send', chatId, text, opts: definedOnly({ buttons, kind, digestLine, digestButtons, holdUntil, lang, late, idempotencyKey, forUser, heldItem, silent, replyTo, foundAt, expiresAt }) };
}

/** The payload of an edit, as plain data. */
export function editPayload(chatId: number, messageId: number, text: string, opts: OutboxEditOptions): AlertPayload {
  const { buttons, gone, idempotencyKey } = opts;
  return { type: 'edit', chatId, messageId, text, opts: definedOnly({ buttons, gone, idempotencyKey }) };
}

/** Drops undefined fields, which JSON would drop anyway; keeps the payload equal to what arrives. */
function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
