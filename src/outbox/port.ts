/**
 * The outbox seam: what the rest of the bot may ask of delivery. Producers of messages (the
 * notifier, the destination watch's notices) see only `OutboxPort`; the application that runs
 * the bot sees `OutboxService` (the port, the chat gate the bot's replies take turns through, and
 * start, drain and stop). `Outbox` (`outbox.ts`) is today's in-process implementation.
 *
 * Every argument is plain data (numbers, strings, buttons as arrays), so a second implementation
 * (the cluster's queue in Redis, src/cluster/remote-outbox.ts) can serialise a message as it is
 * given. A producer may name each message and edit with an `idempotencyKey`: the cluster's queue
 * enqueues a key once and its sender sends a key's message at most once, so a send repeated after
 * a crash or by a second process reaches the chat once. The in-process outbox accepts the key and
 * ignores it (one process, nothing replayed).
 */
import type { Lang } from '../store/schema.js';
import type { ChatGate } from './chat-gate.js';

/** A button under a message: a callback (at most 64 bytes of data) or a link. */
export type OutboxButton = { text: string; callbackData: string } | { text: string; url: string };
export type OutboxButtons = OutboxButton[][];

export interface OutboxSendOptions {
  buttons?: OutboxButtons;
  /** 'alert' jobs may fold into digests and quiet-hours summaries; default 'alert' when `digestLine` is given, else 'info'. */
  kind?: 'alert' | 'info';
  /** The alert in one line (HTML), for digests and summaries; default its first line. */
  digestLine?: string;
  /**
   * The buttons that stay with the alert's line when it folds into a digest (the ledger's ✅ / ✏️,
   * which record what the alert printed): the digest shows them numbered like its lines.
   */
  digestButtons?: OutboxButtons[number];
  /** Quiet hours: keep until then (ms); alerts then go out as one summary. */
  holdUntil?: number;
  /** Language of the digest and summary texts; default `langFor(chatId)`. */
  lang?: Lang;
  /**
   * An alert about an item first seen well after it appeared (the backlog a service shows when its
   * token comes back): it goes after the chat's fresh alerts, still before its gone marks and edits.
   */
  late?: boolean;
  /** Names this message: the same key twice is sent once (the cluster's queue); the in-process outbox ignores it. */
  idempotencyKey?: string;
  /**
   * The user a message named by no key is for (a notice): the cluster's front checks its chat against
   * that user, not against whatever a stored record says; the in-process outbox ignores it.
   */
  forUser?: number;
  /** The alert's item, for the quiet-hours summary that lists it when it is held (its id, a mark, a button). */
  heldItem?: HeldItem;
  /** Sent without a sound (Telegram's `disable_notification`): an alert below the user's loud threshold, or with stale legs. */
  silent?: boolean;
  /** Sent as a reply to this message of the chat (a re-alert under its alert); sent alone if that message is gone. */
  replyTo?: number;
  /** When the read that found this alert's item came (ms): the text's send-delay mark (send-delay.ts) is filled in from it at the call. */
  foundAt?: number;
  /**
   * News only while fresh (a re-alert's "▲ Arb now +4.10%"): not sent once the clock passes this
   * (ms), resolving undefined, so a bot behind Telegram's pace spends its messages on new alerts and
   * edits instead of buzzing about a profit minutes old.
   */
  expiresAt?: number;
  /**
   * Called, before the call resolves undefined, when it stopped waiting for the answer while the
   * message may still go out (a cluster's worker, after a minute behind the front's backlog, or
   * closing): its id is then known to `messageIdOf` by the send's `idempotencyKey`. Never sent anywhere.
   */
  onNoAnswer?: () => void;
}

/** A held alert's item as the quiet-hours summary shows it. */
export interface HeldItem {
  /** The item id, printed so the user can /item it. */
  id: string;
  /** Whose latest read says whether it is still there, and which service's. */
  userId: number;
  service: string;
  /** The callback data of the button that opens its card (none when it did not fit 64 bytes). */
  openData?: string;
}

/** Whether each held item is still in its owner's latest read (undefined: not known). */
export type HeldAliveCheck = (items: readonly HeldItem[]) => Promise<(boolean | undefined)[]>;

export interface OutboxEditOptions {
  /** The keyboard after the edit; omit it to remove the keyboard (Telegram drops a keyboard an edit does not repeat). */
  buttons?: OutboxButtons;
  /** The item is gone: this edit goes before the chat's other edits (but after new alerts). */
  gone?: boolean;
  /** Names this version of the message: the same key twice is queued once (the cluster's queue); the in-process outbox ignores it. */
  idempotencyKey?: string;
}

/**
 * Asked in a message's turn, right before its first `sendMessage` (for an alert folded into a
 * digest: before the digest's; for an alert held for quiet hours: when it is held): true to send
 * it, false to leave it out (its promise then resolves undefined). The cluster's front claims the
 * alert here, so an alert still waiting in the outbox is not claimed yet and a front killed meanwhile
 * loses nothing. It must not reject; one that does counts as false.
 */
export type BeforeFirstSend = () => Promise<boolean>;

/** What producers of messages use: queue a message or an edit; neither waits for Telegram to accept it, neither rejects. */
export interface OutboxPort {
  /**
   * Queues a new message; resolves with its message id once sent (the last part's, which carries
   * the buttons, when it was split), or undefined when it was folded into a digest or summary,
   * held for quiet hours (known at once), dropped or given up. Never rejects.
   */
  send(chatId: number, text: string, opts?: OutboxSendOptions): Promise<number | undefined>;
  /**
   * Queues an edit; resolves true once applied (or already so), false when the message is gone,
   * the chat blocked the bot, or the edit was given up; undefined when its outcome did not come
   * back in time (the cluster's front still has it queued): not known to have failed. Never rejects.
   */
  edit(chatId: number, messageId: number, text: string, opts?: OutboxEditOptions): Promise<boolean | undefined>;
  /**
   * Where a send's message id may come after its call resolved (the cluster: an alert behind the
   * front's backlog, whichever worker holds it now): what became of the send named
   * `idempotencyKey` — its message id, 'none' when it went out as no message of its own (folded,
   * held, dropped), undefined when that is not known yet. Never rejects.
   */
  messageIdOf?(idempotencyKey: string): Promise<number | 'none' | undefined>;
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
  /** Jobs dropped: the chat blocked the bot, the message to edit vanished, a message's `expiresAt` passed before it could go, or the outbox no longer accepted work. */
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

/** Every counter at zero (a new outbox). */
export function emptyOutboxStats(): OutboxStats {
  return { sent: 0, edited: 0, retried: 0, gaveUp: 0, folded: 0, held: 0, rateLimited: 0, dropped: 0, blocked: 0, coalesced: 0, replies: 0, migrated: 0 };
}

/** The port of an outbox that talks to Telegram itself, and so can ask `beforeFirstSend` in the message's turn. */
export interface SendingOutboxPort extends OutboxPort {
  send(chatId: number, text: string, opts?: OutboxSendOptions, beforeFirstSend?: BeforeFirstSend): Promise<number | undefined>;
  /** As the port's, but it always knows: it is the one that talks to Telegram. */
  edit(chatId: number, messageId: number, text: string, opts?: OutboxEditOptions): Promise<boolean>;
}

/** What the application that runs the bot uses: the port, the chat gate, the life cycle and the gauges. */
export interface OutboxService extends SendingOutboxPort, ChatGate {
  /** Starts sending (idempotent); also accepts new jobs again after a `drain`. */
  start(): void;
  /** Stops sending after the calls in flight; queued jobs stay queued for a later `start`. */
  stop(): void;
  /** Stops taking new jobs and waits up to `timeoutMs` for the queued ones; returns how many were left. */
  drain(timeoutMs: number): Promise<number>;
  /** Resolves when sending has ended after `stop()`. */
  stopped(): Promise<void>;
  /** Jobs not finished yet: queued, in flight, or held for quiet hours. */
  readonly depth: number;
  /** A copy of the counters. */
  readonly stats: OutboxStats;
}
