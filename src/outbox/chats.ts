/**
 * Per-chat state of the outbox: each chat's queue, whether a call to it is in flight, its budget
 * (a token bucket, `chat-bucket.ts`, and for a group its last minute's send times), its 429 pause
 * and its alerts held for quiet hours; which chats have work; and the groups that became
 * supergroups. A chat's state is made on first use and forgotten once it has
 * been idle for a minute, so thousands of quiet chats cost nothing.
 */
import { ChatBucket, needFor, type BucketRate } from './chat-bucket.js';
import type { Job } from './jobs.js';
import type { OutboxTuning } from './options.js';
import { SendTimes } from './pacing.js';
import { insertByPriority, PRIORITY } from './priority.js';
import type { HeldAlerts } from './quiet-hours.js';

export interface ChatState {
  id: number;
  queue: Job[];
  busy: boolean;
  bucket: ChatBucket;
  /** A group's or channel's sends of the last minute (held to a per-minute limit too); undefined for a private chat. */
  minute: SendTimes | undefined;
  pausedUntil: number;
  held: HeldAlerts | undefined;
}

const PRUNE_EVERY_MS = 10_000;
const IDLE_CHAT_TTL_MS = 60_000;

export class ChatStates {
  private readonly chats = new Map<number, ChatState>();
  /**
   * Chats that may have a job queued: the dispatcher looks only at these, not at every tracked
   * chat (thousands, most of them idle). A chat joins whenever a job is pushed onto its queue and
   * leaves when the dispatcher finds the queue empty, so no removal site has to remember it.
   */
  readonly queued = new Set<ChatState>();
  /** Groups that became supergroups: old id → new id. */
  private readonly migrations = new Map<number, number>();
  /** When idle chats are looked for next. */
  nextPruneAt = 0;

  /** `rate`: every chat's bucket; `groupKeep`: how many send times a group's per-minute window needs. */
  constructor(
    private readonly rate: BucketRate,
    private readonly groupKeep: number,
  ) {}

  /** The chat messages to `to` go to: itself, or the supergroup it became. */
  target(to: number): number {
    return this.migrations.get(to) ?? to;
  }

  get(chatId: number): ChatState | undefined {
    return this.chats.get(chatId);
  }

  /** The chat's state, made on first use. */
  state(chatId: number): ChatState {
    let chat = this.chats.get(chatId);
    if (!chat) {
      const minute = chatId < 0 ? new SendTimes(this.groupKeep) : undefined;
      chat = { id: chatId, queue: [], busy: false, bucket: new ChatBucket(this.rate), minute, pausedUntil: 0, held: undefined };
      this.chats.set(chatId, chat);
    }
    return chat;
  }

  /** Chats whose state is kept. */
  get size(): number {
    return this.chats.size;
  }

  values(): IterableIterator<ChatState> {
    return this.chats.values();
  }

  /** Puts a job in its place in the chat's queue (by priority, then arrival) and marks the chat as having work. */
  enqueue(chat: ChatState, job: Job): void {
    insertByPriority(chat.queue, job);
    this.queued.add(chat);
  }

  /** Jobs not finished yet: queued, in flight, or held for quiet hours. */
  depth(): number {
    let n = 0;
    for (const chat of this.chats.values()) {
      n += chat.queue.length + (chat.held ? chat.held.count + chat.held.infos.length : 0);
    }
    return n;
  }

  /** Jobs queued or in flight (held alerts are not: they wait for their hour, not for Telegram). */
  activeJobs(): number {
    let n = 0;
    for (const chat of this.chats.values()) n += chat.queue.length;
    return n;
  }

  /**
   * Records that group `from` is now supergroup `to` (and so are the groups that became `from`).
   * False when the move goes nowhere: to itself, or to a chat that itself moved on.
   */
  migrate(from: number, to: number): boolean {
    if (to === from || this.migrations.has(to)) return false;
    this.migrations.set(from, to);
    for (const [old, now] of this.migrations) if (now === from) this.migrations.set(old, to);
    return true;
  }

  /**
   * The chat whose head job may go at `now` and is the most urgent (by priority, then arrival), if
   * any, and the earliest another becomes ready (within its own budget; the bot's is the caller's,
   * save that edits and gone marks wait until `editsFrom`, when the bot-wide share they may take has room;
   * `editsFirst`: they are owed their floor, and go before new messages).
   */
  mostUrgent(
    now: number,
    tuning: Pick<OutboxTuning, 'chatBucket' | 'groupWindow'>,
    editsFrom = now,
    editsFirst = false,
  ): { best: ChatState | undefined; readyAt: number } {
    let best: ChatState | undefined;
    let bestJob: Job | undefined;
    let bestRank = Number.POSITIVE_INFINITY;
    let readyAt = Number.POSITIVE_INFINITY;
    for (const chat of this.queued) {
      const head = chat.queue[0];
      if (!head) {
        this.queued.delete(chat);
        continue;
      }
      if (chat.busy) continue;
      let at = chatReadyAt(chat, head, now, tuning);
      if (head.priority >= PRIORITY.gone) at = Math.max(at, editsFrom);
      if (at > now) readyAt = Math.min(readyAt, at);
      else {
        const rank = rankOf(head, editsFirst);
        if (!bestJob || rank < bestRank || (rank === bestRank && head.seq < bestJob.seq)) {
          best = chat;
          bestJob = head;
          bestRank = rank;
        }
      }
    }
    return { best, readyAt };
  }

  /** Forgets the pacing state of chats with nothing queued that have been quiet for a minute; true when it looked. */
  prune(now: number): boolean {
    if (now < this.nextPruneAt) return false;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    for (const [id, chat] of this.chats) {
      const idle = chat.queue.length === 0 && !chat.busy && !chat.held && chat.pausedUntil <= now;
      if (idle && (chat.bucket.last ?? Number.NEGATIVE_INFINITY) < now - IDLE_CHAT_TTL_MS) this.chats.delete(id);
    }
    return true;
  }
}

/** Where a ready head job stands: its priority, save that edits owed their floor go right after replies (gone marks first). */
function rankOf(head: Job, editsFirst: boolean): number {
  return editsFirst && head.priority >= PRIORITY.gone ? PRIORITY.reply + 0.5 + (head.priority - PRIORITY.gone) / 10 : head.priority;
}

/**
 * A counted call to `chat` leaves at `at`: its token and its places in the windows are taken now;
 * call the answer with whether the call was made and when its answer came (it counts from then),
 * or, when it was not made, to give them back.
 */
export function spend(chat: ChatState, global: SendTimes, at: number): (called: boolean, answeredAt: number) => void {
  chat.bucket.record();
  const minute = chat.minute?.record(at);
  const all = global.record(at);
  return (called, answeredAt) => {
    if (!called) {
      chat.bucket.cancelled();
      if (minute) chat.minute?.forget(minute);
      global.forget(all);
      return;
    }
    chat.bucket.arrived(answeredAt);
    if (minute) chat.minute?.arrived(minute, answeredAt);
    global.arrived(all, answeredAt);
  };
}

/**
 * The earliest the chat's `head` job may go: after its pause and retry wait, and for a counted call
 * when the chat's bucket holds what the job needs (one token for a new message or a reply, a full
 * bucket for an edit or a gone mark) and a group's minute has as many sends left (an edit leaves
 * the last few of the minute to new alerts too).
 */
export function chatReadyAt(chat: ChatState, head: Job, now: number, tuning: Pick<OutboxTuning, 'chatBucket' | 'groupWindow'>): number {
  if (head.type === 'reply' && !head.counted) return Math.max(now, chat.pausedUntil, head.notBefore);
  const need = needFor(head.type, tuning.chatBucket);
  let at = Math.max(now, chat.pausedUntil, head.notBefore, chat.bucket.nextAllowed(now, need));
  if (chat.minute) {
    const window = tuning.groupWindow;
    at = Math.max(at, chat.minute.nextAllowed(now, { limit: Math.max(1, window.limit - need + 1), spanMs: window.spanMs }));
  }
  return at;
}
