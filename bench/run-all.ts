/**
 * Runs every benchmark in sequence, each in a fresh process, and prints one markdown summary
 * ready to paste into docs/benchmarks.md.
 *
 *   npm run bench
 *   BENCH_SECONDS=30 npm run bench      # shorter scheduler runs
 *   BENCH_BUSY_SECONDS=120 BENCH_BUSY_SCENARIOS=live npm run bench   # a shorter busy world, one scenario
 *
 * The benchmarks' own settings (BENCH_*) pass through; see each file's header.
 */
import { availableParallelism, cpus, totalmem } from 'node:os';
import { BUSY_PREFIX, sideBySide } from './busy-world.js';
import { markdownTable } from './lib/stats.js';
import { runBenchProcess, siblingUrl, type BenchResult } from './lib/result.js';

/** In this order; the busy world and the scale benchmark start one process per scenario or size themselves. */
const BENCHES: URL[] = [
  siblingUrl('busy-world', import.meta.url),
  siblingUrl('alert-latency', import.meta.url),
  siblingUrl('flow-steps', import.meta.url),
  siblingUrl('scheduler-scale', import.meta.url),
  siblingUrl('bot-api-sends', import.meta.url),
  siblingUrl('outbox-throughput', import.meta.url),
  siblingUrl('shared-limits', import.meta.url),
  siblingUrl('leases', import.meta.url),
  siblingUrl('ledger', import.meta.url),
  siblingUrl('ledger-bound', import.meta.url),
  siblingUrl('store-prints', import.meta.url),
  siblingUrl('miniapp-page', import.meta.url),
  siblingUrl('miniapp-api', import.meta.url),
  // Last: 30 minutes of the cluster with workers killed and Redis restarted (BENCH_SOAK_MINUTES).
  siblingUrl('soak', import.meta.url),
];

const startedAt = Date.now();
const results: BenchResult[] = [];
const failed: string[] = [];
for (const script of BENCHES) {
  try {
    results.push(...(await runBenchProcess(script.href)));
  } catch (err) {
    // One broken benchmark must not hide the others' figures.
    failed.push(`${script.pathname.split('/').pop() ?? script.href}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// The busy world's figures come in pairs (the bot, the poller): they get a table of their own.
const busy = results.filter((r) => r.bench.startsWith(BUSY_PREFIX));
const rows: string[][] = [];
for (const r of results.filter((x) => !busy.includes(x))) {
  for (const f of r.figures) {
    rows.push([r.bench, f.metric, f.value, f.target ?? '', f.pass === undefined ? '' : f.pass ? 'PASS' : 'FAIL']);
  }
}

const machine = `${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${availableParallelism()} cores, ${Math.round(totalmem() / 1024 ** 3)} GB, Node ${process.version}`;
console.log('\n# Benchmark summary\n');
console.log(`Measured ${new Date(startedAt).toISOString().slice(0, 10)} on ${machine}; \`npm run bench\` (${Math.round((Date.now() - startedAt) / 1000)} s).\n`);
for (const r of results) console.log(`- **${r.bench}**: ${r.setup}`);
console.log('');
if (busy.length > 0) console.log(`${sideBySide(busy)}\n`);
console.log(markdownTable(['Benchmark', 'Figure', 'Value', 'Target', 'Result'], rows));
if (failed.length > 0) {
  console.error(`\n${failed.length} benchmark(s) did not finish:\n${failed.map((f) => `- ${f}`).join('\n')}`);
  process.exitCode = 1;
}
