/**
 * The outbox's jobs: a message to send (perhaps in parts, perhaps a digest still gathering
 * alerts), an edit, or a turn held for a call made elsewhere (a command reply through the chat
 * gate). Plain records; the queue and the loop (`outbox.ts`) own them. The helpers here make
 * them, fold a newer edit into a queued one, settle a job's promise or describe it.
 */
import type { Lang } from '../store/schema.js';
import type { GateTicket } from './chat-gate.js';
import type { BeforeFirstSend, OutboxButtons, OutboxEditOptions } from './port.js';
import { insertByPriority, PRIORITY, type Prioritized } from './priority.js';

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

interface JobBase extends Prioritized {
  chatId: number;
  attempts: number;
  notBefore: number;
  inFlight: boolean;
}

export interface SendJob extends JobBase {
  type: 'send';
  kind: 'alert' | 'info' | 'digest' | 'summary';
  parts: string[];
  partIndex: number;
  buttons: OutboxButtons | undefined;
  digestLine: string;
  /** The buttons its digest line keeps (port.ts `digestButtons`). */
  digestButtons?: OutboxButtons[number] | undefined;
  lang: Lang;
  resolve: (messageId: number | undefined) => void;
  /** When it was queued (the outbox's clock). */
  queuedAt: number;
  /** Asked once, in its turn, before the first part goes (port.ts); cleared once it said yes. */
  beforeFirstSend?: BeforeFirstSend;
  /** Every part without a sound (`disable_notification`). */
  silent?: boolean | undefined;
  /** The first part replies to this message. */
  replyTo?: number | undefined;
  /** The read that found the alert's item (ms): its send-delay mark is filled in at the call. */
  foundAt?: number | undefined;
  /** Not sent once the clock passes this (ms): port.ts `expiresAt`. */
  expiresAt?: number | undefined;
  /**
   * A digest that alerts may still join: what it lists so far, and the questions of the alerts that
   * come with one (`line`: the index of the alert's line, undefined past the lines listed). Its text
   * is written when it is sent, without the alerts whose question said no.
   */
  folded?: { lines: string[]; count: number; asks: { line: number | undefined; ask: BeforeFirstSend }[]; rows?: (OutboxButtons[number] | undefined)[] };
}

export interface EditJob extends JobBase {
  type: 'edit';
  messageId: number;
  text: string;
  buttons: OutboxButtons | undefined;
  resolvers: ((ok: boolean) => void)[];
}

/** A turn for a call made elsewhere (a command reply): granted in the chat's order, reported back. */
export interface ReplyJob extends JobBase {
  type: 'reply';
  counted: boolean;
  grant: (ticket: GateTicket) => void;
}

export type Job = SendJob | EditJob | ReplyJob;

export function settle(job: SendJob | EditJob, ok: boolean): void {
  if (job.type === 'send') job.resolve(undefined);
  else for (const resolve of job.resolvers) resolve(ok);
}

export function jobInfo(job: SendJob | EditJob, reason: string): OutboxJobInfo {
  if (job.type === 'send') {
    return { type: 'send', kind: job.kind, chatId: job.chatId, text: job.parts.join('\n'), attempts: job.attempts, reason };
  }
  return { type: 'edit', kind: 'edit', chatId: job.chatId, messageId: job.messageId, text: job.text, attempts: job.attempts, reason };
}

export function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

/** What a caller says of a new message; a late alert goes after the chat's fresh ones. */
export type SendJobFields = Pick<SendJob, 'kind' | 'buttons' | 'digestLine' | 'digestButtons' | 'lang' | 'resolve' | 'beforeFirstSend' | 'silent' | 'replyTo' | 'foundAt' | 'expiresAt'> & { late?: boolean };

/** A new message to send (not yet queued); `seq` is its place in the arrival order. */
export function newSendJob(
  seq: number,
  queuedAt: number,
  chatId: number,
  parts: string[],
  { late, ...fields }: SendJobFields,
): SendJob {
  return {
    type: 'send',
    priority: late === true ? PRIORITY.late : PRIORITY.send,
    seq,
    chatId,
    parts,
    partIndex: 0,
    attempts: 0,
    notBefore: 0,
    inFlight: false,
    queuedAt,
    ...fields,
  };
}

/** A new edit (not yet queued); a gone mark goes before the chat's other edits. */
export function newEditJob(
  seq: number,
  chatId: number,
  messageId: number,
  text: string,
  opts: OutboxEditOptions,
  resolve: (ok: boolean) => void,
): EditJob {
  return {
    type: 'edit',
    priority: opts.gone ? PRIORITY.gone : PRIORITY.edit,
    seq,
    chatId,
    messageId,
    text,
    buttons: opts.buttons,
    attempts: 0,
    notBefore: 0,
    inFlight: false,
    resolvers: [resolve],
  };
}

/** A new turn for a call made elsewhere (not yet queued). */
export function newReplyJob(seq: number, chatId: number, counted: boolean, grant: (ticket: GateTicket) => void): ReplyJob {
  return { type: 'reply', priority: PRIORITY.reply, seq, chatId, counted, attempts: 0, notBefore: 0, inFlight: false, grant };
}

/**
 * A newer edit of a message whose edit is still queued replaces it: only the latest text is sent.
 * Returns the queued edit it went into, or undefined when none was waiting.
 */
export function coalesceEdit(queue: Job[], messageId: number, text: string, opts: OutboxEditOptions): EditJob | undefined {
  const queued = queue.find((j): j is EditJob => j.type === 'edit' && j.messageId === messageId && !j.inFlight);
  if (!queued) return undefined;
  queued.text = text;
  queued.buttons = opts.buttons;
  // A gone mark that replaces a queued move takes the gone mark's place in the order.
  if (opts.gone && queued.priority !== PRIORITY.gone) {
    queue.splice(queue.indexOf(queued), 1);
    queued.priority = PRIORITY.gone;
    insertByPriority(queue, queued);
  }
  return queued;
}
