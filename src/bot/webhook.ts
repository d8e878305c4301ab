/**
 * Webhook mode's receiving end: Telegram posts each update to TELEGRAM_WEBHOOK_URL, which the
 * operator port serves. Every post must carry the secret given to setWebhook in
 * `X-Telegram-Bot-Api-Secret-Token` (401 otherwise: anyone can post to a public URL). An update
 * is answered 200 as soon as it is queued, and handled by the bot's own concurrent queue (the
 * same sink long polling uses), so a slow handler never runs into Telegram's time limit and
 * Telegram never sends the update again. An update_id seen before (Telegram re-sends when an
 * answer was lost, and an attacker who learnt the secret could replay) is answered 200 and not
 * handled twice; with several fronts behind one URL, `firstSeen` asks the others too (Redis).
 *
 * Refused posts are logged at most once a minute, with how many were refused since the last
 * line: anyone can post to a public URL, and a line per post would let them fill the logs.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createConcurrentSink, type UpdateSink } from '@grammyjs/runner';
import type { Update } from 'grammy/types';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { WebhookStats } from '../health/collect.js';
import { readBody } from '../lib/read-body.js';

/** Telegram's updates are small; anything larger is not from Telegram. */
const MAX_BODY_BYTES = 1_000_000;
/** update_ids remembered for replay checks (Telegram re-sends only recent ones). */
const REMEMBERED_IDS = 10_000;
/** At most one log line about refused posts in this long. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Updates handled at once, as @grammyjs/runner does under long polling. */
const CONCURRENCY = 500;

// Only what the receiving end relies on; grammY reads the rest.
const updateShape = z.object({ update_id: z.number().int().nonnegative() }).loose();

export interface WebhookReceiver {
  /** The request handler for POSTs to the webhook path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  stats(): WebhookStats;
  /** Resolves when every accepted update has been handled (or `timeoutMs` passed). */
  drain(timeoutMs: number): Promise<void>;
  /** Stop accepting updates: later posts get 503, so Telegram keeps them for the next run. */
  close(): void;
}

/** Whether this front is the first of the fronts to take the update (true also when that cannot be told). */
export type FirstSeen = (updateId: number) => Promise<boolean>;

export interface WebhookReceiverOptions {
  secret: string;
  handleUpdate: (update: Update) => Promise<void>;
  logger: Logger;
  /** Several fronts: asked after this front's own memory of update_ids. */
  firstSeen?: FirstSeen;
  /** For the once-a-minute log of refused posts; default the system clock. */
  clock?: Pick<Clock, 'now'>;
}

export function createWebhookReceiver(opts: WebhookReceiverOptions): WebhookReceiver {
  const log = opts.logger.child({ module: 'webhook' });
  const expected = Buffer.from(opts.secret, 'utf8');
  const seen = new Set<number>();
  const order: number[] = [];
  const counts: WebhookStats = { accepted: 0, refused: { secret: 0, replay: 0, body: 0 } };
  let open = true;
  const clock = opts.clock ?? systemClock;
  let refusalLoggedAt = -Infinity;
  let refusedSinceLog = 0;
  const logRefusal = () => {
    refusedSinceLog += 1;
    const now = clock.now();
    if (now - refusalLoggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    log.warn({ refused: refusedSinceLog }, 'posts to the webhook without the right secret token were refused (logged at most once a minute)');
    refusalLoggedAt = now;
    refusedSinceLog = 0;
  };
  const sink: UpdateSink<Update> = createConcurrentSink<Update, unknown>(
    { consume: (update) => opts.handleUpdate(update) },
    async (err) => {
      log.error({ err }, 'an update from the webhook failed');
    },
    { concurrency: CONCURRENCY },
  );

  const secretMatches = (header: string | string[] | undefined): boolean => {
    if (typeof header !== 'string') return false;
    const got = Buffer.from(header, 'utf8');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  const remember = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    order.push(id);
    if (order.length > REMEMBERED_IDS) seen.delete(order.shift() as number);
    return true;
  };

  const reply = (res: ServerResponse, status: number, text = '') => {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  };

  return {
    handle(req, res) {
      if (!secretMatches(req.headers['x-telegram-bot-api-secret-token'])) {
        counts.refused.secret += 1;
        logRefusal();
        req.resume();
        reply(res, 401, 'unauthorized\n');
        return;
      }
      if (!open) {
        req.resume();
        reply(res, 503, 'shutting down\n');
        return;
      }
      void readBody(req, MAX_BODY_BYTES).then(
        async (body) => {
          const text = body.toString('utf8');
          let update: Update;
          try {
            const parsed = updateShape.safeParse(JSON.parse(text));
            if (!parsed.success) throw new Error('not an update');
            update = parsed.data as unknown as Update;
          } catch {
            counts.refused.body += 1;
            reply(res, 400, 'expected a Telegram update as JSON\n');
            return;
          }
          if (!remember(update.update_id) || (opts.firstSeen && !(await opts.firstSeen(update.update_id)))) {
            counts.refused.replay += 1;
            log.info({ update_id: update.update_id }, 'an update_id seen before was posted again: not handled twice');
            reply(res, 200);
            return;
          }
          counts.accepted += 1;
          // Not awaited: the sink runs it when a slot is free, and Telegram gets its answer now.
          void sink.handle([update]);
          reply(res, 200);
        },
        () => {
          counts.refused.body += 1;
          if (!res.headersSent) reply(res, 413, 'body too large\n');
        },
      );
    },
    stats: () => structuredClone(counts),
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (sink.size() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    },
    close() {
      open = false;
    },
  };
}
