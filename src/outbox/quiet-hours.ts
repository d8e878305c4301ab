/**
 * Quiet hours in the outbox. A message sent with `holdUntil` waits in its chat's held record
 * instead of the queue: an alert only as a count, a line and its item (it goes out in one summary
 * when quiet hours end: `quiet-summary.ts`), any other message whole (it goes out as it is, after
 * the summary). The decisions here are pure; the queue (`outbox.ts`) sends what they release.
 */
import type { Lang } from '../store/schema.js';
import type { SendJob } from './jobs.js';
import type { HeldAliveCheck, HeldItem } from './port.js';
import { renderSummary, summaryJob, type SummaryInput } from './quiet-summary.js';

export interface HeldAlerts {
  until: number;
  count: number;
  lines: { line: string; item?: HeldItem }[];
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
export function holdAlert(held: HeldAlerts, line: string, maxLines: number, item?: HeldItem): void {
  held.count += 1;
  if (held.lines.length < maxLines) held.lines.push(item ? { line, item } : { line });
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
  message: { kind: 'alert' | 'info'; digestLine: string; item?: HeldItem },
  maxLines: number,
  job: (resolve: (messageId: number | undefined) => void) => SendJob,
): Promise<number | undefined> {
  if (message.kind === 'alert') {
    holdAlert(held, message.digestLine, maxLines, message.item);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => held.infos.push(job(resolve)));
}

/**
 * The jobs of the quiet hours over at `now`, in order: each chat's summary (its job made by
 * `makeJob`, its marks asked of `alive` in its turn), then the messages it held. Also says when
 * the next of the others ends.
 */
export function releaseHeldJobs<C extends { held: HeldAlerts | undefined }>(
  chats: Iterable<C>,
  now: number,
  maxLines: number,
  makeJob: (chat: C, text: string, lang: Lang) => SendJob,
  alive?: HeldAliveCheck,
): { jobs: { chat: C; job: SendJob }[]; next: number } {
  const { due, next } = releaseDue(chats, now);
  const jobs: { chat: C; job: SendJob }[] = [];
  for (const { chat, held } of due) {
    if (held.count > 0) jobs.push({ chat, job: summaryJob(held, maxLines, (text) => makeJob(chat, text, held.lang), alive) });
    for (const info of held.infos) jobs.push({ chat, job: info });
  }
  return { jobs, next };
}

/** The summary of the alerts held (HTML), before its marks are known; undefined when only other messages were held. */
export function quietSummary(held: SummaryInput, maxLines: number): string | undefined {
  return held.count === 0 ? undefined : renderSummary(held, maxLines).text;
}
