/**
 * Quiet hours in the outbox. A message sent with `holdUntil` waits in its chat's held record
 * instead of the queue: an alert only as a count and a line (it goes out in one summary when
 * quiet hours end), any other message whole (it goes out as it is, after the summary). The
 * decisions here are pure; the queue (`outbox.ts`) sends what they release.
 */
import type { Lang } from '../store/schema.js';
import { listMessage } from './digest.js';
import { quietSummaryHeader } from './digest-text.js';
import type { SendJob } from './jobs.js';

export interface HeldAlerts {
  until: number;
  count: number;
  lines: string[];
  lang: Lang;
  infos: SendJob[];
}

/** The chat's held record, made if it has none, held at least until `until`. */
export function holdFor(chat: { held: HeldAlerts | undefined }, until: number, lang: Lang): HeldAlerts {
  const held = (chat.held ??= { until, count: 0, lines: [], lang, infos: [] });
  held.until = Math.max(held.until, until);
  return held;
}

/** Counts one more held alert; lines past what the summary will list are not kept. */
export function holdAlert(held: HeldAlerts, line: string, maxLines: number): void {
  held.count += 1;
  if (held.lines.length < maxLines) held.lines.push(line);
}

/**
 * Takes the held records whose quiet hours are over at `now` off their chats, in the chats'
 * order, and says when the next of the others ends (Infinity: none held).
 */
export function releaseDue<C extends { held: HeldAlerts | undefined }>(
  chats: Iterable<C>,
  now: number,
): { due: { chat: C; held: HeldAlerts }[]; next: number } {
  const due: { chat: C; held: HeldAlerts }[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const chat of chats) {
    const held = chat.held;
    if (!held) continue;
    if (held.until > now) {
      next = Math.min(next, held.until);
      continue;
    }
    chat.held = undefined;
    due.push({ chat, held });
  }
  return { due, next };
}

/**
 * Holds a message until its quiet hours end: an alert as a summary line (its promise resolves at
 * once), any other message whole (`job` makes it; it resolves once sent after the summary).
 */
export function holdMessage(
  held: HeldAlerts,
  message: { kind: 'alert' | 'info'; digestLine: string },
  maxLines: number,
  job: (resolve: (messageId: number | undefined) => void) => SendJob,
): Promise<number | undefined> {
  if (message.kind === 'alert') {
    holdAlert(held, message.digestLine, maxLines);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => held.infos.push(job(resolve)));
}

/**
 * The jobs of the quiet hours over at `now`, in order: each chat's summary (made by `summaryJob`),
 * then the messages it held. Also says when the next of the others ends.
 */
export function releaseHeldJobs<C extends { held: HeldAlerts | undefined }>(
  chats: Iterable<C>,
  now: number,
  maxLines: number,
  summaryJob: (chat: C, text: string, lang: Lang) => SendJob,
): { jobs: { chat: C; job: SendJob }[]; next: number } {
  const { due, next } = releaseDue(chats, now);
  const jobs: { chat: C; job: SendJob }[] = [];
  for (const { chat, held } of due) {
    const summary = quietSummary(held, maxLines);
    if (summary !== undefined) jobs.push({ chat, job: summaryJob(chat, summary, held.lang) });
    for (const info of held.infos) jobs.push({ chat, job: info });
  }
  return { jobs, next };
}

/** The summary of the alerts held (HTML); undefined when only other messages were held. */
export function quietSummary(held: HeldAlerts, maxLines: number): string | undefined {
  if (held.count === 0) return undefined;
  return listMessage(quietSummaryHeader(held.lang, held.count), held.lines, held.count, held.lang, maxLines);
}
