/**
 * The outbox's side of the chat gate (`chat-gate.ts`): a command reply, queued in its chat like
 * any other job, is handed its turn and reports back how Telegram answered; a 429 it met pauses
 * the chat exactly as the outbox's own would. While the outbox is not sending, a call only waits
 * out the pauses, and replies still waiting when it stops are let go.
 */
import type { Clock } from '../clock.js';
import type { GateOutcome, GateTicket } from './chat-gate.js';
import type { ChatState, ChatStates } from './chats.js';
import type { Job, ReplyJob } from './jobs.js';
import type { Pauses } from './pauses.js';
import type { OutboxStats } from './port.js';

/** What the reply turns need of the outbox. */
export interface ReplyContext {
  readonly clock: Clock;
  readonly chats: ChatStates;
  readonly pauses: Pauses;
  readonly counters: OutboxStats;
  /** Pauses the chat (or every chat) after a 429; returns until when. */
  rateLimited(chat: ChatState, retryAfterMs: number): number;
  /** Takes the job off the chat's queue (it is done) and wakes whoever waits for progress. */
  remove(chat: ChatState, job: Job): void;
  /** Runs a caller's hook; a hook that throws is logged, never thrown into the loop. */
  safely(fn: () => void): void;
}

export class ReplyTurns {
  constructor(private readonly ctx: ReplyContext) {}

  /** Hands the turn to the caller and waits for its report; a 429 pauses the chat as the outbox's own would. */
  grant(chat: ChatState, job: ReplyJob): Promise<void> {
    const { ctx } = this;
    return new Promise((finished) => {
      let reported = false;
      const ticket: GateTicket = {
        done: (outcome: GateOutcome) => {
          if (reported) return;
          reported = true;
          ctx.remove(chat, job);
          if (outcome.retryAfterMs !== undefined) ctx.rateLimited(chat, outcome.retryAfterMs);
          finished();
        },
      };
      ctx.counters.replies += 1;
      ctx.safely(() => job.grant(ticket));
    });
  }

  /** Waits until neither the chat nor the whole bot is paused by a 429 (the outbox is not sending). */
  async waitOutPauses(chatId: number | undefined): Promise<GateTicket> {
    const { ctx } = this;
    for (;;) {
      const chat = chatId === undefined ? undefined : ctx.chats.get(chatId);
      const until = Math.max(ctx.pauses.globalUntil, chat?.pausedUntil ?? 0);
      const now = ctx.clock.now();
      if (until <= now) break;
      await ctx.clock.sleep(until - now);
    }
    return {
      done: (outcome) => {
        if (outcome.retryAfterMs === undefined) return;
        if (chatId === undefined) ctx.pauses.pauseAll(ctx.clock.now() + outcome.retryAfterMs);
        else ctx.rateLimited(ctx.chats.state(chatId), outcome.retryAfterMs);
      },
    };
  }

  /** Lets every reply still waiting for a turn go (the outbox stopped: nobody would grant it). */
  releaseWaiting(): void {
    for (const chat of this.ctx.chats.values()) {
      const waiting = chat.queue.filter((j): j is ReplyJob => j.type === 'reply' && !j.inFlight);
      if (waiting.length === 0) continue;
      const gone = new Set<Job>(waiting);
      chat.queue = chat.queue.filter((j) => !gone.has(j));
      for (const job of waiting) void this.waitOutPauses(chat.id).then(job.grant);
    }
  }
}
