/**
 * The outbox: the one queue for every message and edit the bot sends to Telegram outside a reply.
 *
 * - Pacing within Telegram's limits: about 25 messages a second in all, one a second per chat,
 *   20 a minute per group or channel (sliding windows on the injected clock).
 * - `retry_after` of a 429 honoured for that chat; when two chats are told to wait at once the
 *   limit is the bot's own, and everything waits.
 * - 5xx and network failures retried with exponential backoff up to `maxAttempts`, then given up:
 *   logged (never a token) and counted. A 403 (blocked, kicked) drops the chat's queue and calls
 *   `onBlocked`. "message is not modified" is a success; an edit of a vanished message is dropped.
 * - A burst to one chat folds into one digest ("+N more"); quiet hours hold alerts and send one
 *   summary when they end; text over 4096 characters is split between lines.
 *
 * Jobs of one chat go out one at a time, most urgent first: command replies (through the chat
 * gate, `chat-gate.ts`), then new messages, then "gone" marks, then other edits; each kind in the
 * order it came. Chats take turns the same way. A send counts against the windows from Telegram's
 * answer (see `outbox-pacing.ts`). A group that became a supergroup is followed to its new id;
 * a chat that is gone or refuses the bot's posts is reported (`onChatUnavailable`).
 * Messages are HTML (`parse_mode: 'HTML'`) without link previews.
 */
import type { InlineKeyboardMarkup } from 'grammy/types';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Lang } from '../store/schema.js';
import type { ChatGate, GateOutcome, GateTicket } from './chat-gate.js';
import { classifyTelegramError, describeError, type TelegramFailure } from './outbox-errors.js';
import { rateWindow, SendTimes, type RateWindow } from './outbox-pacing.js';
import { insertByPriority, PRIORITY, type Prioritized } from './outbox-priority.js';
import { splitMessage, truncateMessage } from './outbox-split.js';
import type { MetricsPort } from '../health/observe.js';
import { digestHeader, moreLinesLine, quietSummaryHeader } from './outbox-text.js';

/** A button under a message: a callback (at most 64 bytes of data) or a link. */
export type OutboxButton = { text: string; callbackData: string } | { text: string; url: string };
export type OutboxButtons = OutboxButton[][];

export interface OutboxMessageOptions {
  parse_mode?: 'HTML';
  reply_markup?: InlineKeyboardMarkup;
  link_preview_options?: { is_disabled: boolean };
}

/** The part of grammY's `Api` the outbox uses; `bot.api` satisfies it. */
export interface OutboxApi {
  sendMessage(chatId: number, text: string, other?: OutboxMessageOptions): Promise<{ message_id: number }>;
  editMessageText(chatId: number, messageId: number, text: string, other?: OutboxMessageOptions): Promise<unknown>;
}

/** What `onGiveUp` learns about the job it lost. */
export interface OutboxJobInfo {
  type: 'send' | 'edit';
  kind: 'alert' | 'info' | 'digest' | 'summary' | 'edit';
  chatId: number;
  messageId?: number;
  text: string;
  attempts: number;
  reason: string;
}

export interface OutboxOptions {
  /** Use the raw `bot.api`: a retry transformer on it (auto-retry) would hide the 429s the outbox paces by. */
  api: OutboxApi;
  logger: Logger;
  clock?: Clock;
  /** Messages a second over all chats (default 25). */
  globalPerSecond?: number;
  /** Messages a second to one chat (default 1); groups and channels are held to it too. */
  privatePerSecond?: number;
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
  /** Metrics hook (operator port): how long each new message waited before its first call. */
  metrics?: Pick<MetricsPort, 'outboxWait'>;
  /** The group became a supergroup: its queued messages went to `newChatId`, and so will later ones. */
  onMigrated?: (oldChatId: number, newChatId: number) => void;
  /** Telegram says the chat is gone or the bot may not post there (a 400 about the chat or rights). */
  onChatUnavailable?: (chatId: number, description: string) => void;
}

export interface OutboxSendOptions {
  buttons?: OutboxButtons;
  /** 'alert' jobs may fold into digests and quiet-hours summaries; default 'alert' when `digestLine` is given, else 'info'. */
  kind?: 'alert' | 'info';
  /** The alert in one line (HTML), for digests and summaries; default its first line. */
  digestLine?: string;
  /** Quiet hours: keep until then (ms); alerts then go out as one summary. */
  holdUntil?: number;
  /** Language of the digest and summary texts; default `langFor(chatId)`. */
  lang?: Lang;
}

export interface OutboxEditOptions {
  /** The keyboard after the edit; omit it to remove the keyboard (Telegram drops a keyboard an edit does not repeat). */
  buttons?: OutboxButtons;
  /** The item is gone: this edit goes before the chat's other edits (but after new alerts). */
  gone?: boolean;
}

export interface OutboxStats {
  /** Messages delivered (each part of a split message counts). */
  sent: number;
  /** Edits applied (including those Telegram found already applied). */
  edited: number;
  /** Calls scheduled again after a 429, 5xx or network failure. */
  retried: number;
  /** Jobs given up after their retries or a permanent refusal. */
  gaveUp: number;
  /** Alerts folded into a digest. */
  folded: number;
  /** Alerts held for quiet hours. */
  held: number;
  /** 429 answers received. */
  rateLimited: number;
  /** Jobs dropped: the chat blocked the bot, the message to edit vanished, or the outbox no longer accepted work. */
  dropped: number;
  /** 403 answers received. */
  blocked: number;
  /** Queued edits replaced by a newer edit of the same message. */
  coalesced: number;
  /** Turns granted to command replies and other calls through the chat gate. */
  replies: number;
  /** Messages moved to a group's new supergroup id. */
  migrated: number;
}

interface JobBase extends Prioritized {
  chatId: number;
  attempts: number;
  notBefore: number;
  inFlight: boolean;
}

interface SendJob extends JobBase {
  type: 'send';
  kind: 'alert' | 'info' | 'digest' | 'summary';
  parts: string[];
  partIndex: number;
  buttons: OutboxButtons | undefined;
  digestLine: string;
  lang: Lang;
  resolve: (messageId: number | undefined) => void;
  /** When it was queued (the outbox's clock). */
  queuedAt: number;
  /** A digest that alerts may still join: what it lists so far. Its text is written when it is sent. */
  folded?: { lines: string[]; count: number };
}

interface EditJob extends JobBase {
  type: 'edit';
  messageId: number;
  text: string;
  buttons: OutboxButtons | undefined;
  resolvers: ((ok: boolean) => void)[];
}

/** A turn for a call made elsewhere (a command reply): granted in the chat's order, reported back. */
interface ReplyJob extends JobBase {
  type: 'reply';
  counted: boolean;
  grant: (ticket: GateTicket) => void;
}

type Job = SendJob | EditJob | ReplyJob;

interface HeldAlerts {
  until: number;
  count: number;
  lines: string[];
  lang: Lang;
  infos: SendJob[];
}

interface ChatState {
  id: number;
  queue: Job[];
  busy: boolean;
  times: SendTimes;
  pausedUntil: number;
  held: HeldAlerts | undefined;
}

/** Sleeping in slices keeps a stopped outbox from holding the process open on a long wait. */
const MAX_SLEEP_SLICE_MS = 1000;
const PRUNE_EVERY_MS = 10_000;
const IDLE_CHAT_TTL_MS = 60_000;

/** A promise that resolves on the next `notify`; waiting on it twice costs nothing. */
class Signal {
  private promise!: Promise<void>;
  private release!: () => void;

  constructor() {
    this.reset();
  }

  wait(): Promise<void> {
    return this.promise;
  }

  notify(): void {
    this.release();
    this.reset();
  }

  private reset(): void {
    this.promise = new Promise((resolve) => (this.release = resolve));
  }
}

export class Outbox implements ChatGate {
  private readonly api: OutboxApi;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly globalWindow: RateWindow;
  private readonly chatWindow: RateWindow;
  private readonly groupWindow: RateWindow;
  private readonly maxAttempts: number;
  private readonly digestThreshold: number;
  private readonly behindMs: number;
  private readonly digestMaxLines: number;
  private readonly baseBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInFlight: number;
  private readonly random: () => number;
  private readonly options: OutboxOptions;

  private readonly chats = new Map<number, ChatState>();
  /**
   * Chats that may have a job queued: the dispatcher looks only at these, not at every tracked
   * chat (thousands, most of them idle). A chat joins whenever a job is pushed onto its queue and
   * leaves when the dispatcher finds the queue empty, so no removal site has to remember it.
   */
  private readonly queued = new Set<ChatState>();
  private readonly global: SendTimes;
  private globalPausedUntil = 0;
  /** Groups that became supergroups: old id → new id. */
  private readonly migrations = new Map<number, number>();
  private last429: { chatId: number; until: number } | undefined;
  private seq = 0;
  private inFlight = 0;
  private running = false;
  private accepting = true;
  private loopDone: Promise<void> | undefined;
  private readonly wake = new Signal();
  private readonly progress = new Signal();
  private pendingSleep: { until: number; promise: Promise<void> } | undefined;
  private nextPruneAt = 0;
  private nextHeldAt = Number.POSITIVE_INFINITY;
  private readonly counters: OutboxStats = {
    sent: 0,
    edited: 0,
    retried: 0,
    gaveUp: 0,
    folded: 0,
    held: 0,
    rateLimited: 0,
    dropped: 0,
    blocked: 0,
    coalesced: 0,
    replies: 0,
    migrated: 0,
  };

  constructor(options: OutboxOptions) {
    this.options = options;
    this.api = options.api;
    this.logger = options.logger.child({ module: 'outbox' });
    this.clock = options.clock ?? systemClock;
    this.globalWindow = rateWindow(options.globalPerSecond ?? 25, 1000);
    this.chatWindow = rateWindow(options.privatePerSecond ?? 1, 1000);
    this.groupWindow = rateWindow(options.groupPerMinute ?? 20, 60_000);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 8);
    this.digestThreshold = Math.max(1, options.digestThreshold ?? 5);
    this.behindMs = Math.max(0, options.behindMs ?? 30_000);
    this.digestMaxLines = Math.max(1, options.digestMaxLines ?? 50);
    this.baseBackoffMs = options.baseBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 8);
    this.random = options.random ?? Math.random;
    this.global = new SendTimes(this.globalWindow.limit);
  }

  /** Jobs not finished yet: queued, in flight, or held for quiet hours. */
  get depth(): number {
    let n = 0;
    for (const chat of this.chats.values()) {
      n += chat.queue.length + (chat.held ? chat.held.count + chat.held.infos.length : 0);
    }
    return n;
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
   */
  send(to: number, text: string, opts: OutboxSendOptions = {}): Promise<number | undefined> {
    const chatId = this.migrations.get(to) ?? to;
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
    const chat = this.chatState(chatId);
    const now = this.clock.now();

    if (opts.holdUntil !== undefined && opts.holdUntil > now) {
      const held = (chat.held ??= { until: opts.holdUntil, count: 0, lines: [], lang, infos: [] });
      held.until = Math.max(held.until, opts.holdUntil);
      this.nextHeldAt = Math.min(this.nextHeldAt, held.until);
      this.counters.held += 1;
      this.wake.notify();
      if (kind === 'alert') {
        held.count += 1;
        if (held.lines.length < this.digestMaxLines) held.lines.push(digestLine);
        return Promise.resolve(undefined);
      }
      return new Promise((resolve) => {
        held.infos.push(this.sendJob(chatId, parts, { kind, buttons: opts.buttons, digestLine, lang, resolve }));
      });
    }

    // A chat already behind gets this alert as one more digest line, not as one more full message:
    // a flood (a new filter's first read, a restart after a long pause) costs a line per alert.
    const digest = kind === 'alert' ? openDigest(chat) : undefined;
    if (digest) {
      this.addToDigest(digest, digestLine);
      this.counters.folded += 1;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      this.enqueue(chat, this.sendJob(chatId, parts, { kind, buttons: opts.buttons, digestLine, lang, resolve }));
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
    const chatId = this.migrations.get(to) ?? to;
    if (!this.accepting) {
      this.refuse(chatId);
      return Promise.resolve(false);
    }
    const chat = this.chatState(chatId);
    const body = truncateMessage(text);
    const queued = chat.queue.find((j): j is EditJob => j.type === 'edit' && j.messageId === messageId && !j.inFlight);
    if (queued) {
      queued.text = body;
      queued.buttons = opts.buttons;
      // A gone mark that replaces a queued move takes the gone mark's place in the order.
      if (opts.gone && queued.priority !== PRIORITY.gone) {
        chat.queue.splice(chat.queue.indexOf(queued), 1);
        queued.priority = PRIORITY.gone;
        insertByPriority(chat.queue, queued);
      }
      this.counters.coalesced += 1;
      return new Promise((resolve) => queued.resolvers.push(resolve));
    }
    return new Promise((resolve) => {
      this.enqueue(chat, {
        type: 'edit',
        priority: opts.gone ? PRIORITY.gone : PRIORITY.edit,
        seq: this.seq++,
        chatId,
        messageId,
        text: body,
        buttons: opts.buttons,
        attempts: 0,
        notBefore: 0,
        inFlight: false,
        resolvers: [resolve],
      });
      this.wake.notify();
    });
  }

  /**
   * The chat gate (`chat-gate.ts`): a call made elsewhere waits for its turn, ahead of every
   * alert and edit of that chat, within the chat's and the bot's windows and after any 429
   * pause. While the outbox is not sending, a call only waits out the pauses.
   */
  acquire(to: number | undefined, counted: boolean): Promise<GateTicket> {
    const chatId = to === undefined ? undefined : (this.migrations.get(to) ?? to);
    if (chatId === undefined || !this.running) return this.waitOutPauses(chatId);
    const chat = this.chatState(chatId);
    return new Promise((grant) => {
      this.enqueue(chat, {
        type: 'reply',
        priority: PRIORITY.reply,
        seq: this.seq++,
        chatId,
        counted,
        attempts: 0,
        notBefore: 0,
        inFlight: false,
        grant,
      });
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
    this.releaseReplies();
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
      if (left <= 0 || this.activeJobs() === 0) break;
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
        this.prune(now);
        wakeAt = this.dispatchReady(now);
      } catch (err) {
        this.logger.error({ error: describeError(err) }, 'outbox: the sending loop failed; retrying in a second');
        wakeAt = now + 1000;
      }
      if (!this.running) break;
      const woken = this.wake.wait();
      if (wakeAt === Number.POSITIVE_INFINITY) await woken;
      else await Promise.race([woken, this.sleepUntil(Math.min(wakeAt, now + MAX_SLEEP_SLICE_MS), now)]);
    }
  }

  /** Dispatches every job that may go now; returns when to look again (Infinity: on the next signal). */
  private dispatchReady(now: number): number {
    for (;;) {
      if (this.inFlight >= this.maxInFlight) return this.nextHeldAt;
      const globalAt = Math.max(this.global.nextAllowed(now, this.globalWindow), this.globalPausedUntil);
      let best: ChatState | undefined;
      let bestJob: Job | undefined;
      let wakeAt = this.nextHeldAt;
      // While the bot-wide window is shut no chat can go before it opens, whatever its own state:
      // look again then instead of walking every queued chat for each job that arrives meanwhile.
      if (globalAt > now && this.queued.size > 0) return Math.min(wakeAt, globalAt, this.nextPruneAt);
      for (const chat of this.queued) {
        const head = chat.queue[0];
        if (!head) {
          this.queued.delete(chat);
          continue;
        }
        if (chat.busy) continue;
        const at = Math.max(this.chatReadyAt(chat, head, now), globalAt);
        if (at <= now) {
          if (!bestJob || head.priority < bestJob.priority || (head.priority === bestJob.priority && head.seq < bestJob.seq)) {
            best = chat;
            bestJob = head;
          }
        } else {
          wakeAt = Math.min(wakeAt, at);
        }
      }
      if (!best) return this.chats.size > 0 ? Math.min(wakeAt, this.nextPruneAt) : wakeAt;
      this.dispatch(best, now);
    }
  }

  private chatReadyAt(chat: ChatState, head: Job, now: number): number {
    if (head.type === 'reply' && !head.counted) return Math.max(now, chat.pausedUntil, head.notBefore);
    let at = Math.max(now, chat.pausedUntil, head.notBefore, chat.times.nextAllowed(now, this.chatWindow));
    if (chat.id < 0) at = Math.max(at, chat.times.nextAllowed(now, this.groupWindow));
    return at;
  }

  private dispatch(chat: ChatState, now: number): void {
    this.foldBurst(chat, now);
    const job = chat.queue[0];
    if (!job) return;
    if (job.type === 'send' && job.folded) {
      // Written now, with every alert that joined it while it waited.
      const { lines, count } = job.folded;
      job.parts = splitMessage(this.listMessage(digestHeader(job.lang, count), lines, count, job.lang));
      job.folded = undefined;
    }
    chat.busy = true;
    job.inFlight = true;
    this.inFlight += 1;
    // The real moment of the call, not the start of this pass: a pass over many chats takes a
    // while, and stamping its sends early would let the next window open early.
    const sentAt = Math.max(now, this.clock.now());
    const counted = job.type !== 'reply' || job.counted;
    const chatStamp = counted ? chat.times.record(sentAt) : undefined;
    const globalStamp = counted ? this.global.record(sentAt) : undefined;
    // Metrics hook: a message's queue wait, once per message (not per retry or per part).
    if (job.type === 'send' && job.attempts === 0 && job.partIndex === 0) this.options.metrics?.outboxWait(sentAt - job.queuedAt);
    const performed = job.type === 'reply' ? this.grantReply(chat, job) : this.perform(chat, job);
    void performed.finally(() => {
      // Telegram had it by the time it answered: the windows count it from then.
      const answeredAt = this.clock.now();
      if (chatStamp) chat.times.arrived(chatStamp, answeredAt);
      if (globalStamp) this.global.arrived(globalStamp, answeredAt);
      job.inFlight = false;
      chat.busy = false;
      this.inFlight -= 1;
      this.wake.notify();
      this.progress.notify();
    });
  }

  /** Hands the turn to the caller and waits for its report; a 429 pauses the chat as the outbox's own would. */
  private grantReply(chat: ChatState, job: ReplyJob): Promise<void> {
    return new Promise((finished) => {
      let reported = false;
      const ticket: GateTicket = {
        done: (outcome: GateOutcome) => {
          if (reported) return;
          reported = true;
          this.remove(chat, job);
          if (outcome.retryAfterMs !== undefined) this.rateLimited(chat, outcome.retryAfterMs);
          finished();
        },
      };
      this.counters.replies += 1;
      this.safely(() => job.grant(ticket));
    });
  }

  private async perform(chat: ChatState, job: SendJob | EditJob): Promise<void> {
    try {
      if (job.type === 'send') {
        const last = job.partIndex === job.parts.length - 1;
        const result = await this.api.sendMessage(chat.id, job.parts[job.partIndex] ?? '', messageOptions(last ? job.buttons : undefined));
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
      this.handleFailure(chat, job, err);
    }
  }

  // ---- failures -------------------------------------------------------------------------------

  private handleFailure(chat: ChatState, job: SendJob | EditJob, err: unknown): void {
    const failure = classifyTelegramError(err);
    const now = this.clock.now();
    switch (failure.kind) {
      case 'not-modified':
        if (job.type !== 'edit') return this.giveUp(chat, job, failure, err);
        this.counters.edited += 1;
        this.remove(chat, job);
        return settle(job, true);
      case 'message-gone':
        if (job.type !== 'edit') return this.giveUp(chat, job, failure, err);
        this.logger.debug({ chatId: chat.id, messageId: job.messageId }, 'outbox: the message to edit is gone');
        this.counters.dropped += 1;
        this.remove(chat, job);
        return settle(job, false);
      case 'blocked':
        return this.chatBlocked(chat, failure);
      case 'rate-limited':
        return this.retry(chat, job, failure, err, this.rateLimited(chat, failure.retryAfterMs));
      case 'migrated':
        return this.migrate(chat, job, failure.newChatId);
      case 'chat-unavailable':
        this.giveUp(chat, job, failure, err);
        return this.safely(() => this.options.onChatUnavailable?.(chat.id, failure.description));
      case 'transient':
        return this.retry(chat, job, failure, err, now + this.backoff(job.attempts + 1));
      case 'permanent':
        return this.giveUp(chat, job, failure, err);
    }
  }

  /** Pauses the chat (or, when two chats are told to wait at once, every chat) until `retry_after` is over. */
  private rateLimited(chat: ChatState, retryAfterMs: number): number {
    const now = this.clock.now();
    this.counters.rateLimited += 1;
    const until = now + retryAfterMs;
    chat.pausedUntil = Math.max(chat.pausedUntil, until);
    // Two chats told to wait at once: the limit is the bot's, not one chat's.
    if (this.last429 && this.last429.chatId !== chat.id && this.last429.until > now) {
      this.globalPausedUntil = Math.max(this.globalPausedUntil, until, this.last429.until);
      this.logger.warn({ retryAfterMs }, 'outbox: Telegram rate limit hit across chats; pausing all sends');
    }
    this.last429 = { chatId: chat.id, until };
    return until;
  }

  /**
   * The group became a supergroup: its queued messages (this one included) go to the new id, as
   * will later ones; its edits cannot follow (the messages stayed in the old chat) and are dropped.
   */
  private migrate(chat: ChatState, job: SendJob | EditJob, newChatId: number): void {
    if (newChatId === chat.id || this.migrations.has(newChatId)) {
      return this.giveUp(chat, job, { kind: 'permanent', description: 'a supergroup migration that goes nowhere' }, undefined);
    }
    this.migrations.set(chat.id, newChatId);
    for (const [from, to] of this.migrations) if (to === chat.id) this.migrations.set(from, newChatId);
    const target = this.chatState(newChatId);
    const jobs = chat.queue.filter((j) => !j.inFlight || j === job);
    chat.queue = chat.queue.filter((j) => !jobs.includes(j));
    for (const moved of jobs) {
      if (moved.type === 'send') {
        moved.chatId = newChatId;
        moved.attempts = 0;
        moved.notBefore = 0;
        this.counters.migrated += 1;
        this.enqueue(target, moved);
      } else if (moved.type === 'edit') {
        this.counters.dropped += 1;
        settle(moved, false);
      } else {
        // A reply waiting for its turn goes as asked; Telegram's answer tells its caller.
        moved.grant({ done: () => undefined });
      }
    }
    this.logger.info({ chatId: chat.id, newChatId, moved: jobs.length }, 'outbox: the group became a supergroup; its messages follow it');
    this.safely(() => this.options.onMigrated?.(chat.id, newChatId));
    this.progress.notify();
  }

  private retry(chat: ChatState, job: SendJob | EditJob, failure: TelegramFailure, err: unknown, notBefore: number): void {
    job.attempts += 1;
    if (job.attempts >= this.maxAttempts) return this.giveUp(chat, job, failure, err);
    job.notBefore = notBefore;
    this.counters.retried += 1;
    this.logger.debug(
      { chatId: chat.id, type: job.type, attempts: job.attempts, waitMs: notBefore - this.clock.now(), reason: failure.description },
      'outbox: will retry',
    );
  }

  private giveUp(chat: ChatState, job: SendJob | EditJob, failure: TelegramFailure, err: unknown): void {
    this.remove(chat, job);
    this.counters.gaveUp += 1;
    const info = jobInfo(job, failure.description);
    this.logger.warn(
      { chatId: info.chatId, type: info.type, kind: info.kind, attempts: info.attempts, reason: info.reason },
      'outbox: gave up on a message',
    );
    this.safely(() => this.options.onGiveUp?.(info, err));
    settle(job, false);
  }

  private chatBlocked(chat: ChatState, failure: TelegramFailure): void {
    this.counters.blocked += 1;
    const replies = chat.queue.filter((j) => j.type === 'reply').length;
    const dropped = chat.queue.length - replies + (chat.held ? chat.held.count + chat.held.infos.length : 0);
    this.counters.dropped += dropped;
    const jobs = [...chat.queue, ...(chat.held?.infos ?? [])];
    chat.queue = [];
    chat.held = undefined;
    for (const job of jobs) {
      // A reply still gets its turn: its caller learns of the refusal from Telegram itself.
      if (job.type === 'reply') job.grant({ done: () => undefined });
      else settle(job, false);
    }
    this.logger.info({ chatId: chat.id, dropped, reason: failure.description }, 'outbox: the chat refuses messages; its queue was dropped');
    this.safely(() => this.options.onBlocked?.(chat.id));
  }

  private backoff(attempt: number): number {
    const base = Math.min(this.maxBackoffMs, this.baseBackoffMs * 2 ** (attempt - 1));
    return Math.round(base * (0.75 + 0.5 * this.random()));
  }

  // ---- digests, quiet hours, bookkeeping -----------------------------------------------------------

  /**
   * When the first queued alert has more than `digestThreshold` alerts queued with it, or has
   * waited `behindMs` with any queued behind it, the others join the chat's digest (a new one
   * where the first of them stood, unless one is still waiting to go).
   */
  private foldBurst(chat: ChatState, now: number): void {
    const foldable = chat.queue.filter(isFoldable);
    const head = foldable[0];
    if (!head) return;
    const rest = foldable.slice(1);
    const behind = now - head.queuedAt >= this.behindMs;
    if (rest.length === 0 || (foldable.length <= this.digestThreshold && !behind)) return;
    let digest = openDigest(chat);
    if (!digest) {
      digest = this.sendJob(chat.id, [], { kind: 'digest', buttons: undefined, digestLine: '', lang: rest[0]?.lang ?? head.lang, resolve: () => {} });
      digest.folded = { lines: [], count: 0 };
      chat.queue.splice(chat.queue.indexOf(rest[0]!), 0, digest);
    }
    const folded = new Set<Job>(rest);
    chat.queue = chat.queue.filter((j) => !folded.has(j));
    for (const job of rest) {
      this.addToDigest(digest, job.digestLine);
      job.resolve(undefined);
    }
    this.counters.folded += rest.length;
  }

  /** Counts one more alert in the digest; lines past what it will list are not kept. */
  private addToDigest(digest: SendJob, line: string): void {
    const folded = (digest.folded ??= { lines: [], count: 0 });
    folded.count += 1;
    if (folded.lines.length < this.digestMaxLines) folded.lines.push(line);
  }

  private releaseHeld(now: number): void {
    if (now < this.nextHeldAt) return;
    let next = Number.POSITIVE_INFINITY;
    for (const chat of this.chats.values()) {
      const held = chat.held;
      if (!held) continue;
      if (held.until > now) {
        next = Math.min(next, held.until);
        continue;
      }
      chat.held = undefined;
      if (held.count > 0) {
        const text = this.listMessage(quietSummaryHeader(held.lang, held.count), held.lines, held.count, held.lang);
        this.enqueue(
          chat,
          this.sendJob(chat.id, splitMessage(text), { kind: 'summary', buttons: undefined, digestLine: '', lang: held.lang, resolve: () => {} }),
        );
      }
      for (const info of held.infos) {
        info.seq = this.seq++;
        this.enqueue(chat, info);
      }
    }
    this.nextHeldAt = next;
  }

  private listMessage(header: string, lines: string[], total: number, lang: Lang): string {
    const shown = lines.slice(0, this.digestMaxLines);
    const more = total - shown.length;
    return [header, ...shown, ...(more > 0 ? [moreLinesLine(lang, more)] : [])].join('\n');
  }

  /** Forgets the pacing state of chats with nothing queued that have been quiet for a minute. */
  private prune(now: number): void {
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    for (const [id, chat] of this.chats) {
      const idle = chat.queue.length === 0 && !chat.busy && !chat.held && chat.pausedUntil <= now;
      if (idle && (chat.times.last ?? Number.NEGATIVE_INFINITY) < now - IDLE_CHAT_TTL_MS) this.chats.delete(id);
    }
    if (this.last429 && this.last429.until <= now) this.last429 = undefined;
  }

  private sleepUntil(target: number, now: number): Promise<void> {
    const pending = this.pendingSleep;
    if (pending && pending.until > now && pending.until <= target) return pending.promise;
    const sleep = {
      until: target,
      promise: this.clock.sleep(target - now).then(() => {
        if (this.pendingSleep === sleep) this.pendingSleep = undefined;
      }),
    };
    this.pendingSleep = sleep;
    return sleep.promise;
  }

  private activeJobs(): number {
    let n = 0;
    for (const chat of this.chats.values()) n += chat.queue.length;
    return n;
  }

  private chatState(chatId: number): ChatState {
    let chat = this.chats.get(chatId);
    if (!chat) {
      const keep = Math.max(this.chatWindow.limit, chatId < 0 ? this.groupWindow.limit : 0);
      chat = { id: chatId, queue: [], busy: false, times: new SendTimes(keep), pausedUntil: 0, held: undefined };
      this.chats.set(chatId, chat);
    }
    return chat;
  }

  private sendJob(
    chatId: number,
    parts: string[],
    fields: Pick<SendJob, 'kind' | 'buttons' | 'digestLine' | 'lang' | 'resolve'>,
  ): SendJob {
    return {
      type: 'send',
      priority: PRIORITY.send,
      seq: this.seq++,
      chatId,
      parts,
      partIndex: 0,
      attempts: 0,
      notBefore: 0,
      inFlight: false,
      queuedAt: this.clock.now(),
      ...fields,
    };
  }

  /** Puts a job in its place in the chat's queue (by priority, then arrival) and marks the chat as having work. */
  private enqueue(chat: ChatState, job: Job): void {
    insertByPriority(chat.queue, job);
    this.queued.add(chat);
  }

  /** Waits until neither the chat nor the whole bot is paused by a 429 (the outbox is not sending). */
  private async waitOutPauses(chatId: number | undefined): Promise<GateTicket> {
    for (;;) {
      const chat = chatId === undefined ? undefined : this.chats.get(chatId);
      const until = Math.max(this.globalPausedUntil, chat?.pausedUntil ?? 0);
      const now = this.clock.now();
      if (until <= now) break;
      await this.clock.sleep(until - now);
    }
    return {
      done: (outcome) => {
        if (outcome.retryAfterMs === undefined) return;
        if (chatId === undefined) this.globalPausedUntil = Math.max(this.globalPausedUntil, this.clock.now() + outcome.retryAfterMs);
        else this.rateLimited(this.chatState(chatId), outcome.retryAfterMs);
      },
    };
  }

  /** Lets every reply still waiting for a turn go (the outbox stopped: nobody would grant it). */
  private releaseReplies(): void {
    for (const chat of this.chats.values()) {
      const waiting = chat.queue.filter((j): j is ReplyJob => j.type === 'reply' && !j.inFlight);
      if (waiting.length === 0) continue;
      const gone = new Set<Job>(waiting);
      chat.queue = chat.queue.filter((j) => !gone.has(j));
      for (const job of waiting) void this.waitOutPauses(chat.id).then(job.grant);
    }
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

/** The chat's queued digest that alerts may still join (not being sent yet), if any. */
function openDigest(chat: ChatState): SendJob | undefined {
  for (const job of chat.queue) {
    if (job.type === 'send' && job.folded && !job.inFlight) return job;
  }
  return undefined;
}

function isFoldable(job: Job): job is SendJob {
  return job.type === 'send' && job.kind === 'alert' && job.partIndex === 0 && !job.inFlight;
}

function settle(job: SendJob | EditJob, ok: boolean): void {
  if (job.type === 'send') job.resolve(undefined);
  else for (const resolve of job.resolvers) resolve(ok);
}

function jobInfo(job: SendJob | EditJob, reason: string): OutboxJobInfo {
  if (job.type === 'send') {
    return { type: 'send', kind: job.kind, chatId: job.chatId, text: job.parts.join('\n'), attempts: job.attempts, reason };
  }
  return { type: 'edit', kind: 'edit', chatId: job.chatId, messageId: job.messageId, text: job.text, attempts: job.attempts, reason };
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

function messageOptions(buttons: OutboxButtons | undefined): OutboxMessageOptions {
  const options: OutboxMessageOptions = { parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
  if (buttons && buttons.length > 0) {
    options.reply_markup = {
      inline_keyboard: buttons.map((row) =>
        row.map((b) => ('url' in b ? { text: b.text, url: b.url } : { text: b.text, callback_data: b.callbackData })),
      ),
    };
  }
  return options;
}
