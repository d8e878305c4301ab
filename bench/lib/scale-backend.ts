/**
 * The far side of the scale benchmark, in its own process: the sandbox Data Service and the fake
 * Bot API. Keeping them out of the bot's process means the CPU time and resident memory measured
 * there are the bot's alone (and the two share the machine's two cores as they would two hosts).
 * This module is the parent's handle and the message shapes; `scale-backend-child.ts` is the child.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { SandboxKey, SandboxUrls } from '../../src/sandbox/index.js';
import { siblingUrl } from './result.js';

/** The key pair of bench user `index` (1-based), the same in both processes. */
export function benchKey(index: number): SandboxKey {
  return { accessKey: `bench-key-${index}`, secret: `bench-secret-${index}-0123456789` };
}

const sandboxUrlsSchema = z.object({
  BB_AUTH_URL: z.string(),
  BB_DICTS_URL: z.string(),
  BB_ARBS_PREMATCH_URL: z.string(),
  BB_ARBS_LIVE_URL: z.string(),
  BB_MIDDLES_PREMATCH_URL: z.string(),
  BB_MIDDLES_LIVE_URL: z.string(),
  BB_VALUEBETS_PREMATCH_URL: z.string(),
  BB_VALUEBETS_LIVE_URL: z.string(),
}) satisfies z.ZodType<SandboxUrls>;

export const readyMessageSchema = z.object({
  type: z.literal('ready'),
  urls: sandboxUrlsSchema,
  telegram: z.object({ apiRoot: z.string(), token: z.string() }),
});

export const statsMessageSchema = z.object({
  type: z.literal('stats'),
  /** Requests the sandbox answered 429 because a limit was over. */
  breaches: z.number(),
  /** Answers by status code. */
  status: z.record(z.string(), z.number()),
  /** The backend process's own CPU time (user + system), µs since it started. */
  cpuUs: z.number(),
  /** sendMessage and editMessageText calls the fake Bot API accepted. */
  telegramSent: z.number(),
  telegramEdited: z.number(),
});

export const commandSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('stats') }), z.object({ type: z.literal('close') })]);

export type BackendReady = z.infer<typeof readyMessageSchema>;
export type BackendStats = z.infer<typeof statsMessageSchema>;
export type BackendCommand = z.infer<typeof commandSchema>;

/** What the child is told to build (passed in its environment). */
export interface BackendOptions {
  /** Key pairs `benchKey(1..keys)` the sandbox accepts. */
  keys: number;
  seed: number;
  world: { eventsPerService: number; itemsPerService: number; meanLifetimeMs: number; moveEveryMs: number };
}

export interface Backend {
  readonly urls: SandboxUrls;
  readonly telegram: { apiRoot: string; token: string };
  stats(): Promise<BackendStats>;
  /** Closes both servers and waits for the process to exit. */
  close(): Promise<void>;
}

/** Starts the backend process; resolves once both servers listen. */
export async function startBackend(opts: BackendOptions): Promise<Backend> {
  const child: ChildProcess = fork(fileURLToPath(siblingUrl('scale-backend-child', import.meta.url)), [], {
    env: { ...process.env, BENCH_BACKEND: JSON.stringify(opts) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waiting: ((stats: BackendStats) => void)[] = [];

  const ready = await new Promise<BackendReady>((resolve, reject) => {
    child.once('error', reject);
    void exited.then((code) => reject(new Error(`the backend process exited early (code ${String(code)})`)));
    child.on('message', (raw: unknown) => {
      const readyMsg = readyMessageSchema.safeParse(raw);
      if (readyMsg.success) return resolve(readyMsg.data);
      const stats = statsMessageSchema.safeParse(raw);
      if (stats.success) waiting.shift()?.(stats.data);
    });
  });

  const send = (command: BackendCommand) => child.send(command);
  return {
    urls: ready.urls,
    telegram: ready.telegram,
    stats: () =>
      new Promise<BackendStats>((resolve) => {
        waiting.push(resolve);
        send({ type: 'stats' });
      }),
    async close() {
      if (child.exitCode === null) send({ type: 'close' });
      const code = await exited;
      if (code !== 0) throw new Error(`the backend process exited with code ${String(code)}`);
    },
  };
}
