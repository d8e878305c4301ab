/**
 * The outbox's jobs: a message to send (perhaps in parts, perhaps a digest still gathering
 * alerts), an edit, or a turn held for a call made elsewhere (a command reply through the chat
 * gate). Plain records; the queue and the loop (`outbox.ts`) own them, and the helpers here only
 * settle a job's promise or describe it.
 */
import type { Lang } from '../store/schema.js';
import type { GateTicket } from './chat-gate.js';
import type { OutboxButtons } from './port.js';
import type { Prioritized } from './priority.js';

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
  lang: Lang;
  resolve: (messageId: number | undefined) => void;
  /** When it was queued (the outbox's clock). */
  queuedAt: number;
  /** A digest that alerts may still join: what it lists so far. Its text is written when it is sent. */
  folded?: { lines: string[]; count: number };
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
