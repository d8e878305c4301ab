/**
 * What the bot needs from the rest of the program. `createBot` takes these; features receive
 * the resolved form (`BotRuntime`) with the clock filled in.
 */
import type { ApiClientOptions, Transformer } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { ChatGate } from '../outbox/chat-gate.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { SchedulerPort } from '../scheduler/port.js';
import type { ServiceClient } from '../service/client-types.js';
import type { Store } from '../store/port.js';
import type { Vault } from '../store/vault.js';
import type { CapsPort } from './caps.js';
import type { ConversationStorage } from './conversation-store.js';
import type { PendingStore } from './pending.js';
import type { RenderedMessages } from './ui/rendered.js';

/**
 * Runs `handle` in the chat's turn among every front of a cluster (src/cluster/chat-turns.ts): one
 * chat's updates one at a time, whichever front each reaches. A single process needs none
 * (`sequentialize` orders a chat's updates within it).
 */
export type ChatTurns = (chat: string, handle: () => Promise<void>) => Promise<void>;

/** Counts for the admin's /stats, e.g. `{ readsPerMinute, alertsPerMinute, errors }`. */
export type BotStats = () => Record<string, number>;

export interface BotDeps {
  config: Config;
  logger: Logger;
  store: Store;
  vault: Vault;
  client: ServiceClient;
  scheduler: SchedulerPort;
  /** Defaults to the system clock. Pending inputs, mutes, snoozes and "ago" texts follow it. */
  clock?: Clock;
  /** Known bot identity (tests), so no getMe call is needed. */
  botInfo?: UserFromGetMe;
  /** Optional provider of live counts for the admin's /stats. */
  stats?: BotStats;
  /**
   * Extra Bot API client options (tests: a fake `fetch`). `apiRoot` defaults to TELEGRAM_API_ROOT.
   * These reach the API instances inside conversations too, since the plugin copies them.
   */
  telegramClient?: ApiClientOptions;
  /**
   * Extra API transformers, installed on `bot.api` and inside every conversation (after
   * auto-retry), e.g. a metrics counter.
   */
  apiTransformers?: Transformer[];
  /**
   * The outbox's per-chat budget: when given, every call to a chat (replies included, inside
   * conversations too) waits for its turn there and waits out 429s instead of failing.
   */
  chatGate?: ChatGate;
  /**
   * Where open flows are kept; the caller starts and stops its sweep of abandoned ones. Without
   * it, the bot keeps its own (never swept: for short-lived bots in tests).
   */
  conversationStore?: ConversationStorage;
  /**
   * The open questions and the caps. Without them, the bot keeps its own in memory (the embedded
   * bot); the fronts of a cluster pass the ones they share in Redis.
   */
  pending?: PendingStore;
  caps?: CapsPort;
  /** The fronts of a cluster: a chat's updates in turn across all of them. */
  chatTurns?: ChatTurns;
}

/** The dependencies as features use them: every optional service resolved. */
export interface BotRuntime extends Omit<BotDeps, 'clock' | 'pending' | 'caps' | 'chatTurns'> {
  clock: Clock;
  /** Questions waiting for a plain-message answer (no secrets). */
  pending: PendingStore;
  /** Per-user and per-key caps on what spends the service's budget. */
  caps: CapsPort;
  /** What the bot last put into messages it edits in place (no edit that changes nothing). */
  rendered: RenderedMessages;
}
