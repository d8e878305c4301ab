/**
 * The question a message may carry (`beforeFirstSend`, port.ts), asked in its turn right before
 * its first call: the cluster's front claims an alert there, so an alert still waiting in the
 * outbox is not claimed yet. A digest asks the questions of the alerts folded into it and leaves
 * out those told no; a message told no leaves the queue and resolves undefined.
 */
import { describeError } from './errors.js';
import type { Logger } from '../logger.js';
import type { ChatState } from './chats.js';
import { askFolded, writeDigest } from './digest.js';
import type { Job, SendJob } from './jobs.js';
import type { BeforeFirstSend, OutboxStats } from './port.js';

/** What the questions need of the outbox. */
export interface FirstSendContext {
  readonly logger: Logger;
  readonly counters: OutboxStats;
  readonly digestMaxLines: number;
  /** Takes the job off the chat's queue (it is done). */
  remove(chat: ChatState, job: Job): void;
}

export class FirstSendQuestions {
  constructor(private readonly ctx: FirstSendContext) {}

  /** Asks the message's question (a digest: its alerts', then writes its text); false when it must not go. */
  async mayGo(chat: ChatState, job: SendJob): Promise<boolean> {
    let go = true;
    if (job.folded) {
      go = (await askFolded(job, (question) => this.ask(question))) > 0;
      writeDigest(job, this.ctx.digestMaxLines);
    } else if (job.beforeFirstSend) {
      const question = job.beforeFirstSend;
      // Asked once: a retry after a 5xx or a 429 goes on with the same yes.
      job.beforeFirstSend = undefined;
      go = await this.ask(question);
    }
    if (go) return true;
    this.ctx.counters.dropped += 1;
    this.ctx.remove(chat, job);
    job.resolve(undefined);
    return false;
  }

  /** A caller's question; one that rejects counts as no (nothing is sent that nobody vouched for). */
  async ask(question: BeforeFirstSend): Promise<boolean> {
    try {
      return await question();
    } catch (err) {
      this.ctx.logger.warn({ error: describeError(err) }, 'outbox: a beforeFirstSend hook failed; the message is not sent');
      return false;
    }
  }
}
