/**
 * Alert latency end to end: the real app (`startApp`: store, vault, client, scheduler, notifier,
 * outbox, grammY long polling) against the sandbox Data Service and the fake Bot API over
 * loopback. A user connects the demo key and saves an arbs filter through the bot's own commands;
 * then items are injected into the sandbox one by one at random spacings, and each is timed from
 * the moment it appeared in the sandbox to the moment its alert's sendMessage reached the fake
 * Bot API (the alert is found through the bot's alert state: item id → message id).
 *
 *   npx tsx bench/alert-latency.ts
 *   BENCH_ALERTS=30 BENCH_POLL_SECONDS=2 npx tsx bench/alert-latency.ts
 *
 * Target (issue 4): median ≤ read interval / 2 + 300 ms, where the read interval in force is the
 * scheduler's: max(POLL_INTERVAL_SECONDS, the read limit's pace less the interactive share).
 */
import type { FakeUser, SentMessage } from '../src/fake-telegram/server.js';
import { DEFAULT_TUNING } from '../src/scheduler/scheduler.js';
import { subscriptionKey } from '../src/store/schema.js';
import { isEntryPoint, envInt, report, type BenchResult } from './lib/result.js';
import { startAppWorld } from './lib/app-world.js';
import { sleep, waitFor } from './lib/setup.js';
import { count, mean, median, ms, percentile } from './lib/stats.js';

const SERVICE = 'arbs_prematch';
/** Injected items carry this profit; the filter asks for at least MIN_PROFIT, so the world's own arbs rarely pass. */
const INJECTED_PROFIT = 8;
const MIN_PROFIT = 6;
/** How long an injected item may take before it counts as missed. */
const MISS_AFTER_MS = 30_000;

export interface AlertLatencyOptions {
  /** Items to inject. */
  alerts: number;
  /** POLL_INTERVAL_SECONDS of the bot. */
  pollSeconds: number;
  /** Random spacing between injections, real ms. */
  spacingMs: { min: number; max: number };
}

/** Runs the benchmark and returns its figures. */
export async function runAlertLatency(opts: AlertLatencyOptions): Promise<BenchResult> {
  // A calm world (items live and move on a scale of hours): the injected items almost never move
  // or die during the run, so their alerts rarely share the chat's one message a second with
  // edits, and none vanishes before it is read.
  const world = await startAppWorld({
    name: 'latency',
    sandbox: { seed: 7, world: { meanLifetimeMs: 3 * 3_600_000, moveEveryMs: 3 * 3_600_000 } },
    env: { POLL_INTERVAL_SECONDS: String(opts.pollSeconds) },
  });
  const { sandbox, telegram, config, app } = world;
  const user: FakeUser = { id: 7001, first_name: 'Bench', language_code: 'en' };
  const subKey = subscriptionKey(user.id, SERVICE);

  try {
    // ---- the user sets up through the bot, as a person would -----------------------------------
    const say = async (text: string, reply: RegExp) => {
      const after = Math.max(0, ...telegram.messages(user.id).map((m) => m.message_id));
      telegram.sendText(user, text);
      await telegram.waitForMessage((m) => m.chat_id === user.id && m.message_id > after && reply.test(m.text), 15_000);
    };
    await say('/start', /\/connect/);
    await say(`/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`, /connected/);
    await say(`/filter ${SERVICE} min_profit=${MIN_PROFIT}`, /saved/i);

    // The subscription's token and first read are behind us before anything is timed.
    const readsOf = () => sandbox.counters().byKeyHost[`${sandbox.demoKey.accessKey}|/arbs-prematch|items`] ?? 0;
    await waitFor('the first read of the subscription', () => (readsOf() > 0 ? true : undefined), 30_000, 50);
    await sleep(opts.pollSeconds * 1000);

    // ---- inject and time ----------------------------------------------------------------------
    const injected: { id: string; at: number }[] = [];
    const readsBefore = readsOf();
    const startedAt = Date.now();
    for (let i = 0; i < opts.alerts; i++) {
      await sleep(opts.spacingMs.min + Math.random() * (opts.spacingMs.max - opts.spacingMs.min));
      const item = sandbox.world.inject(SERVICE, { profit: INJECTED_PROFIT });
      injected.push({ id: item.id, at: sandbox.world.appearedAt(item.id) ?? Date.now() });
      if ((i + 1) % 10 === 0 || i + 1 === opts.alerts) console.log(`  injected ${i + 1}/${opts.alerts}`);
    }

    const sentAt = (id: string): number | undefined => {
      const messageId = app.store.alerts.get(subKey, id)?.messageId;
      if (messageId === null || messageId === undefined) return undefined;
      return telegram.messages(user.id).find((m: SentMessage) => m.message_id === messageId)?.at;
    };
    const last = injected[injected.length - 1];
    const deadline = (last?.at ?? Date.now()) + MISS_AFTER_MS;
    while (Date.now() < deadline && injected.some((x) => sentAt(x.id) === undefined)) await sleep(50);
    const elapsedMs = Date.now() - startedAt;
    const reads = readsOf() - readsBefore;

    const latencies: number[] = [];
    for (const x of injected) {
      const at = sentAt(x.id);
      if (at !== undefined) latencies.push(at - x.at);
    }
    const missed = injected.length - latencies.length;

    // The interval the scheduler reads one subscription at: the floor, or the read limit's pace
    // after the share kept for interactive lookups, whichever is longer (jitter comes on top).
    const paceMs = 60_000 / (config.LIMIT_ITEMS_PER_MINUTE * (1 - DEFAULT_TUNING.interactiveShare));
    const intervalMs = Math.max(config.POLL_INTERVAL_SECONDS * 1000, paceMs);
    const observedIntervalMs = reads > 0 ? elapsedMs / reads : Number.NaN;
    const targetMs = intervalMs / 2 + 300;
    const med = median(latencies);
    const breaches = sandbox.counters().breaches;

    return {
      bench: 'Alert latency (sandbox → alert at the fake Bot API)',
      setup:
        `startApp on loopback; 1 user, demo key, ${SERVICE} min_profit=${MIN_PROFIT}; ${opts.alerts} items injected ` +
        `(profit ${INJECTED_PROFIT}%) every ${opts.spacingMs.min / 1000}–${opts.spacingMs.max / 1000} s; ` +
        `POLL_INTERVAL_SECONDS=${config.POLL_INTERVAL_SECONDS}, LIMIT_ITEMS_PER_MINUTE=${config.LIMIT_ITEMS_PER_MINUTE}`,
      figures: [
        { metric: 'read interval in force (configured)', value: ms(intervalMs) },
        { metric: 'read interval observed (mean, jitter incl.)', value: ms(observedIntervalMs) },
        { metric: 'alerts timed / injected', value: `${count(latencies.length)} / ${count(injected.length)}`, pass: missed === 0 },
        { metric: 'latency median', value: ms(med), target: `≤ ${ms(targetMs)} (interval/2 + 300 ms)`, pass: med <= targetMs },
        { metric: 'latency p95', value: ms(percentile(latencies, 95)) },
        { metric: 'latency max', value: ms(Math.max(...latencies)) },
        { metric: 'latency min / mean', value: `${ms(Math.min(...latencies))} / ${ms(mean(latencies))}` },
        { metric: 'sandbox limit breaches', value: count(breaches), target: '0', pass: breaches === 0 },
      ],
    };
  } finally {
    await world.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  const result = await runAlertLatency({
    alerts: envInt('BENCH_ALERTS', 30, 1, 10_000),
    pollSeconds: envInt('BENCH_POLL_SECONDS', 2, 1, 3600),
    spacingMs: { min: envInt('BENCH_SPACING_MIN_MS', 2_000, 0, 600_000), max: envInt('BENCH_SPACING_MAX_MS', 4_000, 0, 600_000) },
  });
  await report([result]);
}
