/**
 * The floor under the bot's CPU per read: the same reads with nothing of the bot around them. One
 * undici Agent (`dispatch` with a bare handler, as the bot's http.ts), a token per key and
 * service asked once, then the keys' polls of their services in turn on the bot's 20 ms grid at
 * a given rate, each answer decoded and passed to `JSON.parse` and nothing else. The scale
 * benchmark runs it in its own process on the same sandbox, keys and filters, at the rate the
 * bot kept, right after the bot's window: the difference is what the bot adds per read.
 *
 * Settings as JSON in the file BENCH_BARE_FILE names (see `bareReadsSchema`); reports one result (bench/lib/result.ts).
 */
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import { z } from 'zod';
import { SERVICES } from '../src/service/services.js';
import { isEntryPoint, report, type BenchResult } from './lib/result.js';
import { sleep } from './lib/setup.js';

export const bareReadsSchema = z.object({
  /** Each poll as the bot makes it (its endpoints from src/service/paths.ts) and the key's secret for its token. */
  polls: z
    .array(
      z.object({
        secret: z.string().min(1),
        service: z.enum(SERVICES),
        tokenUrl: z.string().url(),
        method: z.enum(['GET', 'POST', 'PUT']),
        url: z.string().url(),
      }),
    )
    .min(1),
  readsPerSecond: z.number().positive(),
  seconds: z.number().int().positive(),
  warmupSeconds: z.number().int().nonnegative(),
});
export type BareReadsOptions = z.infer<typeof bareReadsSchema>;

const tokenSchema = z.object({ access_token: z.string() });
const TICK_MS = 20;

/** One exchange, the body gathered as it comes and given back as text (null on a failure). */
function exchange(agent: Agent, url: URL, method: 'GET' | 'POST' | 'PUT', headers: Record<string, string>, body: string | null): Promise<{ status: number; text: string } | null> {
  return new Promise((resolve) => {
    let status = 0;
    const chunks: Buffer[] = [];
    const handler: Dispatcher.DispatchHandler = {
      // undici tells the new handler interface from the old one by this method.
      onRequestStart: () => undefined,
      onResponseStart: (_ctl, code) => (status = code),
      onResponseData: (_ctl, chunk) => void chunks.push(chunk),
      onResponseEnd: () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }),
      onResponseError: () => resolve(null),
    };
    agent.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method, headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 }, handler);
  });
}

export async function runBareReads(opts: BareReadsOptions): Promise<BenchResult> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  const polls: { url: URL; method: 'GET' | 'POST' | 'PUT'; headers: Record<string, string>; body: string | null }[] = [];
  let tokenFailures = 0;
  for (const poll of opts.polls) {
    const auth = new URL(poll.tokenUrl);
    const answer = await exchange(agent, auth, 'POST', { authorization: `ApiKey ${poll.secret}`, 'content-type': 'application/json' }, JSON.stringify({ service: poll.service }));
    const token = answer?.status === 200 ? tokenSchema.safeParse(JSON.parse(answer.text)) : undefined;
    if (!token?.success) {
      tokenFailures += 1;
      continue;
    }
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token.data.access_token}` };
    if (poll.method !== 'GET') headers['content-type'] = 'application/json';
    polls.push({ url: new URL(poll.url), method: poll.method, headers, body: poll.method !== 'GET' ? '{}' : null });
  }
  if (polls.length === 0) throw new Error('bare reads: no token was given');

  let reads = 0;
  let failures = 0;
  let next = 0;
  let owed = 0;
  const perTick = (opts.readsPerSecond * TICK_MS) / 1000;
  const timer = setInterval(() => {
    owed += perTick;
    for (; owed >= 1; owed -= 1) {
      const poll = polls[next]!;
      next = (next + 1) % polls.length;
      void exchange(agent, poll.url, poll.method, poll.headers, poll.body).then((answer) => {
        if (answer?.status !== 200) return void (failures += 1);
        JSON.parse(answer.text);
        reads += 1;
      });
    }
  }, TICK_MS);

  await sleep(opts.warmupSeconds * 1000);
  const cpuBefore = process.cpuUsage();
  const readsBefore = reads;
  const startedAt = Date.now();
  await sleep(opts.seconds * 1000);
  const cpu = process.cpuUsage(cpuBefore);
  const elapsedMs = Date.now() - startedAt;
  const done = reads - readsBefore;
  clearInterval(timer);
  await sleep(500);
  await agent.close();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    bench: 'Bare reads (the floor)',
    setup: `${polls.length} polls, undici dispatch + JSON.parse only, ${opts.readsPerSecond.toFixed(0)} reads/s on a ${TICK_MS} ms grid, ${opts.seconds} s after ${opts.warmupSeconds} s`,
    figures: [
      { metric: 'reads done (per second)', value: `${done} (${(done / (elapsedMs / 1000)).toFixed(0)}/s)` },
      { metric: 'failed reads / tokens refused', value: `${failures} / ${tokenFailures}` },
      { metric: 'CPU (share of one core; per read)', value: `${((cpuMs / elapsedMs) * 100).toFixed(0)} % (${(cpuMs / Math.max(1, done)).toFixed(3)} ms)` },
    ],
    values: { cpuMsPerRead: cpuMs / Math.max(1, done), reads: done },
  };
}

if (isEntryPoint(import.meta.url)) {
  await report([await runBareReads(bareReadsSchema.parse(JSON.parse(readFileSync(z.string().min(1).parse(process.env.BENCH_BARE_FILE), 'utf8'))))]);
}
