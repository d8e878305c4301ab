/**
 * "Found 0.8 s before sending": a new alert's footer says how long the bot took from the read that
 * found its item to the moment Telegram was asked to send it. Only the outbox knows that moment
 * (an alert may wait its chat's turn, or travel through the cluster's queue to a front), so the
 * formatter writes a mark where the delay goes and the outbox puts the delay in, right before the
 * call. The mark is a pair of private-use characters; the footer is the alert's last line, so the
 * last mark in the text is the footer's even if a name from the service held the same pair.
 */
import type { Lang } from '../store/schema.js';
import type { SendManner } from './api.js';
import type { SendJob } from './jobs.js';

/** Where the delay goes in an alert's text. */
export const SEND_DELAY_MARK = '\u{E000}\u{E001}';

/** The delay in words: "0.8 s" under 10 s (tenths), "12 s", "2 min 5 s" (a point in Russian too, as the alerts do). */
export function formatSendDelay(ms: number, lang: Lang): string {
  const s = lang === 'ru' ? 'с' : 's';
  const min = lang === 'ru' ? 'мин' : 'min';
  const safe = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (safe < 10_000) return `${(Math.round(safe / 100) / 10).toFixed(1)} ${s}`;
  const sec = Math.round(safe / 1000);
  if (sec < 60) return `${sec} ${s}`;
  return sec % 60 === 0 ? `${Math.floor(sec / 60)} ${min}` : `${Math.floor(sec / 60)} ${min} ${sec % 60} ${s}`;
}

/** The text with its last mark replaced by the delay from `foundAt` to `now`; as it is when it has none. */
export function stampSendDelay(text: string, foundAt: number, now: number, lang: Lang): string {
  const at = text.lastIndexOf(SEND_DELAY_MARK);
  if (at < 0) return text;
  return `${text.slice(0, at)}${formatSendDelay(now - foundAt, lang)}${text.slice(at + SEND_DELAY_MARK.length)}`;
}

/** The job's next part as it goes now: its send-delay filled in (the delay to this very call), and how it goes. */
export function partToSend(job: Pick<SendJob, 'parts' | 'partIndex' | 'foundAt' | 'lang' | 'silent' | 'replyTo'>, now: number): { text: string; manner: SendManner } {
  const part = job.parts[job.partIndex] ?? '';
  const text = job.foundAt === undefined ? part : stampSendDelay(part, job.foundAt, now, job.lang);
  // Only the first part replies; every part is as silent as the message.
  return { text, manner: { silent: job.silent, replyTo: job.partIndex === 0 ? job.replyTo : undefined } };
}
