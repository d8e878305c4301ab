/**
 * Digest folding. When a chat falls behind — a burst of alerts at once, or an alert that has
 * waited too long for its turn — the alerts queued behind the first join one digest message
 * ("+N more:" and a line each), written only when it is sent, so alerts arriving meanwhile join
 * it too. A flood then costs a chat one message, not one a second for minutes.
 */
import type { Lang } from '../store/schema.js';
import { digestHeader, moreLinesLine } from './digest-text.js';
import type { Job, SendJob } from './jobs.js';
import type { BeforeFirstSend, OutboxButtons } from './port.js';
import { splitMessage } from './split.js';

export interface DigestRules {
  /** More queued alerts than this fold. */
  threshold: number;
  /** A first alert that has waited this long folds those behind it, however few. */
  behindMs: number;
  /** Lines listed before "… and N more". */
  maxLines: number;
}

/** The chat's queued digest that alerts may still join (not being sent yet), if any. */
export function openDigest(chat: { queue: Job[] }): SendJob | undefined {
  for (const job of chat.queue) {
    if (job.type === 'send' && job.folded && !job.inFlight) return job;
  }
  return undefined;
}

export function isFoldable(job: Job): job is SendJob {
  return job.type === 'send' && job.kind === 'alert' && job.partIndex === 0 && !job.inFlight;
}

/**
 * Counts one more alert in the digest; lines past what it will list are not kept. An alert with a
 * question (`ask`, port.ts) is asked in the digest's turn, and its promise (`resolve`) settles with
 * the digest's instead of at once: until then it is not sent.
 */
export function addToDigest(
  digest: SendJob,
  line: string,
  maxLines: number,
  asked?: { ask: BeforeFirstSend; resolve: (messageId: undefined) => void },
  row?: OutboxButtons[number],
): void {
  const folded = (digest.folded ??= { lines: [], count: 0, asks: [] });
  folded.count += 1;
  const listed = folded.lines.length < maxLines;
  if (listed) {
    folded.lines.push(line);
    // Kept only once some line has buttons (most digests have none).
    if (row) folded.rows = [...Array.from({ length: folded.lines.length - 1 }, (_, i) => folded.rows?.[i]), row];
  }
  if (!asked) return;
  folded.asks.push({ line: listed ? folded.lines.length - 1 : undefined, ask: asked.ask });
  const before = digest.resolve;
  digest.resolve = (messageId) => {
    before(messageId);
    asked.resolve(undefined);
  };
}

/**
 * Asks the questions of the alerts folded into the digest (in its turn, before it is written) and
 * leaves out those that said no. Returns how many alerts it still holds.
 */
export async function askFolded(digest: SendJob, ask: (question: BeforeFirstSend) => Promise<boolean>): Promise<number> {
  const folded = digest.folded;
  if (!folded) return 0;
  if (folded.asks.length === 0) return folded.count;
  const answers = await Promise.all(folded.asks.map((a) => ask(a.ask)));
  const dropped = new Set<number>();
  folded.asks.forEach((a, i) => {
    if (answers[i]) return;
    folded.count -= 1;
    if (a.line !== undefined) dropped.add(a.line);
  });
  const rows = folded.rows;
  if (rows) folded.rows = folded.lines.map((_, i) => rows[i]).filter((_, i) => !dropped.has(i));
  folded.lines = folded.lines.filter((_, i) => !dropped.has(i));
  folded.asks = [];
  return folded.count;
}

/**
 * When the first queued alert has more than `threshold` alerts queued with it, or any of them has
 * waited `behindMs` (a late alert waits behind fresh ones, so the oldest need not be the first),
 * the others join the chat's digest (a new one, made by
 * `newDigest`, where the first of them stood, unless one is still waiting to go). Folded alerts'
 * promises resolve with no message id (those with a question when the digest is done). Returns how many alerts were folded.
 */
export function foldBurst(chat: { queue: Job[] }, now: number, rules: DigestRules, newDigest: (lang: Lang) => SendJob): number {
  // Looked at without a copy first: this runs for every alert queued and every send, and a flood
  // keeps hundreds of chats with a queue that mostly folds nothing.
  let count = 0;
  let behind = false;
  for (const job of chat.queue) {
    if (!isFoldable(job)) continue;
    count += 1;
    if (now - job.queuedAt >= rules.behindMs) behind = true;
  }
  if (count < 2 || (count <= rules.threshold && !behind)) return 0;
  // Everything after the first foldable alert folds.
  const rest = chat.queue.filter(isFoldable).slice(1);
  let digest = openDigest(chat);
  if (!digest) {
    const first = rest[0]!;
    digest = newDigest(first.lang);
    digest.folded = { lines: [], count: 0, asks: [] };
    // It takes the first folded alert's place and rank (fresh or late), so the queue stays in order.
    digest.priority = first.priority;
    chat.queue.splice(chat.queue.indexOf(first), 0, digest);
  }
  const folded = new Set<Job>(rest);
  chat.queue = chat.queue.filter((j) => !folded.has(j));
  for (const job of rest) {
    if (job.beforeFirstSend) {
      addToDigest(digest, job.digestLine, rules.maxLines, { ask: job.beforeFirstSend, resolve: job.resolve }, job.digestButtons);
    } else {
      addToDigest(digest, job.digestLine, rules.maxLines, undefined, job.digestButtons);
      job.resolve(undefined);
    }
  }
  return rest.length;
}

/** A header, at most `maxLines` of the lines, and "… and N more" for the rest of `total`. */
export function listMessage(header: string, lines: string[], total: number, lang: Lang, maxLines: number): string {
  const shown = lines.slice(0, maxLines);
  const more = total - shown.length;
  return [header, ...shown, ...(more > 0 ? [moreLinesLine(lang, more)] : [])].join('\n');
}

/** Writes a digest's text as it goes out, with every alert that joined it while it waited; no alert may join it after. */
export function writeDigest(digest: SendJob, maxLines: number): void {
  if (!digest.folded) return;
  const { lines, count, rows = [] } = digest.folded;
  if (count === 0) {
    digest.parts = [];
    digest.folded = undefined;
    return;
  }
  // Lines whose alert keeps buttons (the ledger's ✅ / ✏️) are numbered, and so are their buttons.
  const numbered = rows.some((r) => r !== undefined && r.length > 0);
  const shown = numbered ? lines.map((l, i) => `${i + 1}. ${l}`) : lines;
  digest.parts = splitMessage(listMessage(digestHeader(digest.lang, count), shown, count, digest.lang, maxLines));
  if (numbered && digest.parts.length === 1) {
    digest.buttons = rows
      .slice(0, maxLines)
      .flatMap((row, i) => (row && row.length > 0 ? [row.map((b) => ({ ...b, text: `${i + 1}. ${b.text}` }))] : []));
  }
  digest.folded = undefined;
}
