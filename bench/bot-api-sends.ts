/**
 * What one Bot API call costs the bot's process: grammY's `Api` sending alert-sized messages (HTML
 * with a keyboard, as the outbox sends them, 8 at a time as its `maxInFlight`) to the fake Bot API
 * in another process, once through the bot's fetch (src/bot/telegram-fetch.ts, undici's dispatcher)
 * and once through grammY's default (node-fetch over node:http), in turns, so both meet the same
 * machine. The figure is the process's CPU time per call.
 *
 *   npx tsc -p tsconfig.bench.json && node .bench-build/bench/bot-api-sends.js
 *   BENCH_API_CALLS=3000 BENCH_API_ROUNDS=4 node .bench-build/bench/bot-api-sends.js
 */
import { availableParallelism, loadavg } from 'node:os';
import { Api } from 'grammy';
import { telegramFetch } from '../src/bot/telegram-fetch.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { startBackend } from './lib/scale-backend.js';
import { median } from './lib/stats.js';

/** As the outbox keeps calls in flight (src/outbox/options.ts `maxInFlight`). */
const IN_FLIGHT = 8;

/** An alert's size: about a kilobyte of HTML and one row of buttons. */
const TEXT = `<b>Arb 2.4 %</b> · Football · League\n${'Team A – Team B, 1X2 @ 2.10 · Bookmaker\n'.repeat(20)}`;
const BUTTONS = { inline_keyboard: [[{ text: '✅ Placed', callback_data: 'p:1' }, { text: '🔕', callback_data: 'm:1' }]] };

async function cpuPerCall(api: Api, calls: number): Promise<number> {
  const started = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      await api.sendMessage(1_000 + (i % 200), TEXT, { parse_mode: 'HTML', reply_markup: BUTTONS });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / calls;
}

export async function runBotApiSends(opts: { calls: number; rounds: number }): Promise<BenchResult> {
  const backend = await startBackend({ keys: 1, seed: 1, world: { eventsPerService: 1, itemsPerService: 1, meanLifetimeMs: 60_000, moveEveryMs: 60_000 } });
  try {
    const { token, apiRoot } = backend.telegram;
    const variants = { bot: new Api(token, { apiRoot, fetch: telegramFetch() }), grammy: new Api(token, { apiRoot }) };
    // Connections opened and code warmed before anything is counted.
    for (const api of Object.values(variants)) await cpuPerCall(api, 200);
    const per: Record<keyof typeof variants, number[]> = { bot: [], grammy: [] };
    for (let round = 0; round < opts.rounds; round++) {
      // This, that, that, this: neither always goes first.
      const order: (keyof typeof variants)[] = round % 2 === 0 ? ['bot', 'grammy'] : ['grammy', 'bot'];
      for (const name of order) per[name].push(await cpuPerCall(variants[name], opts.calls));
    }
    const bot = median(per.bot);
    const grammy = median(per.grammy);
    const list = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(', ');
    return {
      bench: 'Bot API sends',
      setup: `${opts.calls} sendMessage calls a round, ${IN_FLIGHT} in flight, ${opts.rounds} rounds in turns; fake Bot API in its own process; load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores`,
      figures: [
        { metric: 'CPU per call, the bot’s fetch (undici): median (rounds)', value: `${bot.toFixed(3)} ms (${list(per.bot)})` },
        { metric: 'CPU per call, grammY’s default (node-fetch): median (rounds)', value: `${grammy.toFixed(3)} ms (${list(per.grammy)})` },
        { metric: 'the bot’s fetch ÷ the default', value: `× ${(bot / grammy).toFixed(2)}` },
      ],
      values: { botMsPerCall: bot, grammyMsPerCall: grammy },
    };
  } finally {
    await backend.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  await report([await runBotApiSends({ calls: envInt('BENCH_API_CALLS', 2_000, 100, 100_000), rounds: envInt('BENCH_API_ROUNDS', 4, 1, 20) })]);
}
