/**
 * What a benchmark reports, how it is handed from a benchmark process to `run-all.ts`, and the
 * few process helpers every benchmark shares (settings from the environment, "am I the entry
 * point", running another benchmark in a fresh process).
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

const figureSchema = z.object({
  metric: z.string(),
  value: z.string(),
  target: z.string().optional(),
  pass: z.boolean().optional(),
});

const resultSchema = z.object({
  bench: z.string(),
  /** One line saying what ran (sizes, durations, which notifier). */
  setup: z.string(),
  figures: z.array(figureSchema),
  /** Raw numbers a parent benchmark computes with (ratios against a baseline). */
  values: z.record(z.string(), z.number()).optional(),
});

/** One measured figure, with its target and verdict when it has one. */
export type Figure = z.infer<typeof figureSchema>;
/** The figures of one benchmark run. */
export type BenchResult = z.infer<typeof resultSchema>;

/** The environment variable through which a parent asks a benchmark process for its results as JSON. */
const RESULT_FILE_ENV = 'BENCH_RESULT_FILE';

/** Whether the module at `moduleUrl` is the script node was started with (not imported). */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

/** A module next to `base`, with its extension: `.ts` when run through tsx, `.js` once compiled. */
export function siblingUrl(name: string, base: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(base))}`, base);
}

/**
 * The Node flags the bot runs with, read from `npm start` (the Docker image sets the same through
 * NODE_OPTIONS; a test keeps the two equal): the benchmarks measure the process as it is shipped.
 */
export function botNodeFlags(): string[] {
  const manifest = z.object({ scripts: z.object({ start: z.string() }) }).parse(JSON.parse(readFileSync(projectFile('package.json'), 'utf8')));
  return manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * The arguments that start the bot as shipped: `npm start`'s Node flags and the compiled main module
 * (`.bench-build/src/main.js` beside the compiled bench, as the image runs `dist/main.js`). A bench
 * run from its sources (tsx) starts `src/main.ts` through tsx. Under tsx every process also holds the
 * loader and the sources' maps, a fixed cost that a cluster pays once a process.
 */
export function botMainArgs(extraNodeFlags: readonly string[] = []): string[] {
  const compiled = extname(fileURLToPath(import.meta.url)) === '.js';
  const main = fileURLToPath(new URL(`../../src/main${compiled ? '.js' : '.ts'}`, import.meta.url));
  // The extra flags after the shipped ones: a flag given twice takes its last value.
  return [...botNodeFlags(), ...extraNodeFlags, ...(compiled ? [] : ['--import', 'tsx']), main];
}

/** BENCH_BOT_NODE_FLAGS: Node flags tried beside the shipped ones (--trace-gc, a GC setting), never in a figure. */
export function experimentFlags(): string[] {
  return (process.env.BENCH_BOT_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.startsWith('--'));
}

/**
 * The environment the image gives the bot beyond its Node flags: the malloc arena cap read from the
 * Dockerfile (glibc reads it before Node starts, so it cannot live in `npm start`'s flags).
 */
export function botEnv(): Record<string, string> {
  const arenas = /\bMALLOC_ARENA_MAX=(\d+)\b/.exec(readFileSync(projectFile('Dockerfile'), 'utf8'))?.[1];
  return arenas === undefined ? {} : { MALLOC_ARENA_MAX: arenas };
}

/** A file of the project root, found from here whether this runs from `bench/` or compiled from `.bench-build/bench/`. */
function projectFile(name: string): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} not found above ${fileURLToPath(import.meta.url)}`);
  }
}

/** A whole-number setting from the environment, checked at the edge; `fallback` when unset. */
export function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parsed = z.coerce.number().int().min(min).max(max).safeParse(raw.trim());
  if (!parsed.success) throw new Error(`${name}: expected a whole number from ${min} to ${max}`);
  return parsed.data;
}

/** A list of whole numbers ("1000,5000") from the environment; `fallback` when unset. */
export function envIntList(name: string, fallback: number[], min: number, max: number): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parsed = z
    .array(z.coerce.number().int().min(min).max(max))
    .min(1)
    .safeParse(raw.split(',').map((s) => s.trim()));
  if (!parsed.success) throw new Error(`${name}: expected a comma-separated list of whole numbers from ${min} to ${max}`);
  return parsed.data;
}

/** Prints results for people. */
export function printResults(results: readonly BenchResult[]): void {
  for (const result of results) {
    console.log(`\n## ${result.bench}\n${result.setup}\n`);
    const width = Math.max(...result.figures.map((f) => f.metric.length));
    for (const f of result.figures) {
      const verdict = f.pass === undefined ? '' : f.pass ? '  PASS' : '  FAIL';
      const target = f.target === undefined ? '' : `  (target ${f.target})`;
      console.log(`  ${f.metric.padEnd(width)}  ${f.value}${target}${verdict}`);
    }
  }
}

/** When a parent process asked for them, hands the results over as JSON. */
export async function handOver(results: readonly BenchResult[]): Promise<void> {
  const file = process.env[RESULT_FILE_ENV];
  if (file) await writeFile(file, JSON.stringify(results), 'utf8');
}

/** Prints the results and hands them over. */
export async function report(results: readonly BenchResult[]): Promise<void> {
  printResults(results);
  await handOver(results);
}

/**
 * Runs a benchmark script in a fresh Node process (same loader, so `.ts` runs as under tsx), its
 * output shown as it goes, and returns the results it reported. A fresh process per run keeps
 * one benchmark's heap, CPU time and sockets out of another's figures.
 */
export async function runBenchProcess(
  scriptUrl: string,
  env: Record<string, string> = {},
  extraNodeFlags: string[] = [],
): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bb-bench-'));
  const file = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = fork(fileURLToPath(scriptUrl), [], {
        env: { ...process.env, ...env, [RESULT_FILE_ENV]: file },
        execArgv: [...process.execArgv, ...extraNodeFlags],
        stdio: 'inherit',
      });
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw new Error(`${fileURLToPath(scriptUrl)} exited with code ${String(code)}`);
    return z.array(resultSchema).parse(JSON.parse(await readFile(file, 'utf8')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
