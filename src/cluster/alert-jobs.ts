/**
 * The alert queue's wire format, shared by its two ends: the workers' `RemoteOutbox` (which puts
 * sends and edits on the queue) and the front's consumer (which hands them to the one outbox that
 * talks to Telegram). One BullMQ queue, `alert-queue`, under the cluster's key prefix.
 *
 * A job is plain data, checked with zod where it is taken off the queue (Redis is shared, so a job
 * is whatever some process wrote there) and its answer checked where it comes back. A job named by
 * an idempotency key gets a fixed job id derived from it, so a second enqueue of the same alert
 * finds the first job instead of adding one; the same derived id names the sender's claim.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { langSchema } from '../store/schema.js';
import type { OutboxEditOptions, OutboxSendOptions } from '../outbox/port.js';

/**
 * The queue's name under the prefix: keys `{prefix}alert-queue:*`, apart from the store's alert state
 * (`{prefix}alerts:<user>:<service>`), so that neither can ever read or remove the other's keys
 * (audit 2, N11).
 */
export const ALERT_QUEUE = 'alert-queue';

/** Version of the payload; a consumer discards a version it does not know. */
const WIRE_VERSION = 1;

/** Longest text taken (the outbox splits text over 4096 characters; an alert is far shorter). */
const MAX_TEXT = 16 * 4096;

/**
 * BullMQ's `prefix` option: it joins prefix and queue name with ':' itself, so the cluster's
 * prefix ("bb:") loses its trailing colon and the keys read `bb:alert-queue:…`.
 */
/**
 * A job's BullMQ name: its type and the worker outbox its answer goes to (remote-outbox.ts). A
 * consumer answers on that outbox's channel; a job whose name names none (an older worker's)
 * is answered through BullMQ's return value alone.
 */
export function jobName(type: 'send' | 'edit', replyTo: string): string {
  return `${type}|${replyTo}`;
}

/** Where a job's answer goes (its name's outbox), or undefined when its name names none. */
export function replyToOf(name: string): string | undefined {
  return /^(?:send|edit)\|([A-Za-z0-9_-]{8,64})$/.exec(name)?.[1];
}

/** The pub/sub channel of a worker outbox's answers. */
export function answerChannel(prefix: string, replyTo: string): string {
  return `${prefix}alert-answers:${replyTo}`;
}

/** A job's answer on the channel: the job id and the consumer's return value, or why it failed for good. */
export const answerSchema = z.object({ id: z.string().min(1), ok: z.boolean(), value: z.unknown().optional(), error: z.string().optional() });

export function bullPrefix(prefix: string): string {
  return prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
}

/**
 * The job id (and claim name) of an idempotency key: a hash, because BullMQ refuses ids with ':'
 * or that read as integers, and so that no user or item id shows in a Redis key name.
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
  })
  .strict();

const editOptionsSchema = z
  .object({
    buttons: buttonsSchema.optional(),
    gone: z.boolean().optional(),
    idempotencyKey: keySchema.optional(),
  })
  .strict();

/** The worker's signature (job-guard.ts): HMAC-SHA256, base64url. */
const sigSchema = z.string().max(64).optional();
/** When the worker signed the job (its clock, ms) and a random nonce: signed, so an old job cannot be put back (job-guard.ts). */
const atSchema = z.number().int().positive().safe().optional();
const nonceSchema = z.string().regex(/^[\w-]{16,43}$/).optional();

const sendJobSchema = z
  .object({ v: z.literal(WIRE_VERSION), type: z.literal('send'), chatId: chatIdSchema, text: textSchema, opts: sendOptionsSchema, at: atSchema, nonce: nonceSchema, sig: sigSchema })
  .strict();
const editJobSchema = z
  .object({
    v: z.literal(WIRE_VERSION),
    type: z.literal('edit'),
    chatId: chatIdSchema,
    messageId: z.number().int().positive().safe(),
    text: textSchema,
    opts: editOptionsSchema,
    at: atSchema,
    nonce: nonceSchema,
    sig: sigSchema,
  })
  .strict();

/** What the consumer accepts off the queue. */
export const alertJobSchema = z.discriminatedUnion('type', [sendJobSchema, editJobSchema]);
export type AlertJob = z.infer<typeof alertJobSchema>;
export type SendAlertJob = z.infer<typeof sendJobSchema>;

/** A send's answer: the message id, or null (folded, held, dropped, given up, or already sent without an id). */
export const sendResultSchema = z.number().int().positive().safe().nullable();
/** An edit's answer: applied (or already so), or not. */
export const editResultSchema = z.boolean();

/**
 * The payload of a send, as plain data: only the fields the wire knows (an options object built
 * with extra fields in it would otherwise be refused by the consumer).
 */
export function sendJob(chatId: number, text: string, opts: OutboxSendOptions): AlertJob {
  const { buttons, kind, digestLine, digestButtons, holdUntil, lang, late, idempotencyKey, forUser, heldItem, silent, replyTo, foundAt } = opts;
  return { v: WIRE_VERSION, type: 'send', chatId, text, opts: definedOnly({ buttons, kind, digestLine, digestButtons, holdUntil, lang, late, idempotencyKey, forUser, heldItem, silent, replyTo, foundAt }) };
}

/** The payload of an edit, as plain data. */
export function editJob(chatId: number, messageId: number, text: string, opts: OutboxEditOptions): AlertJob {
  const { buttons, gone, idempotencyKey } = opts;
  return { v: WIRE_VERSION, type: 'edit', chatId, messageId, text, opts: definedOnly({ buttons, gone, idempotencyKey }) };
}

/** Drops undefined fields, which JSON would drop anyway; keeps the payload equal to what arrives. */
function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
