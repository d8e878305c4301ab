/**
 * The open questions (src/bot/pending.ts: the access key, the secret, a stake amount, …) shared by
 * every front of a cluster in Redis, so that an answer reaching another front than the one that
 * asked is still taken as that answer, and a pasted secret is deleted wherever it lands. It holds
 * what the in-memory store holds (the question, the access key of a secret question) and never a
 * secret. Each write and each read is one Lua script on Redis's clock (REDIS_NOW_LUA; tests shift
 * it with `clockOffsetMs`), so fronts with skewed clocks agree; every key has an expiry (PX), so
 * nothing outlives its use, and each value read back is checked with zod.
 *
 * Keys, under REDIS_PREFIX, for chat C and user U:
 * - `pending:q:C:U`, a hash {input, until}: the open question; PX = its life (PENDING_TTL_MS).
 * - `pending:late:C:U`, a hash {from, to}: a secret question's marker, written with the question
 *   (from = when the question expires, to = an hour later) and dropped when it is answered, so a
 *   secret pasted late is deleted on any front. It holds nothing of the question.
 * - `pending:secret:U`, a sorted set of the chats where U's secret question is open, scored by
 *   when it expires: `secretExpected` across chats and fronts in one read.
 * - `pending:chats:U`, a sorted set of the chats holding anything of U, scored by when it ends:
 *   what /forget clears.
 *
 * A question is stored with an HMAC over its chat, its user and itself (a key derived from the
 * encryption key): whoever holds the Redis password cannot write one, nor move one to another chat
 * or user, so a question naming another user's key as its owner is never taken (audit 3, M3). One
 * that fails the check reads as unreadable: dropped, and the message treated as possibly a secret.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { LATE_SECRET_MS, PENDING_TTL_MS, pendingInputSchema, type PendingInput, type PendingStore } from '../bot/pending.js';
import { StateUnavailableError } from '../bot/state-unavailable.js';
import { defineScript, offsetArg, REDIS_NOW_LUA, type ScriptCall } from './redis-calls.js';
import { parseJsonOrUndefined, stateCall, type SharedStateOptions } from './state-calls.js';
import type { MessageSeal } from './message-seal.js';

/** `vault.deriveKey`'s purpose for the HMAC of the open questions. */
export const PENDING_KEY_PURPOSE = 'pending-questions';

/** Lua: a sorted set of end times loses the ended and expires with its last member. */
const FIT_LUA = `
local function fit(key)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', key, math.max(1, tonumber(last[2]) - now)) end
end
`;

/** KEYS q, late, secret, chats; ARGV offset, ttl, input (JSON), secret (1|0), lateMs, chat. */
const SET = `${REDIS_NOW_LUA}${FIT_LUA}
local ttl = tonumber(ARGV[2])
local ends = now + ttl
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'input', ARGV[3], 'until', ends)
redis.call('PEXPIRE', KEYS[1], ttl)
local last = ends
if ARGV[4] == '1' then
  local late = tonumber(ARGV[5])
  last = ends + late
  redis.call('HSET', KEYS[2], 'from', ends, 'to', last)
  redis.call('PEXPIRE', KEYS[2], ttl + late)
  redis.call('ZADD', KEYS[3], ends, ARGV[6])
else
  redis.call('ZREM', KEYS[3], ARGV[6])
end
fit(KEYS[3])
redis.call('ZADD', KEYS[4], last, ARGV[6])
fit(KEYS[4])
return 1
`;

/** KEYS q, late; ARGV offset → {1, input} an open question, {2, ''} a late-secret watch, {0, ''} nothing. */
const LOOK = `${REDIS_NOW_LUA}
local q = redis.call('HMGET', KEYS[1], 'input', 'until')
if q[1] and tonumber(q[2]) > now then return {1, q[1]} end
local l = redis.call('HMGET', KEYS[2], 'from', 'to')
if l[1] and tonumber(l[1]) <= now and tonumber(l[2]) > now then return {2, ''} end
return {0, ''}
`;

/** KEYS q, late, secret; ARGV offset, chat → 1 when an open question was ended. An expired one's marker stays. */
const CLEAR = `${REDIS_NOW_LUA}
local ends = redis.call('HGET', KEYS[1], 'until')
local open = ends and tonumber(ends) > now
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
if open then
  redis.call('DEL', KEYS[2])
  return 1
end
return 0
`;

/** KEYS q, late; ARGV offset. The marker ends, unless it belongs to a question still open. */
const END_LATE = `${REDIS_NOW_LUA}
local ends = redis.call('HGET', KEYS[1], 'until')
if ends and tonumber(ends) > now then return 0 end
redis.call('DEL', KEYS[2])
return 1
`;

/** KEYS secret; ARGV offset → how many chats expect the user's secret. */
const SECRET_EXPECTED = `${REDIS_NOW_LUA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

const lookReply = z.tuple([z.number().int().min(0).max(2), z.string()]);

export interface SharedPendingOptions extends SharedStateOptions {
  logger: Logger;
  /** `messageSealFor(vault, PENDING_KEY_PURPOSE)`: the same on every front. */
  seal: MessageSeal;
  /** How long a question waits for its answer (tests: shorter). */
  ttlMs?: number;
}

/** The open questions of every front, on one ioredis connection (its scripts are registered on it). */
export function createSharedPending(redis: Redis, opts: SharedPendingOptions): PendingStore {
  const { prefix } = opts;
  const ttlMs = opts.ttlMs ?? PENDING_TTL_MS;
  const setScript: ScriptCall = defineScript(redis, 'bbPendingSet', 4, SET);
  const lookScript: ScriptCall = defineScript(redis, 'bbPendingLook', 2, LOOK);
  const clearScript: ScriptCall = defineScript(redis, 'bbPendingClear', 3, CLEAR);
  const endLateScript: ScriptCall = defineScript(redis, 'bbPendingEndLate', 2, END_LATE);
  const expectedScript: ScriptCall = defineScript(redis, 'bbPendingSecretExpected', 1, SECRET_EXPECTED);
  const offset = () => offsetArg(opts.clockOffsetMs);
  const call = <T>(what: string, p: Promise<T>) => stateCall(what, p, opts.timeoutMs);

  const questionKey = (chatId: number, userId: number) => `${prefix}pending:q:${chatId}:${userId}`;
  const lateKey = (chatId: number, userId: number) => `${prefix}pending:late:${chatId}:${userId}`;
  const secretKey = (userId: number) => `${prefix}pending:secret:${userId}`;
  const chatsKey = (userId: number) => `${prefix}pending:chats:${userId}`;

  /** What a question's HMAC covers: where it was asked, of whom, and what. */
  const signed = (chatId: number, userId: number, json: string) => `${chatId}:${userId}:${json}`;
  /** `<hmac>.<json>`, as stored. */
  const sealInput = (chatId: number, userId: number, input: PendingInput) => {
    const json = JSON.stringify(input);
    return `${opts.seal.mac(signed(chatId, userId, json))}.${json}`;
  };
  const openInput = (chatId: number, userId: number, stored: string): unknown => {
    const dot = stored.indexOf('.');
    const json = stored.slice(dot + 1);
    return dot > 0 && opts.seal.verify(signed(chatId, userId, json), stored.slice(0, dot)) ? parseJsonOrUndefined(json) : undefined;
  };

  /** The question or the late-secret watch of a chat and user. */
  const look = async (chatId: number, userId: number): Promise<{ input?: PendingInput; late: boolean }> => {
    const raw = await call('reading the open question', lookScript([questionKey(chatId, userId), lateKey(chatId, userId)], [offset()]));
    const [state, json] = lookReply.parse(raw);
    if (state !== 1) return { late: state === 2 };
    const parsed = pendingInputSchema.safeParse(openInput(chatId, userId, json));
    if (parsed.success) return { input: parsed.data, late: false };
    // Not a question this bot wrote (or not for this chat and user): dropped, and this message is treated as possibly a secret.
    opts.logger.warn({ chatId, userId }, 'an open question in Redis did not read back as one: dropped');
    await call('dropping an unreadable question', redis.del(questionKey(chatId, userId)));
    throw new StateUnavailableError('reading the open question', 'unreadable value');
  };

  return {
    async set(chatId, userId, input) {
      const keys = [questionKey(chatId, userId), lateKey(chatId, userId), secretKey(userId), chatsKey(userId)];
      const secret = input.kind === 'connect-secret' ? 1 : 0;
      await call('keeping the open question', setScript(keys, [offset(), ttlMs, sealInput(chatId, userId, input), secret, LATE_SECRET_MS, chatId]));
    },
    async get(chatId, userId) {
      return (await look(chatId, userId)).input;
    },
    async lateSecretWatch(chatId, userId) {
      return (await look(chatId, userId)).late;
    },
    async secretExpected(userId) {
      const n = z.number().int().parse(await call('reading the secret question', expectedScript([secretKey(userId)], [offset()])));
      return n > 0;
    },
    async clear(chatId, userId) {
      const keys = [questionKey(chatId, userId), lateKey(chatId, userId), secretKey(userId)];
      return z.number().int().parse(await call('ending the open question', clearScript(keys, [offset(), chatId]))) === 1;
    },
    async endLateSecret(chatId, userId) {
      await call('ending the late-secret watch', endLateScript([questionKey(chatId, userId), lateKey(chatId, userId)], [offset()]));
    },
    async clearUser(userId) {
      const chats = z.array(z.string()).parse(await call('reading the chats of a user', redis.zrange(chatsKey(userId), 0, -1)));
      const keys = chats.flatMap((chat) => [`${prefix}pending:q:${chat}:${userId}`, `${prefix}pending:late:${chat}:${userId}`]);
      await call('forgetting the open questions', redis.del(...keys, secretKey(userId), chatsKey(userId)));
    },
  };
}
