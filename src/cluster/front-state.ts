/**
 * The security state every front of a cluster shares in Redis (issue 24): the open questions (a
 * secret pasted on another front than the one that asked for it is still deleted), the guided
 * flows (a /filter begun on one front goes on on another) and the caps (which do not multiply
 * with the number of fronts), and the chats' turns (one chat's updates one at a time, whichever
 * front each reaches: chat-turns.ts), and which webhook updates a front has taken (a re-sent update
 * reaching another front is not handled twice: seen-updates.ts). The embedded bot keeps the first three in memory (src/bot/)
 * and needs no turns across processes.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { CapsPort } from '../bot/caps.js';
import type { ConversationStorage } from '../bot/conversation-store.js';
import type { PendingStore } from '../bot/pending.js';
import type { ChatTurns } from '../bot/deps.js';
import { createChatTurns } from './chat-turns.js';
import type { FirstSeen } from '../bot/webhook.js';
import { createSeenUpdates } from './seen-updates.js';
import { createSharedCaps } from './shared-caps.js';
import { createSharedConversations } from './shared-conversations.js';
import { createSharedPending } from './shared-pending.js';
import type { MessageSeal } from './message-seal.js';
import type { SharedStateOptions } from './state-calls.js';

export interface FrontState {
  pending: PendingStore;
  caps: CapsPort;
  conversations: ConversationStorage;
  turns: ChatTurns;
  firstSeen: FirstSeen;
}

export function createSharedFrontState(redis: Redis, opts: SharedStateOptions & { logger: Logger; seal: MessageSeal }): FrontState {
  return {
    pending: createSharedPending(redis, opts),
    caps: createSharedCaps(redis, opts),
    conversations: createSharedConversations(redis, opts),
    turns: createChatTurns(redis, opts),
    firstSeen: createSeenUpdates(redis, opts),
  };
}
