/**
 * The guided flows' state (the conversations plugin's storage: /filter, /settings) shared by every
 * front of a cluster in Redis, so a flow begun on one front goes on when the next answer reaches
 * another. One key per chat, `conv:KEY` under REDIS_PREFIX, holding the plugin's JSON; each write
 * sets its expiry (PX) to the flow timeout (FLOW_TIMEOUT_MS: every wait of a flow ends by then),
 * which replaces the embedded bot's sweep: an abandoned flow is gone after that long on its own.
 * A value read back is checked with zod against the plugin's shape; one that does not match is
 * dropped (the flow starts afresh) rather than replayed.
 *
 * Two updates of ONE chat reaching two fronts at the same moment: each front keeps a chat's updates
 * in order only among its own (`sequentialize`), so without more both would replay the same state
 * and the later write would undo the earlier step. Every cluster front therefore handles a chat's
 * update in that chat's turn (chat-turns.ts, a Redis key per chat). What is still not guarded: a
 * step slower than the turn's wait (15 s) or its hold (30 s), when the next update goes ahead
 * without the turn; then the later write wins and the lost answer is asked again. That is
 * acceptable: it loses that answer only, and nothing secret goes through a flow (the secret is
 * taken before the conversations, by the open questions, written by atomic scripts in
 * shared-pending.ts).
 */
import type { ConversationData, VersionedState } from '@grammyjs/conversations';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { ConversationStorage } from '../bot/conversation-store.js';
import { FLOW_TIMEOUT_MS } from '../bot/conversations/timeout.js';
import { parseJsonOrUndefined, stateCall, type SharedStateOptions } from './state-calls.js';

const conversationState = z.object({
  args: z.string().optional(),
  replay: z.object({
    send: z.array(z.object({ payload: z.string() })),
    receive: z.array(z.object({ send: z.number().int(), returnValue: z.unknown() })),
  }),
  interrupts: z.array(z.number().int()),
});
const versionedState = z.object({
  version: z.tuple([z.literal(0), z.union([z.string(), z.number()])]),
  state: z.record(z.string(), z.array(conversationState)),
});

export interface SharedConversationsOptions extends SharedStateOptions {
  logger: Logger;
  /** How long an untouched flow is kept (default FLOW_TIMEOUT_MS). */
  idleMs?: number;
}

export function createSharedConversations(redis: Redis, opts: SharedConversationsOptions): ConversationStorage {
  const idleMs = opts.idleMs ?? FLOW_TIMEOUT_MS;
  const keyOf = (key: string) => `${opts.prefix}conv:${key}`;
  const call = <T>(what: string, p: Promise<T>) => stateCall(what, p, opts.timeoutMs);

  return {
    adapter: {
      async read(key) {
        const raw = await call('reading a guided flow', redis.get(keyOf(key)));
        if (raw === null) return undefined;
        const parsed = versionedState.safeParse(parseJsonOrUndefined(raw));
        if (parsed.success) return parsed.data as VersionedState<ConversationData>;
        opts.logger.warn({ key }, 'a guided flow in Redis did not read back as one: dropped');
        await call('dropping an unreadable flow', redis.del(keyOf(key)));
        return undefined;
      },
      async write(key, state) {
        await call('keeping a guided flow', redis.set(keyOf(key), JSON.stringify(state), 'PX', idleMs));
      },
      async delete(key) {
        await call('ending a guided flow', redis.del(keyOf(key)));
      },
    },
    // Nothing to sweep: every key expires by itself.
    start: () => undefined,
    stop: () => undefined,
  };
}
