/**
 * Outbox throughput: the real Outbox on grammY's Api (on the bot's fetch, as the bot sends it)
 * against the fake Bot API over loopback. Many alerts for many chats are queued at once; the
 * figures are the rate achieved against the 25-a-second global cap, the most messages seen in any
 * one second, and the closest two messages to one chat came (one a second per private chat), all
 * measured where they arrive: at the fake Bot API.
 *
 *   npx tsx bench/outbox-throughput.ts
 *   BENCH_MESSAGES=500 BENCH_CHATS=200 npx tsx bench/outbox-throughput.ts
 */
import { Api } from 'grammy';
import { telegramFetch } from '../src/bot/telegram-fetch.js';
import { Outbox } from '../src/outbox/outbox.js';
import type { OutboxApi } from '../src/outbox/api.js';
import { startFakeTelegram } from '../src/fake-telegram/server.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { benchLogger } from './lib/setup.js';
import { count, maxInWindow, minGap, ms } from './lib/stats.js';

const GLOBAL_PER_SECOND = 25;
const CHAT_SPACING_MS = 1000;
/**
 * The outbox times a batch of sends by the instant its dispatch pass began, while the calls of
 * that pass leave over the next few milliseconds; a window this much shorter than a second keeps
 * that jitter from counting as a breach. The exact one-second counts, as called and as arrived
 * (loopback adds its own few tens of ms of jitter), are shown beside it.
 */
const TIMING_ALLOWANCE_MS = 20;
/** Alerts for each busy chat: as many as may queue for one chat before they fold into a digest. */
const HEAVY_PER_CHAT = 5;

/** How many messages each chat gets: a tenth of the chats HEAVY_PER_CHAT each, the rest spread evenly. */
function planMessages(messages: number, chats: number): number[] {
  const heavy = Math.min(Math.floor(chats / 10), Math.floor(messages / HEAVY_PER_CHAT));
  const counts = Array.from({ length: chats }, (_, i) => (i < heavy ? HEAVY_PER_CHAT : 0));
  // A tenth at most, so `light` is never 0.
  const light = chats - heavy;
  let left = messages - heavy * HEAVY_PER_CHAT;
  for (let i = 0; left > 0; i++, left--) counts[heavy + (i % light)]! += 1;
  return counts;
}

export interface OutboxThroughputOptions {
  messages: number;
  chats: number;
}

/** Runs the benchmark and returns its figures. */
export async function runOutboxThroughput(opts: OutboxThroughputOptions): Promise<BenchResult> {
  const telegram = await startFakeTelegram();
  const logger = benchLogger();
  const api = new Api(telegram.token, { apiRoot: telegram.apiRoot, timeoutSeconds: 30, fetch: telegramFetch() });
  // When the outbox calls sendMessage (its own pacing), as against when the call arrives (what Telegram counts).
  const calledAt: number[] = [];
  const calledAtByChat = new Map<number, number[]>();
  const timedApi: OutboxApi = {
    sendMessage: (chatId, text, other) => {
      const now = Date.now();
      calledAt.push(now);
      calledAtByChat.set(chatId, [...(calledAtByChat.get(chatId) ?? []), now]);
      return api.sendMessage(chatId, text, other);
    },
    editMessageText: (chatId, messageId, text, other) => api.editMessageText(chatId, messageId, text, other),
  };
  const outbox = new Outbox({
    api: timedApi,
    logger,
    globalPerSecond: GLOBAL_PER_SECOND,
  });
  // Private chats (positive ids). A tenth of them are busy (HEAVY_PER_CHAT alerts each, just
  // under the digest threshold, so the one-a-second spacing per chat is what holds them back);
  // the other messages are spread evenly over the rest.
  const chatIds = Array.from({ length: opts.chats }, (_, i) => 500_000 + i);
  const perChat = planMessages(opts.messages, opts.chats);
  try {
    outbox.start();
    const queuedAt = Date.now();
    const sends: Promise<number | undefined>[] = [];
    // Round by round, so every chat has work from the start and the busy ones keep theirs queued.
    let n = 0;
    for (let round = 0; n < opts.messages; round++) {
      for (let c = 0; c < chatIds.length; c++) {
        if (perChat[c]! <= round) continue;
        n += 1;
        const line = `<b>Arb +${(1 + (n % 70) / 10).toFixed(1)}%</b> · bench alert ${n}`;
        sends.push(outbox.send(chatIds[c]!, `${line}\nTeam A – Team B\nleg 1 · leg 2`, { kind: 'alert', digestLine: line }));
      }
    }
    const ids = await Promise.all(sends);
    const doneAt = Date.now();

    const times = telegram.sendTimes();
    const overallRate = (times.length * 1000) / (doneAt - queuedAt);
    const busiestAtArrival = maxInWindow(times, 1000);
    const busiestAtCall = maxInWindow(calledAt, 1000);
    const busiestWithAllowance = maxInWindow(calledAt, 1000 - TIMING_ALLOWANCE_MS);
    const closestArrived = Math.min(...chatIds.map((id) => minGap(telegram.sendTimes(id))));
    const closestCalled = Math.min(...chatIds.map((id) => minGap(calledAtByChat.get(id) ?? [])));
    const delivered = ids.filter((id) => id !== undefined).length;
    const stats = outbox.stats;

    return {
      bench: 'Outbox throughput (Outbox → fake Bot API)',
      setup:
        `${count(opts.messages)} alerts queued at once for ${count(opts.chats)} private chats ` +
        `(${count(perChat.filter((c) => c === HEAVY_PER_CHAT).length)} of them get ${HEAVY_PER_CHAT}, the rest share the remainder); ` +
        `global cap ${GLOBAL_PER_SECOND}/s, ${CHAT_SPACING_MS / 1000} s per chat`,
      figures: [
        { metric: 'delivered / queued', value: `${count(delivered)} / ${count(opts.messages)}`, pass: delivered === opts.messages },
        { metric: 'time to deliver all', value: ms(doneAt - queuedAt) },
        {
          metric: 'rate achieved (queued → all delivered)',
          value: `${overallRate.toFixed(1)} msg/s (${((overallRate / GLOBAL_PER_SECOND) * 100).toFixed(0)} % of the cap)`,
        },
        { metric: 'most sends in any 1 s, as called / as arrived', value: `${count(busiestAtCall)} / ${count(busiestAtArrival)}` },
        {
          metric: `most sends in any ${1000 - TIMING_ALLOWANCE_MS} ms, as called`,
          value: count(busiestWithAllowance),
          target: `≤ ${GLOBAL_PER_SECOND} (1 s less ${TIMING_ALLOWANCE_MS} ms of timing allowance)`,
          pass: busiestWithAllowance <= GLOBAL_PER_SECOND,
        },
        { metric: 'closest two sends to one chat, as arrived', value: ms(closestArrived) },
        {
          metric: 'closest two sends to one chat, as called',
          value: ms(closestCalled),
          target: `≥ ${ms(CHAT_SPACING_MS - TIMING_ALLOWANCE_MS)} (1 s less the allowance)`,
          pass: closestCalled >= CHAT_SPACING_MS - TIMING_ALLOWANCE_MS,
        },
        { metric: 'retries / given up / folded', value: `${count(stats.retried)} / ${count(stats.gaveUp)} / ${count(stats.folded)}` },
      ],
    };
  } finally {
    outbox.stop();
    await outbox.stopped();
    await telegram.close();
    logger.flush();
  }
}

if (isEntryPoint(import.meta.url)) {
  const result = await runOutboxThroughput({
    messages: envInt('BENCH_MESSAGES', 500, 1, 100_000),
    chats: envInt('BENCH_CHATS', 200, 1, 100_000),
  });
  await report([result]);
}
