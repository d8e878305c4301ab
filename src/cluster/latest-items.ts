/**
 * The latest items of a user, asked of the worker that polls them. In the embedded bot the
 * scheduler holds each subscription's last read and `/item`, `/event` (as a fallback) and inline
 * queries draw from it. In a cluster the front has no scheduler, so it asks: it publishes the
 * question on `{prefix}latest:ask`; the worker that owns the user (its bucket lease) answers on the
 * front's own reply channel with what its scheduler holds. Nothing is written anywhere while nobody
 * asks — a read every 2 s per subscription stays in the worker — and an answer costs one round
 * trip. No owner, or no answer within `timeoutMs` (a takeover in progress): no items, as for a user
 * whose first read has not come yet.
 *
 * Answers are checked with zod at the front (they come from the network). `undefined` does not
 * survive JSON, so fields that may be undefined travel as null.
 *
 * Whoever holds the Redis password can publish too (audit 3, M3): a team name "Your key expired:
 * reconnect at https://…" answered first reached inline results, /item and the re-drawn alert, and
 * any client could ask for any user's items on a reply channel of its own. So a question carries
 * an HMAC (a worker answers only the cluster's own questions), and an answer is sealed (AES-GCM
 * under a key derived from the encryption key) and bound to its question and user: the front takes
 * only an answer that opens for the question it asked, and nobody else can read the items.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { NO_AUTO_RESUBSCRIBE, resubscribing } from '../lib/redis-resubscribe.js';
import type { Logger } from '../logger.js';
import { canonical } from './job-guard.js';
import type { MessageSeal } from './message-seal.js';
import type { Opportunity } from '../service/opportunity.js';
import { serviceSchema, type Service } from '../service/services.js';

const maybeNumber = z.number().nullable().transform((v) => v ?? undefined);
const legSchema = z.object({
  subEventId: z.string(),
  bookmakerId: maybeNumber,
  typeId: z.number(),
  line: z.string(),
  odds: z.number().nullable(),
  prevOdds: z.number().nullable(),
  updatedAt: maybeNumber,
  initiator: z.boolean(),
});
const opportunitySchema = z.object({
  id: z.string(),
  service: serviceSchema,
  kind: z.enum(['arbs', 'middles', 'valuebets']),
  event: z.object({
    id: z.string(),
    sportId: maybeNumber,
    league: z.string(),
    team1: z.string(),
    team2: z.string(),
    startsAt: maybeNumber,
    live: z.boolean(),
  }),
  legs: z.array(legSchema),
  profit: z.number().nullable(),
  middleProfit: z.number().nullable(),
  overvalue: z.number().nullable(),
  probability: z.number().nullable(),
  createdAt: maybeNumber,
  masked: z.boolean(),
  groupIds: z.array(z.number().int().nonnegative()).max(8).optional(),
});
const answerSchema = z.object({ id: z.string(), box: z.string().max(16_000_000) });
const itemsSchema = z.array(opportunitySchema);
const askSchema = z.object({ id: z.string(), reply: z.string(), userId: z.number().int(), service: serviceSchema.optional(), mac: z.string() });

/** `vault.deriveKey`'s purpose for the seal of questions and answers. */
export const LATEST_ITEMS_KEY_PURPOSE = 'latest-items';

/** What a question's HMAC covers: every field but the HMAC itself. */
const askText = (ask: { id: string; reply: string; userId: number; service?: Service | undefined }) =>
  canonical({ id: ask.id, reply: ask.reply, userId: ask.userId, service: ask.service });
/** What an answer is bound to: the question it answers and the user it is about. */
const answerContext = (id: string, userId: number) => `latest-items:${id}:${userId}`;

/** JSON with undefined fields kept as null (the schema turns them back). */
const encode = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (v === undefined ? null : v));

export interface LatestItemsAsker {
  /** The user's latest items as their worker holds them; [] without an answer in time. */
  ask(userId: number, service?: Service): Promise<Opportunity[]>;
  close(): Promise<void>;
}

export interface LatestItemsAnswerer {
  close(): Promise<void>;
}

export interface LatestItemsOptions {
  /** A command connection (publishes); a subscriber is duplicated from it and closed with this. */
  redis: Redis;
  prefix: string;
  logger: Logger;
  /** `messageSealFor(vault, LATEST_ITEMS_KEY_PURPOSE)`: the same on every process of the cluster. */
  seal: MessageSeal;
}

/** The front's side. */
export async function createLatestItemsAsker(opts: LatestItemsOptions & { timeoutMs?: number }): Promise<LatestItemsAsker> {
  const { redis, prefix } = opts;
  const timeoutMs = opts.timeoutMs ?? 1_000;
  const log = opts.logger.child({ module: 'latest-items' });
  const reply = `${prefix}latest:reply:${randomBytes(6).toString('hex')}`;
  const waiting = new Map<string, { userId: number; finish: (items: Opportunity[]) => void }>();
  const sub = redis.duplicate({ connectionName: 'bb-latest-replies', ...NO_AUTO_RESUBSCRIBE });
  sub.on('error', (err) => log.debug({ err }, 'latest items: reply channel connection trouble'));
  sub.on('message', (_channel: string, message: string) => {
    const answer = answerSchema.safeParse(safeJson(message));
    const asked = answer.success ? waiting.get(answer.data.id) : undefined;
    if (!answer.success || !asked) return;
    // A forged or altered answer neither counts nor ends the wait: the owner's may still come.
    const plain = opts.seal.open(answer.data.box, answerContext(answer.data.id, asked.userId));
    const items = plain === undefined ? undefined : itemsSchema.safeParse(safeJson(plain));
    if (!items?.success) {
      log.warn({ user_id: asked.userId }, 'latest items: an answer that did not open as this question\'s list of items was ignored');
      return;
    }
    asked.finish(items.data);
  });
  await resubscribing(sub, (err) => log.debug({ err }, 'latest items: could not subscribe to the reply channel again'))(reply);

  return {
    async ask(userId, service) {
      const id = randomBytes(6).toString('hex');
      const answered = new Promise<Opportunity[]>((resolve) => {
        const timer = setTimeout(() => finish([]), timeoutMs);
        const finish = (items: Opportunity[]) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(items);
        };
        waiting.set(id, { userId, finish });
      });
      try {
        const ask = { id, reply, userId, ...(service && { service }) };
        const listeners = await redis.publish(`${prefix}latest:ask`, encode({ ...ask, mac: opts.seal.mac(askText(ask)) }));
        // No worker listens (none started yet): no answer will come.
        if (listeners === 0) waiting.get(id)?.finish([]);
      } catch (err) {
        log.warn({ err }, 'latest items: could not ask the workers');
        waiting.get(id)?.finish([]);
      }
      return answered;
    },
    async close() {
      for (const { finish } of [...waiting.values()]) finish([]);
      sub.disconnect();
    },
  };
}

/** A worker's side: answers for the users it owns, from its scheduler. */
export async function createLatestItemsAnswerer(
  opts: LatestItemsOptions & { owns(userId: number): boolean; latestItems(userId: number, service?: Service): Opportunity[] },
): Promise<LatestItemsAnswerer> {
  const { redis, prefix } = opts;
  const log = opts.logger.child({ module: 'latest-items' });
  const sub = redis.duplicate({ connectionName: 'bb-latest-asks', ...NO_AUTO_RESUBSCRIBE });
  sub.on('error', (err) => log.debug({ err }, 'latest items: ask channel connection trouble'));
  sub.on('message', (_channel: string, message: string) => {
    const ask = askSchema.safeParse(safeJson(message));
    // Only the reply channels of this cluster: a forged ask cannot make a worker publish elsewhere.
    if (!ask.success || !ask.data.reply.startsWith(`${prefix}latest:reply:`)) return;
    const { id, reply, userId, service } = ask.data;
    if (!opts.owns(userId)) return;
    if (!opts.seal.verify(askText(ask.data), ask.data.mac)) {
      log.warn({ user_id: userId }, 'latest items: a question not signed by this cluster was not answered');
      return;
    }
    const box = opts.seal.seal(encode(opts.latestItems(userId, service)), answerContext(id, userId));
    redis.publish(reply, JSON.stringify({ id, box })).catch((err: unknown) => {
      log.debug({ err }, 'latest items: could not answer');
    });
  });
  await resubscribing(sub, (err) => log.debug({ err }, 'latest items: could not subscribe to the questions again'))(`${prefix}latest:ask`);
  return {
    async close() {
      sub.disconnect();
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
