/**
 * Test helpers for the outbox: an in-memory Bot API that records each call on the ManualClock and
 * fails on script with grammY's own error classes, and a log sink.
 */
import { GrammyError, HttpError } from 'grammy';
import type { ManualClock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import type { OutboxApi, OutboxMessageOptions } from '../../src/outbox/api.js';
import { captureLogs } from '../support/logs.js';

export interface ApiCall {
  method: 'sendMessage' | 'editMessageText';
  chatId: number;
  messageId?: number;
  text: string;
  other: OutboxMessageOptions | undefined;
  at: number;
  ok: boolean;
}

type Failure = (call: ApiCall) => Error | undefined;

export class ScriptedApi implements OutboxApi {
  readonly calls: ApiCall[] = [];
  private readonly failures: Failure[] = [];
  private readonly nextIds = new Map<number, number>();

  constructor(private readonly clock: ManualClock) {}

  /** Every call is offered to `failure` (first registered first) until it returns an error for it. */
  failWhen(failure: Failure): void {
    this.failures.push(failure);
  }

  async sendMessage(chatId: number, text: string, other?: OutboxMessageOptions): Promise<{ message_id: number }> {
    this.check({ method: 'sendMessage', chatId, text, other, at: this.clock.now(), ok: true });
    const id = this.nextIds.get(chatId) ?? 1;
    this.nextIds.set(chatId, id + 1);
    return { message_id: id };
  }

  async editMessageText(chatId: number, messageId: number, text: string, other?: OutboxMessageOptions): Promise<true> {
    this.check({ method: 'editMessageText', chatId, messageId, text, other, at: this.clock.now(), ok: true });
    return true;
  }

  sent(chatId?: number): ApiCall[] {
    return this.calls.filter((c) => c.ok && c.method === 'sendMessage' && (chatId === undefined || c.chatId === chatId));
  }

  private check(call: ApiCall): void {
    this.calls.push(call);
    for (const failure of this.failures) {
      const err = failure(call);
      if (err) {
        call.ok = false;
        throw err;
      }
    }
  }
}

/** A GrammyError exactly as grammY builds it from a Telegram answer. */
export function telegramError(code: number, description: string, retryAfter?: number): GrammyError {
  const parameters = retryAfter === undefined ? {} : { retry_after: retryAfter };
  return new GrammyError(`Call to 'sendMessage' failed!`, { ok: false, error_code: code, description, parameters }, 'sendMessage', {});
}

/** An HttpError as grammY raises it when the request itself fails (its inner error names the URL). */
export function networkError(token: string): HttpError {
  return new HttpError(
    "Network request for 'sendMessage' failed!",
    new Error(`request to http://127.0.0.1:1/bot${token}/sendMessage failed, reason: ECONNREFUSED`),
  );
}

/** Fails the next `count` calls that match. */
export function times(count: number, match: (c: ApiCall) => boolean, err: () => Error): Failure {
  let left = count;
  return (call) => {
    if (left <= 0 || !match(call)) return undefined;
    left -= 1;
    return err();
  };
}

/** A logger whose lines are kept in memory (the shared capture, read as a list). */
export function memoryLogger(): { logger: Logger; lines: () => string[] } {
  const { logger, lines } = captureLogs();
  return { logger, lines: () => lines.map((l) => l.trimEnd()) };
}

/** Lets promise chains started by the last step run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Lets the outbox settle, then moves the clock (a ManualClock only wakes sleepers already waiting). */
export async function run(clock: ManualClock, ms: number): Promise<void> {
  await settle();
  await clock.advance(ms);
  await settle();
}

/** The largest number of `times` inside any window (as a sliding-window limit counts them), and how many a token bucket would refuse. */
export { bucketRefusals, maxInWindow } from '../support/window.js';
