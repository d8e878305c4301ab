/**
 * 429 pauses. Telegram's `retry_after` pauses the chat it was about; when two chats are told to
 * wait at once the limit is the bot's own, not one chat's, and every chat waits.
 */
import type { Logger } from '../logger.js';

export class Pauses {
  /** No call goes before this (ms on the outbox's clock). */
  globalUntil = 0;
  private last429: { chatId: number; until: number } | undefined;

  constructor(private readonly logger: Logger) {}

  /** Pauses the chat (or, when two chats are told to wait at once, every chat) until `retry_after` is over; returns when. */
  rateLimited(chat: { id: number; pausedUntil: number }, retryAfterMs: number, now: number): number {
    const until = now + retryAfterMs;
    chat.pausedUntil = Math.max(chat.pausedUntil, until);
    // Two chats told to wait at once: the limit is the bot's, not one chat's.
    if (this.last429 && this.last429.chatId !== chat.id && this.last429.until > now) {
      this.globalUntil = Math.max(this.globalUntil, until, this.last429.until);
      this.logger.warn({ retryAfterMs }, 'outbox: Telegram rate limit hit across chats; pausing all sends');
    }
    this.last429 = { chatId: chat.id, until };
    return until;
  }

  /** A call that names no chat was told to wait: everything waits. */
  pauseAll(until: number): void {
    this.globalUntil = Math.max(this.globalUntil, until);
  }

  /** Forgets the last 429 once its pause is over. */
  forgetPast(now: number): void {
    if (this.last429 && this.last429.until <= now) this.last429 = undefined;
  }
}
