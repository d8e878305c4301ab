// Over 400 lines: the queue and its loop share one set of counters, sequence and signals, and read as one loop; each concern that stands alone already has its own file below.
/**
 * The outbox: the one queue for every message and edit the bot sends to Telegram outside a reply,
 * and the loop that sends them. This file is the queue and the loop; each other concern has a
 * room of its own in `src/outbox/`:
 *
 * - Pacing within Telegram's limits: about 25 messages a second in all (edits at most 15 of them, so
 *   new alerts for many chats at once find room, and at least 5 when they wait, `edit-floor.ts`), 20
 *   a minute per group or channel (sliding windows on the injected clock, `pacing.ts`), and per chat a bucket of three
 *   that refills one a second (`chat-bucket.ts`): new messages and replies may use the burst,
 *   edits and gone marks only a full bucket, so a new alert never waits behind an edit. A send
 *   counts against the windows and the bucket from Telegram's answer.
 * - `retry_after` of a 429 honoured for that chat; when two chats are told to wait at once the
 *   limit is the bot's own, and everything waits (`pauses.ts`).
 * - Failures (`errors.ts` says what one means, `failures.ts` what to do): 5xx and network
 *   failures retried with backoff, then given up; a 403 drops the chat's queue (`onBlocked`); "not
 *   modified" is a success; a vanished message's edit is dropped; a supergroup is followed; a chat
 *   that is gone or refuses the bot's posts is reported (`onChatUnavailable`).
 * - A message may carry a question asked right before its first call (`first-send.ts`), and a time
 *   after which it is not sent (`expiresAt`).
 * - A burst to one chat folds into one digest, "+N more" (`digest.ts`); quiet hours hold alerts
 *   and send one summary when they end (`quiet-hours.ts`); text over 4096 characters is split
 *   between lines (`split.ts`). Per-chat state lives in `chats.ts`.
 *
 * Jobs of one chat go out one at a time, most urgent first (`priority.ts`): command replies
 * (through the chat gate, `chat-gate.ts`), then new messages, then late alerts (items first seen
 * well after they appeared), then "gone" marks, then other edits; each kind in the order it came. Chats take turns the same way.
 * Messages are HTML (`parse_mode: 'HTML'`) without link previews (`api.ts`).
 * What is left here (accepting jobs, the loop, the call, start, drain, stop) is read as one loop.
 */
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { messageOptions, type OutboxApi } from './api.js';
import type { GateTicket } from './chat-gate.js';
import { ChatStates, spend, type ChatState } from './chats.js';
import { addToDigest, foldBurst, openDigest, type DigestRules } from './digest.js';
import { describeError } from './errors.js';
import { FailureHandler } from './failures.js';
import { FirstSendQuestions } from './first-send.js';
import { coalesceEdit, firstLine, newEditJob, newReplyJob, newSendJob, settle, type EditJob, type Job, type SendJob, type SendJobFields } from './jobs.js';
import { outboxTuning, type OutboxOptions, type OutboxTuning } from './options.js';
import { EditFloor } from './edit-floor.js';
import { SendTimes } from './pacing.js';
import { Pauses } from './pauses.js';
import { emptyOutboxStats, type BeforeFirstSend, type OutboxEditOptions, type OutboxSendOptions, type OutboxService, type OutboxStats } from './port.js';
import { holdFor, holdMessage, releaseHeldJobs } from './quiet-hours.js';
import { ReplyTurns } from './reply-turns.js';
import { SharedSleep, Signal } from './signal.js';
import { splitMessage, truncateMessage } from './split.js';
import { partToSend } from './send-delay.js';

/** Sleeping in slices keeps a stopped outbox from holding the process open on a long wait. */
const MAX_SLEEP_SLICE_MS = 1000;

export class Outbox implements OutboxService {
  private readonly api: OutboxApi;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly tuning: OutboxTuning;
  private readonly digestRules: DigestRules;
  private readonly options: OutboxOptions;
  private readonly chats: ChatStates;
  private readonly pauses: Pauses;
  private readonly failures: FailureHandler;
  private readonly replies: ReplyTurns;
  private readonly firstSend: FirstSendQuestions;
  private readonly global: SendTimes;
  private readonly editFloor: EditFloor;
  private seq = 0;
  private inFlight = 0;
  private running = false;
  private accepting = true;
  private loopDone: Promise<void> | undefined;
  private readonly wake = new Signal();
  private readonly progress = new Signal();
  private readonly sleeper: SharedSleep;
  private nextHeldAt = Number.POSITIVE_INFINITY;
  private readonly counters: OutboxStats = emptyOutboxStats();

  constructor(options: OutboxOptions) {
    this.options = options;
    this.api = options.api;
    this.logger = options.logger.child({ module: 'outbox' });
    this.clock = options.clock ?? systemClock;
    const tuning = (this.tuning = outboxTuning(options));
    this.digestRules = { threshold: tuning.digestThreshold, behindMs: tuning.behindMs, maxLines: tuning.digestMaxLines };
    this.global = new SendTimes(tuning.globalWindow.limit);
    this.editFloor = new EditFloor(tuning.editFloorWindow);
    this.chats = new ChatStates(tuning.chatBucket, tuning.groupWindow.limit);
    this.pauses = new Pauses(this.logger);
    this.sleeper = new SharedSleep(this.clock);
    const context = {
      clock: this.clock,
      logger: this.logger,
      counters: this.counters,
      chats: this.chats,
      pauses: this.pauses,
      hooks: options,
      rateLimited: (chat: ChatState, retryAfterMs: number) => this.rateLimited(chat, retryAfterMs),
      remove: (chat: ChatState, job: Job) => this.remove(chat, job),
      progressed: () => this.progress.notify(),
      safely: (fn: () => void) => this.safely(fn),
    };
    this.failures = new FailureHandler(context, tuning);
    this.replies = new ReplyTurns(context);
    this.firstSend = new FirstSendQuestions({ ...context, digestMaxLines: tuning.digestMaxLines });
  }

  /** Jobs not finished yet: queued, in flight, or held for quiet hours. */
  get depth(): number {
    return this.chats.depth();
  }

  /** Chats whose pacing state is kept (idle chats are forgotten after a minute). */
  get trackedChats(): number {
    return this.chats.size;
  }

  /** A copy of the counters. */
  get stats(): OutboxStats {
    return { ...this.counters };
  }

  /**
   * Queues a new message; resolves with its message id once sent (the last part's, which carries
   * the buttons, when it was split), or undefined when it was folded into a digest or summary,
   * held for quiet hours (known at once), dropped or given up. Never rejects.
   *
   * `beforeFirstSend` (port.ts) is asked in the message's turn, right before its first call; an
   * alert folded into a digest is asked in the digest's turn and resolves when the digest is done;
   * an alert held for quiet hours is asked when it is held.
   */
  send(to: number, text: string, opts: OutboxSendOptions = {}, beforeFirstSend?: BeforeFirstSend): Promise<number | undefined> {
    const chatId = this.chats.target(to);
    if (!this.accepting) {
      this.refuse(chatId);
      return Promise.resolve(undefined);
    }
    const parts = splitMessage(text);
    if (parts.length === 0) {
      this.logger.warn({ chatId }, 'outbox: an empty message was not queued');
      return Promise.resolve(undefined);
    }
    const kind = opts.kind ?? (opts.digestLine !== undefined ? 'alert' : 'info');
    const lang = opts.lang ?? this.options.langFor?.(chatId) ?? 'en';
    const digestLine = opts.digestLine ?? firstLine(text);
    const chat = this.chats.state(chatId);
    const now = this.clock.now();

    if (opts.holdUntil !== undefined && opts.holdUntil > now) {
      // A held alert becomes a summary line, never a call of its own: it is asked now.
      if (kind === 'alert' && beforeFirstSend) return this.firstSend.ask(beforeFirstSend).then((yes) => (yes ? this.send(to, text, opts) : undefined));
      const held = holdFor(chat, opts.holdUntil, lang);
      this.nextHeldAt = Math.min(this.nextHeldAt, held.until);
      this.counters.held += 1;
      this.wake.notify();
      return holdMessage(held, { kind, digestLine, item: opts.heldItem }, this.tuning.digestMaxLines, (resolve) =>
        this.sendJob(chatId, parts, { kind, buttons: opts.buttons, digestLine, lang, resolve, beforeFirstSend }),
      );
    }

    // A chat already behind gets this alert as one more digest line, not as one more full message:
    // a flood (a new filter's first read, a restart after a long pause) costs a line per alert.
    const digest = kind === 'alert' ? openDigest(chat) : undefined;
    if (digest) {
      this.counters.folded += 1;
      if (!beforeFirstSend) {
        addToDigest(digest, digestLine, this.tuning.digestMaxLines, undefined, opts.digestButtons);
        return Promise.resolve(undefined);
      }
      return new Promise((resolve) => addToDigest(digest, digestLine, this.tuning.digestMaxLines, { ask: beforeFirstSend, resolve }, opts.digestButtons));
    }
    return new Promise((resolve) => {
      const manner = { silent: opts.silent, replyTo: opts.replyTo, foundAt: opts.foundAt, expiresAt: opts.expiresAt };
      this.chats.enqueue(chat, this.sendJob(chatId, parts, { kind, buttons: opts.buttons, digestLine, digestButtons: opts.digestButtons, lang, resolve, beforeFirstSend, late: opts.late, ...manner }));
      if (kind === 'alert') this.foldBurst(chat, now);
      this.wake.notify();
    });
  }

  /**
   * Queues an edit; a newer edit of the same message replaces a queued older one (only the latest
   * text is sent, and both promises get its outcome). Resolves true once applied (or already so),
   * false when the message is gone, the chat blocked the bot, or the edit was given up.
   * Text over 4096 characters is cut on a line boundary.
   */
  edit(to: number, messageId: number, text: string, opts: OutboxEditOptions = {}): Promise<boolean> {
    const chatId = this.chats.target(to);
    if (!this.accepting) {
      this.refuse(chatId);
      return Promise.resolve(false);
    }
    const chat = this.chats.state(chatId);
    const body = truncateMessage(text);
    const queued = coalesceEdit(chat.queue, messageId, body, opts);
    if (queued) {
      this.counters.coalesced += 1;
      return new Promise((resolve) => queued.resolvers.push(resolve));
    }
    return new Promise((resolve) => {
      this.chats.enqueue(chat, newEditJob(this.seq++, chatId, messageId, body, opts, resolve));
      this.wake.notify();
    });
  }

  /**
   * The chat gate (`chat-gate.ts`): a call made elsewhere waits for its turn, ahead of every
   * alert and edit of that chat, within the chat's and the bot's windows and after any 429
   * pause. While the outbox is not sending, a call only waits out the pauses.
   */
  acquire(to: number | undefined, counted: boolean): Promise<GateTicket> {
    const chatId = to === undefined ? undefined : this.chats.target(to);
    if (chatId === undefined || !this.running) return this.replies.waitOutPauses(chatId);
    const chat = this.chats.state(chatId);
    return new Promise((grant) => {
      this.chats.enqueue(chat, newReplyJob(this.seq++, chatId, counted, grant));
      this.wake.notify();
    });
  }

  /** Starts sending (idempotent); also accepts new jobs again after a `drain`. */
  start(): void {
    this.accepting = true;
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops sending after the calls in flight; queued jobs stay queued for a later `start`. */
  stop(): void {
    this.running = false;
    this.replies.releaseWaiting();
    this.wake.notify();
  }

  /**
   * Stops taking new jobs and waits until every queued job is done or `timeoutMs` of the clock
   * passes; returns how many jobs were left (alerts held for quiet hours included: they are not
   * sent early). Call `stop()` afterwards.
   */
  async drain(timeoutMs: number): Promise<number> {
    this.accepting = false;
    const deadline = this.clock.now() + timeoutMs;
    for (;;) {
      const left = deadline - this.clock.now();
      if (left <= 0 || this.chats.activeJobs() === 0) break;
      // Slices, so that an early finish leaves no long timer holding the process open.
      await Promise.race([this.progress.wait(), this.clock.sleep(Math.min(left, MAX_SLEEP_SLICE_MS))]);
    }
    const left = this.depth;
    if (left > 0) this.logger.warn({ left }, 'outbox: drained with jobs left');
    return left;
  }

  /** Resolves when the sending loop has ended after `stop()`. */
  async stopped(): Promise<void> {
    await this.loopDone;
  }

  // ---- the loop ---------------------------------------------------------------------------------

  private async loop(): Promise<void> {
    while (this.running) {
      const now = this.clock.now();
      let wakeAt: number;
      try {
        this.releaseHeld(now);
        if (this.chats.prune(now)) this.pauses.forgetPast(now);
        wakeAt = this.dispatchReady(now);
      } catch (err) {
        this.logger.error({ error: describeError(err) }, 'outbox: the sending loop failed; retrying in a second');
        wakeAt = now + 1000;
      }
      if (!this.running) break;
      const woken = this.wake.wait();
      if (wakeAt === Number.POSITIVE_INFINITY) await woken;
      else await Promise.race([woken, this.sleeper.sleepUntil(Math.min(wakeAt, now + MAX_SLEEP_SLICE_MS), now)]);
    }
  }

  /** Dispatches every job that may go now; returns when to look again (Infinity: on the next signal). */
  private dispatchReady(now: number): number {
    for (;;) {
      if (this.inFlight >= this.tuning.maxInFlight) return this.nextHeldAt;
      const globalAt = Math.max(this.global.nextAllowed(now, this.tuning.globalWindow), this.pauses.globalUntil);
      // While the bot-wide window is shut no chat can go before it opens, whatever its own state:
      // look again then instead of walking every queued chat for each job that arrives meanwhile.
      if (globalAt > now && this.chats.queued.size > 0) return Math.min(this.nextHeldAt, globalAt, this.chats.nextPruneAt);
      // Edits and gone marks leave part of the bot-wide window to new messages, and new messages a floor of it to them (options.ts).
      const owed = this.editFloor.owed(now);
      const editsFrom = owed ? now : this.global.nextAllowed(now, this.tuning.editWindow);
      const { best, readyAt } = this.chats.mostUrgent(now, this.tuning, editsFrom, owed);
      const wakeAt = Math.min(this.nextHeldAt, Math.max(readyAt, globalAt));
      if (!best) return this.chats.size > 0 ? Math.min(wakeAt, this.chats.nextPruneAt) : wakeAt;
      this.dispatch(best, now);
    }
  }

  private dispatch(chat: ChatState, now: number): void {
    this.foldBurst(chat, now);
    const job = chat.queue[0];
    if (!job) return;
    if (job.type === 'send' && job.partIndex === 0 && job.expiresAt !== undefined && now >= job.expiresAt) {
      // Its news is old (port.ts `expiresAt`): no call, no place in any window.
      this.counters.dropped += 1;
      this.remove(chat, job);
      job.resolve(undefined);
      return;
    }
    chat.busy = true;
    job.inFlight = true;
    this.inFlight += 1;
    // The real moment of the call, not the start of this pass: a pass over many chats takes a
    // while, and stamping its sends early would let the next window open early.
    const sentAt = Math.max(now, this.clock.now());
    const counted = job.type !== 'reply' || job.counted;
    const spent = counted ? spend(chat, this.global, sentAt) : undefined;
    const edit = job.type === 'edit' ? this.editFloor.spend(sentAt) : undefined;
    // Metrics hook: a message's queue wait, once per message (not per retry or per part).
    if (job.type === 'send' && job.attempts === 0 && job.partIndex === 0) this.options.metrics?.outboxWait(sentAt - job.queuedAt);
    const performed = job.type === 'reply' ? this.replies.grant(chat, job).then(() => true) : this.perform(chat, job);
    void performed.then((called) => {
      // Telegram had it by the time it answered: the windows count it from then.
      const answeredAt = this.clock.now();
      spent?.(called, answeredAt);
      edit?.(called, answeredAt);
      job.inFlight = false;
      chat.busy = false;
      this.inFlight -= 1;
      this.wake.notify();
      this.progress.notify();
    });
  }

  /** Makes the job's call; false when none was made (its `beforeFirstSend` said no). */
  private async perform(chat: ChatState, job: SendJob | EditJob): Promise<boolean> {
    try {
      if (job.type === 'send') {
        if (job.partIndex === 0 && !(await this.firstSend.mayGo(chat, job))) return false;
        const last = job.partIndex === job.parts.length - 1;
        const { text, manner } = partToSend(job, this.clock.now());
        const result = await this.api.sendMessage(chat.id, text, messageOptions(last ? job.buttons : undefined, manner));
        this.counters.sent += 1;
        job.partIndex += 1;
        job.attempts = 0;
        if (job.partIndex >= job.parts.length) {
          this.remove(chat, job);
          job.resolve(result.message_id);
        }
      } else {
        await this.api.editMessageText(chat.id, job.messageId, job.text, messageOptions(job.buttons));
        this.counters.edited += 1;
        this.remove(chat, job);
        settle(job, true);
      }
    } catch (err) {
      this.failures.handle(chat, job, err);
    }
    return true;
  }

  // ---- digests, quiet hours, pauses, bookkeeping ---------------------------------------------------

  private foldBurst(chat: ChatState, now: number): void {
    const newDigest = (lang: SendJob['lang']) =>
      this.sendJob(chat.id, [], { kind: 'digest', buttons: undefined, digestLine: '', lang, resolve: () => {} });
    this.counters.folded += foldBurst(chat, now, this.digestRules, newDigest);
  }

  /** Quiet hours that are over: the summary of their alerts, then the other messages held, join the queue. */
  private releaseHeld(now: number): void {
    if (now < this.nextHeldAt) return;
    const summaryJob = (chat: ChatState, text: string, lang: SendJob['lang']) =>
      this.sendJob(chat.id, [text], { kind: 'summary', buttons: undefined, digestLine: '', lang, resolve: () => {} });
    const { jobs, next } = releaseHeldJobs(this.chats.values(), now, this.tuning.digestMaxLines, summaryJob, this.options.heldAlive);
    for (const { chat, job } of jobs) {
      job.seq = this.seq++;
      this.chats.enqueue(chat, job);
    }
    this.nextHeldAt = next;
  }

  /** A 429 for this chat: counted, and the chat (or every chat) paused; returns until when. */
  private rateLimited(chat: ChatState, retryAfterMs: number): number {
    this.counters.rateLimited += 1;
    return this.pauses.rateLimited(chat, retryAfterMs, this.clock.now());
  }

  private sendJob(chatId: number, parts: string[], fields: SendJobFields): SendJob {
    return newSendJob(this.seq++, this.clock.now(), chatId, parts, fields);
  }

  private remove(chat: ChatState, job: Job): void {
    const at = chat.queue.indexOf(job);
    if (at >= 0) chat.queue.splice(at, 1);
    this.progress.notify();
  }

  private refuse(chatId: number): void {
    this.counters.dropped += 1;
    this.logger.debug({ chatId }, 'outbox: not accepting new jobs (draining)');
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ error: describeError(err) }, 'outbox: a callback threw');
    }
  }
}
