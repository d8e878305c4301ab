/**
 * How the in-process outbox is set up: the options it takes (the Bot API, the clock, Telegram's
 * limits, retry and digest settings, the hooks it reports to) and their defaults, resolved once.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Lang } from '../store/schema.js';
import type { OutboxApi } from './api.js';
import type { OutboxJobInfo } from './jobs.js';
import type { HeldAliveCheck } from './port.js';
import { bucketRate, type BucketRate } from './chat-bucket.js';
import { rateWindow, type RateWindow } from './pacing.js';

/** What the outbox reports to the operator's metrics: a new message's wait before its first call, in ms. */
export interface OutboxMetrics {
  outboxWait(ms: number): void;
}

export interface OutboxOptions {
  /** Use the raw `bot.api`: a retry transformer on it (auto-retry) would hide the 429s the outbox paces by. */
  api: OutboxApi;
  logger: Logger;
  clock?: Clock;
  /** Messages a second over all chats (default 25). */
  globalPerSecond?: number;
  /**
   * Edits and gone marks go only while the bot's last second holds fewer messages than this (default
   * 15 of 25): the rest of the second is left to new messages and replies, so a new alert for many
   * chats at once (one read serving a whole read group) does not wait for a second full of edits.
   */
  editsPerSecond?: number;
  /**
   * Edits and gone marks take this many of the bot's second before new messages, whatever else waits
   * (default 5; 0: none): a flood of new alerts at Telegram's pace would otherwise leave every alert
   * already sent without its moves and its ⛔ Gone for as long as it lasts.
   */
  editsFloorPerSecond?: number;
  /** Messages a second to one chat once its burst is spent (default 1); groups and channels are held to it too. */
  privatePerSecond?: number;
  /**
   * Messages one chat may take at once (default 3, as Telegram allows): new messages and command
   * replies may spend the burst, edits and gone marks only a full bucket (they leave the burst to
   * the next new alert).
   */
  privateBurst?: number;
  /** Messages a minute to one group or channel (default 20). */
  groupPerMinute?: number;
  /** Calls made for one job before it is given up (default 8). */
  maxAttempts?: number;
  /** More queued alerts than this for one chat fold into a digest (default 5). */
  digestThreshold?: number;
  /**
   * An alert that has waited this long (ms) means the bot is behind Telegram's pace: the alerts
   * queued behind it for the same chat fold into one digest at once, so a backlog stays small and
   * nobody gets a stream of stale alerts. Default 30 s.
   */
  behindMs?: number;
  /** Lines listed in one digest or quiet-hours summary before "… and N more" (default 50). */
  digestMaxLines?: number;
  /** First backoff after a 5xx or network failure, doubled each time (default 1000 ms), up to `maxBackoffMs` (default 60 s). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Calls in flight at once over all chats (default 8). */
  maxInFlight?: number;
  /** Jitter source for backoff, 0..1 (default Math.random). */
  random?: () => number;
  /** The language of a chat's digest and summary texts when `send` does not say (default 'en'). */
  langFor?: (chatId: number) => Lang;
  /** Telegram answered 403: the user blocked the bot, or the bot was removed from the group or channel. */
  onBlocked?: (chatId: number) => void;
  /** A job was given up after its bounded retries or a permanent refusal. */
  onGiveUp?: (job: OutboxJobInfo, err: unknown) => void;
  /**
   * Metrics hook: how long each new message waited before its first call. The outbox declares the
   * one call it makes and the operator port's `MetricsPort` (health/observe.ts) fits it, so the
   * outbox needs nothing from `health/`, which sits above it.
   */
  metrics?: OutboxMetrics;
  /** Quiet-hours summary: whether each held alert's item is still on offer when the summary goes. */
  heldAlive?: HeldAliveCheck;
  /** The group became a supergroup: its queued messages went to `newChatId`, and so will later ones. */
  onMigrated?: (oldChatId: number, newChatId: number) => void;
  /** Telegram says the chat is gone or the bot may not post there (a 400 about the chat or rights). */
  onChatUnavailable?: (chatId: number, description: string) => void;
}

/** The options with their defaults applied and their bounds enforced. */
export interface OutboxTuning {
  globalWindow: RateWindow;
  editWindow: RateWindow;
  /** Edits owed their floor (`editsFloorPerSecond`); a limit of 0: no floor. */
  editFloorWindow: RateWindow;
  chatBucket: BucketRate;
  groupWindow: RateWindow;
  maxAttempts: number;
  digestThreshold: number;
  behindMs: number;
  digestMaxLines: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  maxInFlight: number;
  random: () => number;
}

export function outboxTuning(options: OutboxOptions): OutboxTuning {
  const perSecond = options.globalPerSecond ?? 25;
  const editsPerSecond = Math.min(options.editsPerSecond ?? 15, perSecond);
  const editsFloor = Math.floor(Math.min(options.editsFloorPerSecond ?? 5, editsPerSecond));
  return {
    globalWindow: rateWindow(perSecond, 1000),
    editWindow: rateWindow(editsPerSecond, 1000),
    editFloorWindow: editsFloor > 0 ? rateWindow(editsFloor, 1000) : { limit: 0, spanMs: 1000 },
    chatBucket: bucketRate(options.privatePerSecond ?? 1, options.privateBurst ?? 3),
    groupWindow: rateWindow(options.groupPerMinute ?? 20, 60_000),
    maxAttempts: Math.max(1, options.maxAttempts ?? 8),
    digestThreshold: Math.max(1, options.digestThreshold ?? 5),
    behindMs: Math.max(0, options.behindMs ?? 30_000),
    digestMaxLines: Math.max(1, options.digestMaxLines ?? 50),
    baseBackoffMs: options.baseBackoffMs ?? 1000,
    maxBackoffMs: options.maxBackoffMs ?? 60_000,
    maxInFlight: Math.max(1, options.maxInFlight ?? 8),
    random: options.random ?? Math.random,
  };
}
