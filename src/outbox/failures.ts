/**
 * What the outbox does when a send or an edit fails, once `errors.ts` has said what the failure
 * means: retry after `retry_after` or a backoff, give up after `maxAttempts`, drop a blocked
 * chat's queue, follow a group to its supergroup, report a chat that is gone. It works through a
 * narrow context (`FailureContext`) rather than the whole outbox, so each reaction can be read
 * and changed on its own.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ChatState, ChatStates } from './chats.js';
import { classifyTelegramError, type TelegramFailure } from './errors.js';
import { jobInfo, settle, type EditJob, type Job, type SendJob } from './jobs.js';
import type { OutboxOptions, OutboxTuning } from './options.js';
import type { OutboxStats } from './port.js';
import { backoffMs } from '../lib/backoff.js';

/** What the failure handling needs of the outbox. */
export interface FailureContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly counters: OutboxStats;
  readonly chats: ChatStates;
  readonly hooks: Pick<OutboxOptions, 'onBlocked' | 'onGiveUp' | 'onMigrated' | 'onChatUnavailable'>;
  /** Pauses the chat (or every chat) after a 429; returns until when. */
  rateLimited(chat: ChatState, retryAfterMs: number): number;
  /** Takes the job off the chat's queue (it is done) and wakes whoever waits for progress. */
  remove(chat: ChatState, job: Job): void;
  /** Wakes whoever waits for progress (a drain). */
  progressed(): void;
  /** Runs a caller's hook; a hook that throws is logged, never thrown into the loop. */
  safely(fn: () => void): void;
}

export class FailureHandler {
  private readonly maxAttempts: number;
  private readonly baseBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly random: () => number;

  constructor(
    private readonly ctx: FailureContext,
    tuning: Pick<OutboxTuning, 'maxAttempts' | 'baseBackoffMs' | 'maxBackoffMs' | 'random'>,
  ) {
    this.maxAttempts = tuning.maxAttempts;
    this.baseBackoffMs = tuning.baseBackoffMs;
    this.maxBackoffMs = tuning.maxBackoffMs;
    this.random = tuning.random;
  }

  handle(chat: ChatState, job: SendJob | EditJob, err: unknown): void {
    const { ctx } = this;
    const failure = classifyTelegramError(err);
    const now = ctx.clock.now();
    switch (failure.kind) {
      case 'not-modified':
        if (job.type !== 'edit') return this.giveUp(chat, job, failure, err);
        ctx.counters.edited += 1;
        ctx.remove(chat, job);
        return settle(job, true);
      case 'message-gone':
        if (job.type !== 'edit') return this.giveUp(chat, job, failure, err);
        ctx.logger.debug({ chatId: chat.id, messageId: job.messageId }, 'outbox: the message to edit is gone');
        ctx.counters.dropped += 1;
        ctx.remove(chat, job);
        return settle(job, false);
      case 'blocked':
        return this.chatBlocked(chat, failure);
      case 'rate-limited':
        return this.retry(chat, job, failure, err, ctx.rateLimited(chat, failure.retryAfterMs));
      case 'migrated':
        return this.migrate(chat, job, failure.newChatId);
      case 'chat-unavailable':
        this.giveUp(chat, job, failure, err);
        return ctx.safely(() => ctx.hooks.onChatUnavailable?.(chat.id, failure.description));
      case 'transient':
        return this.retry(chat, job, failure, err, now + this.backoff(job.attempts + 1));
      case 'permanent':
        return this.giveUp(chat, job, failure, err);
    }
  }

  /**
   * The group became a supergroup: its queued messages (this one included) go to the new id, as
   * will later ones; its edits cannot follow (the messages stayed in the old chat) and are dropped.
   */
  private migrate(chat: ChatState, job: SendJob | EditJob, newChatId: number): void {
    const { ctx } = this;
    if (!ctx.chats.migrate(chat.id, newChatId)) {
      return this.giveUp(chat, job, { kind: 'permanent', description: 'a supergroup migration that goes nowhere' }, undefined);
    }
    const target = ctx.chats.state(newChatId);
    const jobs = chat.queue.filter((j) => !j.inFlight || j === job);
    chat.queue = chat.queue.filter((j) => !jobs.includes(j));
    for (const moved of jobs) {
      if (moved.type === 'send') {
        moved.chatId = newChatId;
        moved.attempts = 0;
        moved.notBefore = 0;
        ctx.counters.migrated += 1;
        ctx.chats.enqueue(target, moved);
      } else if (moved.type === 'edit') {
        ctx.counters.dropped += 1;
        settle(moved, false);
      } else {
        // A reply waiting for its turn goes as asked; Telegram's answer tells its caller.
        moved.grant({ done: () => undefined });
      }
    }
    ctx.logger.info({ chatId: chat.id, newChatId, moved: jobs.length }, 'outbox: the group became a supergroup; its messages follow it');
    ctx.safely(() => ctx.hooks.onMigrated?.(chat.id, newChatId));
    ctx.progressed();
  }

  private retry(chat: ChatState, job: SendJob | EditJob, failure: TelegramFailure, err: unknown, notBefore: number): void {
    const { ctx } = this;
    job.attempts += 1;
    if (job.attempts >= this.maxAttempts) return this.giveUp(chat, job, failure, err);
    job.notBefore = notBefore;
    ctx.counters.retried += 1;
    ctx.logger.debug(
      { chatId: chat.id, type: job.type, attempts: job.attempts, waitMs: notBefore - ctx.clock.now(), reason: failure.description },
      'outbox: will retry',
    );
  }

  private giveUp(chat: ChatState, job: SendJob | EditJob, failure: TelegramFailure, err: unknown): void {
    const { ctx } = this;
    ctx.remove(chat, job);
    ctx.counters.gaveUp += 1;
    const info = jobInfo(job, failure.description);
    ctx.logger.warn(
      { chatId: info.chatId, type: info.type, kind: info.kind, attempts: info.attempts, reason: info.reason },
      'outbox: gave up on a message',
    );
    ctx.safely(() => ctx.hooks.onGiveUp?.(info, err));
    settle(job, false);
  }

  private chatBlocked(chat: ChatState, failure: TelegramFailure): void {
    const { ctx } = this;
    ctx.counters.blocked += 1;
    const replies = chat.queue.filter((j) => j.type === 'reply').length;
    const dropped = chat.queue.length - replies + (chat.held ? chat.held.count + chat.held.infos.length : 0);
    ctx.counters.dropped += dropped;
    const jobs = [...chat.queue, ...(chat.held?.infos ?? [])];
    chat.queue = [];
    chat.held = undefined;
    for (const job of jobs) {
      // A reply still gets its turn: its caller learns of the refusal from Telegram itself.
      if (job.type === 'reply') job.grant({ done: () => undefined });
      else settle(job, false);
    }
    ctx.logger.info({ chatId: chat.id, dropped, reason: failure.description }, 'outbox: the chat refuses messages; its queue was dropped');
    ctx.safely(() => ctx.hooks.onBlocked?.(chat.id));
  }

  private backoff(attempt: number): number {
    return backoffMs({ baseMs: this.baseBackoffMs, maxMs: this.maxBackoffMs }, attempt, this.random);
  }
}
