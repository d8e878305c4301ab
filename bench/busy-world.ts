/**
 * The busy world, as users see it: the bot AS SHIPPED (`src/main.ts` in its own process with the
 * flags of `npm start`, default settings; only the URLs, the token and the data folder point at
 * the stand-ins) and the minimal poller (`lib/poller.ts`, its own process) side by side on the
 * same sandbox world in the same run, each with its own keys and its own fake Bot API that
 * enforces Telegram's rate limits. Users join the bot through its real commands (/start,
 * /connect, /filter one-line form). Items appear every 4–9 s, some 15 % live only 3–8 s, most
 * move every 15–40 s (`BUSY_WORLD`).
 *
 * Everything is measured from outside both processes: latency from an item's appearance (sandbox
 * time; from the move that made it an arb for the user, lib/busy-commission.ts) to the first
 * message naming it at the fake Bot API (sent, or the user's alert of the same arb revived for it,
 * lib/busy-figures.ts); the share of qualifying alerts
 * delivered (an item that lived ≥ 3 s while the user's key held a token for its service; under the
 * address scope, while any key of the user's read group did, since one read serves them all); reads
 * and tokens per key from the sandbox's counters; 429s and early requests from the fake Bot API's
 * flood control; CPU time and peak resident memory from /proc.
 *
 *   npm run bench                                             # all benchmarks, this one first
 *   node .bench-build/bench/busy-world.js                     # after `npx tsc -p tsconfig.bench.json`
 *   BENCH_BUSY_SCENARIOS=live BENCH_BUSY_SECONDS=120 npx tsx bench/busy-world.ts
 *
 * Settings: BENCH_BUSY_SCENARIOS (live, live+prematch, address; default all three, each in a
 * fresh process), BENCH_BUSY_SECONDS (measured window, default 360), BENCH_BUSY_WARMUP_SECONDS
 * (after onboarding, before the window; default 45), BENCH_BUSY_USERS (default 20),
 * BENCH_BUSY_SEED (default 11), BENCH_BUSY_DUMP (a JSON file: every user × item delivered, slowest first).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { z } from 'zod';
import { startFakeTelegram, type FakeTelegram, type FakeUser, type FloodStats } from '../src/fake-telegram/server.js';
import { basePathOf, BUSY_TEMPO, BUSY_WORLD, startSandbox, type SandboxKey } from '../src/sandbox/index.js';
import type { Service } from '../src/service/services.js';
import { DEFAULT_TUNING } from '../src/scheduler/tuning.js';
import { coverageOf, delivery, itemsOf, pairsOf, readsOf, recordFirstSends, type Delivery, type Watch, type Window } from './lib/busy-figures.js';
import { watchCommission } from './lib/busy-commission.js';
import { explainMisses, usableCoverage } from './lib/busy-misses.js';
import { askPoller, FIRST_CHAT, POLLER_ADDRESS, reportBotLog, startBot, startPoller, stopChild } from './lib/busy-processes.js';
import { cpuMs, peakRssBytes } from './lib/proc.js';
import { envInt, handOver, isEntryPoint, printResults, runBenchProcess, type BenchResult, type Figure } from './lib/result.js';
import { sleep, tempDataDir, waitFor } from './lib/setup.js';
import { markdownTable, mb, ms, percentile } from './lib/stats.js';

const SCENARIOS = {
  live: { services: ['arbs_live'], scope: 'key', title: 'arbs live' },
  'live+prematch': { services: ['arbs_live', 'arbs_prematch'], scope: 'key', title: 'arbs live + prematch' },
  address: { services: ['arbs_live', 'arbs_prematch'], scope: 'address', title: 'arbs live + prematch, LIMIT_SCOPE=address' },
} as const satisfies Record<string, { services: Service[]; scope: 'key' | 'address'; title: string }>;
type ScenarioName = keyof typeof SCENARIOS;
const scenarioSchema = z.enum(Object.keys(SCENARIOS) as [ScenarioName, ...ScenarioName[]]);

/** The service's read limit (reads per key and host per minute) the quota use is measured against. */
const READS_PER_MINUTE = 30;
/** Sends after the window still count for items that appeared in it. */
const GRACE_MS = 20_000;
/** The coverage key of the bot's read group under the address scope (the union of its users' tokens). */
const BOT_GROUP = 'bot read group';
/** How this benchmark's results are named (`run-all.ts` gives them the side-by-side table). */
export const BUSY_PREFIX = 'Busy world: ';

interface Side {
  name: 'bot' | 'poller';
  telegram: FakeTelegram;
  keys: SandboxKey[];
  address: string;
  process?: ChildProcess;
}

export async function runBusyWorld(name: ScenarioName): Promise<BenchResult> {
  const scenario = SCENARIOS[name];
  const users = envInt('BENCH_BUSY_USERS', 20, 1, 500);
  const windowMs = envInt('BENCH_BUSY_SECONDS', 360, 10, 7_200) * 1000;
  const warmupMs = envInt('BENCH_BUSY_WARMUP_SECONDS', 45, 0, 600) * 1000;
  const seed = envInt('BENCH_BUSY_SEED', 11, 1, 1_000_000);
  const services: Service[] = [...scenario.services];

  const makeKeys = (prefix: string): SandboxKey[] =>
    Array.from({ length: users }, (_, i) => ({ accessKey: `${prefix}-${i + 1}`, secret: randomBytes(24).toString('base64url') }));
  const botKeys = makeKeys('bench-bot');
  const pollerKeys = makeKeys('bench-poller');
  const sandbox = await startSandbox({ seed, world: BUSY_WORLD, keys: [...botKeys, ...pollerKeys], limits: { scope: scenario.scope, tokenScope: 'key' } });
  const bot: Side = { name: 'bot', telegram: await startFakeTelegram({ floodControl: true }), keys: botKeys, address: '127.0.0.1' };
  const poller: Side = {
    name: 'poller',
    telegram: await startFakeTelegram({ floodControl: true, token: '654321:POLLER-TOKEN-abcdefghijklmnopq' }),
    keys: pollerKeys,
    address: scenario.scope === 'address' ? POLLER_ADDRESS : '127.0.0.1',
  };
  const sends = { bot: recordFirstSends(bot.telegram), poller: recordFirstSends(poller.telegram) };
  const commission = watchCommission(sandbox, services);
  const data = await tempDataDir('busy');
  const started = Date.now();
  const hardStop = setTimeout(() => {
    // Every loop below is bounded; this is the last line of defence against a hung child.
    console.error('busy-world: the run overran its time bound; stopping');
    process.exit(1);
  }, windowMs + warmupMs + 10 * 60_000);
  hardStop.unref();
  // The children never outlive this process, however it ends.
  const killChildren = () => {
    bot.process?.kill('SIGKILL');
    poller.process?.kill('SIGKILL');
  };
  process.once('exit', killChildren);

  try {
    bot.process = startBot(sandbox, bot.telegram, data.dir, scenario.scope);
    await waitFor('the bot to poll Telegram', () => (bot.telegram.calls('getUpdates').length > 0 ? true : undefined), 60_000, 100);
    const onboarded = await onboard(bot.telegram, botKeys, services);
    console.log(`  ${name}: ${onboarded.ok}/${users} users onboarded through the bot${onboarded.failures.length ? ` (${onboarded.failures[0]})` : ''}`);
    poller.process = await startPoller(sandbox, poller.telegram, pollerKeys, services, scenario.scope === 'address');

    await sleep(warmupMs);
    const window0 = { at: Date.now(), counters: sandbox.counters(), cpu: { bot: cpuMs(pid(bot)), poller: cpuMs(pid(poller)) } };
    const load0 = loadavg()[0] ?? 0;
    for (let s = 30; s * 1000 < windowMs; s += 30) {
      await sleep(Math.max(0, window0.at + s * 1000 - Date.now()));
      const c = sandbox.counters();
      console.log(`  ${name}: ${s}/${windowMs / 1000} s; reads bot ${readsOf(c.byKeyHost, botKeys)}, poller ${readsOf(c.byKeyHost, pollerKeys)}`);
    }
    await sleep(Math.max(0, window0.at + windowMs - Date.now()));
    const window1 = { at: Date.now(), counters: sandbox.counters(), cpu: { bot: cpuMs(pid(bot)), poller: cpuMs(pid(poller)) } };
    const pollerStats = await askPoller(poller.process);
    await sleep(GRACE_MS);
    const peak = { bot: peakRssBytes(pid(bot)), poller: peakRssBytes(pid(poller)) };
    const load1 = loadavg()[0] ?? 0;

    const window: Window = { start: window0.at, end: window1.at, graceEnd: window1.at + GRACE_MS };
    commission.stop();
    // Arbs with no stakes that win in every outcome for these users (after an exchange's commission, on
    // whole-unit stakes within the default bankroll) qualify for neither side, and one that became such
    // an arb only after its odds moved counts from then (lib/busy-commission.ts).
    const losing = commission.losing();
    const items = itemsOf(sandbox.world.changes(window.start - 1), window, losing, commission.worthFrom());
    const sentLosing = (side: 'bot' | 'poller') => [...sends[side].firsts.keys()].filter((k) => losing.has(k.split('|')[1] ?? '')).length;
    console.log(`  ${name}: ${losing.size} arbs were never an arb for these users (no stakes on their grid win in every outcome, an exchange's commission included); alerts sent for them: bot ${sentLosing('bot')}, poller ${sentLosing('poller')}`);
    // Under the address scope the bot's users (all on one filter) form one read group per service: a
    // service is readable for each of them while any of their keys holds a token for it.
    const grants = sandbox.tokenGrants();
    const botKeySet = new Set(botKeys.map((k) => k.accessKey));
    const pooled = scenario.scope === 'address' ? grants.filter((g) => botKeySet.has(g.accessKey)).map((g) => ({ ...g, accessKey: BOT_GROUP })) : [];
    const coverage = coverageOf([...grants, ...pooled]);
    // The bot stops using a token this long before it expires (the client renews 20 s early, plus a safety margin).
    const tailMs = DEFAULT_TUNING.clientRenewMarginMs + DEFAULT_TUNING.tokenSafetyMs;
    const usable = coverageOf(usableCoverage([...grants, ...pooled], tailMs));
    const watchesOf = (keys: SandboxKey[], cover: (k: SandboxKey) => string): Watch[] =>
      keys.flatMap((k, i) => services.map((service) => ({ chatId: FIRST_CHAT + i, service, coverKey: cover(k) })));
    const watches = {
      bot: watchesOf(botKeys, (k) => (scenario.scope === 'address' ? BOT_GROUP : k.accessKey)),
      poller: watchesOf(pollerKeys, (k) => (scenario.scope === 'address' ? (pollerKeys[0] as SandboxKey).accessKey : k.accessKey)),
    };
    const d = {
      bot: delivery(watches.bot, items, sends.bot.firsts, coverage, window),
      poller: delivery(watches.poller, items, sends.poller.firsts, coverage, window),
    };
    const dUsable = {
      bot: delivery(watches.bot, items, sends.bot.firsts, usable, window),
      poller: delivery(watches.poller, items, sends.poller.firsts, usable, window),
    };
    const dumpFile = process.env.BENCH_BUSY_DUMP?.trim();
    if (dumpFile) writeFileSync(dumpFile, JSON.stringify(pairsOf(items, sends, window), null, 1));
    const readLog = window1.counters.readLog;
    const explain = (side: 'bot' | 'poller') =>
      explainMisses({
        watches: watches[side],
        items,
        sends: sends[side].firsts,
        unnamedByChat: sends[side].unnamedByChat,
        coverage,
        usable,
        reads: scenario.scope === 'address' ? [] : readLog,
        baseOf: basePathOf,
        window,
      });
    const misses = { bot: explain('bot'), poller: explain('poller') };
    for (const side of ['bot', 'poller'] as const) {
      const m = misses[side];
      console.log(
        `  ${name}: ${side} missed ${m.missed}: not read while the item lived ${m.unreadInTail} (token in its last ${tailMs / 1000} s) + ${m.unreadOther} (other); ` +
          `read but no alert ${m.readDigestNearby} (a message naming no item went to the chat meanwhile) + ${m.readNoAlert}; sent past the grace ${m.sentLate}; ` +
          `by service ${JSON.stringify(m.byService)}`,
      );
      for (const e of m.examples) console.log(`    ${e}`);
    }
    const minutes = (window.end - window.start) / 60_000;
    const perSide = (side: Side) => {
      const reads = diff(window1.counters.byKeyHost, window0.counters.byKeyHost, side.keys, services, 'items');
      const tokens = diff(window1.counters.byKeyHost, window0.counters.byKeyHost, side.keys, services, 'token');
      const readsTotal = [...reads.values()].reduce((a, b) => a + b, 0);
      const tokensTotal = [...tokens.values()].reduce((a, b) => a + b, 0);
      // Reads under the address scope count per address; tokens always per key (as the real token endpoint).
      const breaches = window1.counters.breachLog.filter(
        (b) => (scenario.scope === 'address' && b.scope.endsWith(`addr:${side.address}`)) || side.keys.some((k) => b.scope.endsWith(`key:${k.accessKey}`)),
      ).length;
      const cpu = window1.cpu[side.name] - window0.cpu[side.name];
      return { reads, readsTotal, tokensTotal, breaches, cpu, flood: side.telegram.flood() };
    };
    const fig = { bot: perSide(bot), poller: perSide(poller) };
    // Under the address scope everyone's reads share one budget per host: count them per host.
    const readRate = (f: ReturnType<typeof perSide>) =>
      scenario.scope === 'address' ? f.readsTotal / services.length / minutes : f.readsTotal / Math.max(1, f.reads.size) / minutes;
    const tokenRate = (f: ReturnType<typeof perSide>) => (scenario.scope === 'address' ? f.tokensTotal : f.tokensTotal / users) / (minutes / 60);

    const figures: Figure[] = [];
    const row = (metric: string, b: number, p: number, show: (v: number) => string, extra?: { bot?: string; poller?: string }) => {
      figures.push({ metric: `${metric} [bot]`, value: `${show(b)}${extra?.bot ?? ''}` });
      figures.push({ metric: `${metric} [poller]`, value: `${show(p)}${extra?.poller ?? ''}` });
      figures.push({ metric: `${metric} [bot/poller]`, value: ratio(b, p) });
    };
    const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
    const share = (x: Delivery) => (x.qualifying > 0 ? x.delivered / x.qualifying : Number.NaN);
    const shareLived = (x: Delivery) => (x.lived > 0 ? x.deliveredOfLived / x.lived : Number.NaN);
    row('users onboarded', onboarded.ok, users, (v) => `${v}/${users}`);
    row('alert latency p50', percentile(d.bot.latencies, 50), percentile(d.poller.latencies, 50), ms);
    row('alert latency p95', percentile(d.bot.latencies, 95), percentile(d.poller.latencies, 95), ms);
    row('alert latency max', max(d.bot.latencies), max(d.poller.latencies), ms);
    row('qualifying alerts delivered (lived ≥ 3 s with a token)', share(d.bot), share(d.poller), pct, {
      bot: ` (${d.bot.delivered}/${d.bot.qualifying})`,
      poller: ` (${d.poller.delivered}/${d.poller.qualifying})`,
    });
    row(`qualifying alerts delivered, counting a token's time less its last ${tailMs / 1000} s (when the bot no longer uses it)`, share(dUsable.bot), share(dUsable.poller), pct, {
      bot: ` (${dUsable.bot.delivered}/${dUsable.bot.qualifying})`,
      poller: ` (${dUsable.poller.delivered}/${dUsable.poller.qualifying})`,
    });
    row('alerts delivered of all that lived ≥ 3 s', shareLived(d.bot), shareLived(d.poller), pct);
    row('alerts sent before the item was an arb for the user (left out of the latencies)', d.bot.early, d.poller.early, String);
    row('token coverage (time the keys could read)', d.bot.coverage, d.poller.coverage, pct);
    row('item reads per key and host per minute (address scope: per host)', readRate(fig.bot), readRate(fig.poller), (v) => v.toFixed(1));
    row(`quota use (reads / ${READS_PER_MINUTE})`, readRate(fig.bot) / READS_PER_MINUTE, readRate(fig.poller) / READS_PER_MINUTE, (v) => v.toFixed(2));
    row('tokens per key per hour (address scope: per address)', tokenRate(fig.bot), tokenRate(fig.poller), (v) => v.toFixed(1));
    row('Telegram 429s', fig.bot.flood?.tooMany ?? Number.NaN, fig.poller.flood?.tooMany ?? Number.NaN, String, {
      bot: methods(fig.bot.flood),
      poller: methods(fig.poller.flood),
    });
    row('requests to a chat before its retry_after', fig.bot.flood?.early ?? Number.NaN, fig.poller.flood?.early ?? Number.NaN, String, {
      bot: earlyMethods(fig.bot.flood),
    });
    row('service limit breaches (sandbox 429s)', fig.bot.breaches, fig.poller.breaches, String);
    row('CPU per read', fig.bot.cpu / Math.max(1, fig.bot.readsTotal), fig.poller.cpu / Math.max(1, fig.poller.readsTotal), (v) => `${v.toFixed(2)} ms`);
    row('peak resident memory', peak.bot, peak.poller, mb);
    figures.push({
      metric: 'sends / edits at the fake Bot API [bot]',
      value: `${bot.telegram.calls('sendMessage').filter((c) => c.ok).length} / ${bot.telegram.calls('editMessageText').filter((c) => c.ok).length}`,
    });
    const unnamed = (x: { unnamed: number[] }) => x.unnamed.filter((t) => t >= window.start && t <= window.graceEnd).length;
    figures.push({ metric: 'messages in the window naming no item (digests, summaries) [bot]', value: String(unnamed(sends.bot)) });
    const revived = [...sends.bot.byEdit].filter((k) => (sends.bot.firsts.get(k) ?? 0) >= window.start).length;
    figures.push({ metric: 'alerts delivered by reviving the message of the same arb under an earlier id [bot]', value: String(revived) });
    figures.push({
      metric: 'sends / edits at the fake Bot API [poller]',
      value: pollerStats
        ? `${pollerStats.sends} / ${pollerStats.edits} (reads ${pollerStats.reads}, read errors ${pollerStats.readErrors}, tokens ${pollerStats.tokenRequests}, reads skipped dark ${pollerStats.darkReads})`
        : 'no answer from the poller',
    });

    const appeared = [...items.values()].reduce((a, m) => a + m.size, 0);
    return {
      bench: `${BUSY_PREFIX}${users} users × ${scenario.title}`,
      setup:
        `bot as shipped (own process, default settings${scenario.scope === 'address' ? ' + LIMIT_SCOPE=address' : ''}) vs the minimal poller, same sandbox world (seed ${seed}) in one run; ` +
        `items every ${BUSY_TEMPO.birthGapMs.min / 1000}–${BUSY_TEMPO.birthGapMs.max / 1000} s, ${BUSY_TEMPO.shortLivedShare * 100} % living ` +
        `${BUSY_TEMPO.shortLifetimeMs.min / 1000}–${BUSY_TEMPO.shortLifetimeMs.max / 1000} s, ${BUSY_TEMPO.movingShare * 100} % moving every ` +
        `${BUSY_TEMPO.moveGapMs.min / 1000}–${BUSY_TEMPO.moveGapMs.max / 1000} s; ${appeared} items appeared in the ${Math.round(minutes * 60)} s window ` +
        `(after ${warmupMs / 1000} s warm-up; sends counted ${GRACE_MS / 1000} s past it); fake Bot API with Telegram's limits; ` +
        `load average ${load0.toFixed(1)} → ${load1.toFixed(1)} on ${availableParallelism()} cores (shared machine); run ${Math.round((Date.now() - started) / 1000)} s`,
      figures,
    };
  } finally {
    clearTimeout(hardStop);
    process.off('exit', killChildren);
    sends.bot.stop();
    sends.poller.stop();
    await stopChild(poller.process, 'SIGTERM');
    await stopChild(bot.process, 'SIGTERM');
    await bot.telegram.close();
    await poller.telegram.close();
    await sandbox.close();
    reportBotLog(data.dir);
    await data.remove();
  }
}

function pid(side: Side): number {
  return side.process?.pid ?? -1;
}

// ---- onboarding through the bot's commands ----------------------------------------------------

async function onboard(telegram: FakeTelegram, keys: SandboxKey[], services: Service[]): Promise<{ ok: number; failures: string[] }> {
  const failures: string[] = [];
  const say = async (user: FakeUser, text: string, expect: RegExp): Promise<string | undefined> => {
    const after = Math.max(0, ...telegram.messages(user.id).map((m) => m.message_id));
    telegram.sendText(user, text);
    try {
      const reply = await telegram.waitForMessage((m) => m.chat_id === user.id && m.message_id > after && expect.test(m.text), 60_000);
      return reply.text;
    } catch {
      return undefined;
    }
  };
  const results = await Promise.all(
    keys.map(async (key, i): Promise<boolean> => {
      await sleep(i * 150);
      const user: FakeUser = { id: FIRST_CHAT + i, first_name: `Bench ${i + 1}`, language_code: 'en' };
      if ((await say(user, '/start', /\/connect/)) === undefined) return fail(`user ${i + 1}: no answer to /start`);
      const connected = await say(user, `/connect ${key.accessKey} ${key.secret}`, /./);
      if (connected === undefined || !/connected/.test(connected)) return fail(`user ${i + 1}: /connect answered “${(connected ?? 'nothing').slice(0, 80)}”`);
      for (const s of services) {
        if ((await say(user, `/filter ${s} min_profit=0`, /saved/i)) === undefined) return fail(`user ${i + 1}: /filter ${s} not saved`);
      }
      return true;
    }),
  );
  function fail(why: string): false {
    failures.push(why);
    return false;
  }
  return { ok: results.filter(Boolean).length, failures };
}

// ---- arithmetic -------------------------------------------------------------------------------

/** Uses of `kind` in the window per (key, host) that had any. */
function diff(after: Record<string, number>, before: Record<string, number>, keys: SandboxKey[], services: Service[], kind: 'items' | 'token'): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) {
    for (const s of services) {
      const name = `${k.accessKey}|${basePathOf(s)}|${kind}`;
      const n = (after[name] ?? 0) - (before[name] ?? 0);
      if (n > 0) out.set(name, n);
    }
  }
  return out;
}

const max = (values: readonly number[]) => (values.length > 0 ? Math.max(...values) : Number.NaN);

function ratio(bot: number, poller: number): string {
  if (!Number.isFinite(bot) || !Number.isFinite(poller)) return '–';
  if (poller === 0) return bot === 0 ? '=' : '∞';
  return `× ${(bot / poller).toFixed(2)}`;
}

function methods(flood: FloodStats | undefined): string {
  const entries = Object.entries(flood?.tooManyByMethod ?? {});
  return entries.length > 0 ? ` (${entries.map(([m, n]) => `${m} ${n}`).join(', ')})` : '';
}

function earlyMethods(flood: FloodStats | undefined): string {
  if (!flood || flood.early === 0) return '';
  const by = new Map<string, number>();
  for (const e of flood.earlyLog) by.set(e.method, (by.get(e.method) ?? 0) + 1);
  return ` (${[...by].map(([m, n]) => `${m} ${n}`).join(', ')})`;
}

// ---- the side-by-side table -------------------------------------------------------------------

const SIDE = /^(.*) \[(bot|poller|bot\/poller)\]$/;

/** The results as one table: a row per figure, for each scenario the bot, the poller and their ratio. */
export function sideBySide(results: readonly BenchResult[]): string {
  const metrics: string[] = [];
  const cells = new Map<string, string>();
  results.forEach((r, i) => {
    for (const f of r.figures) {
      const m = SIDE.exec(f.metric);
      if (!m) continue;
      const metric = m[1] as string;
      if (!metrics.includes(metric)) metrics.push(metric);
      cells.set(`${i}|${metric}|${m[2] as string}`, f.value);
    }
  });
  const header = ['Figure', ...results.flatMap((r) => [`${r.bench.slice(BUSY_PREFIX.length)}: the bot`, 'the poller', 'bot/poller'])];
  const rows = metrics.map((metric) => [metric, ...results.flatMap((_, i) => ['bot', 'poller', 'bot/poller'].map((s) => cells.get(`${i}|${metric}|${s}`) ?? ''))]);
  return markdownTable(header, rows);
}

if (isEntryPoint(import.meta.url)) {
  const one = process.env.BENCH_BUSY_SCENARIO?.trim();
  if (one) {
    const result = await runBusyWorld(scenarioSchema.parse(one));
    printResults([result]);
    await handOver([result]);
  } else {
    const names = z.array(scenarioSchema).min(1).parse(
      (process.env.BENCH_BUSY_SCENARIOS?.trim() || Object.keys(SCENARIOS).join(',')).split(',').map((s) => s.trim()),
    );
    const results: BenchResult[] = [];
    // Each scenario in a fresh process: one run's heap, sockets and limit windows stay out of the next.
    for (const name of names) results.push(...(await runBenchProcess(import.meta.url, { BENCH_BUSY_SCENARIO: name })));
    console.log(`\n# Busy world, side by side\n\n${results.map((r) => `- **${r.bench}**: ${r.setup}`).join('\n')}\n`);
    console.log(sideBySide(results));
    await handOver(results);
  }
}
