/**
 * The real pieces wired as the bot wires them, on a ManualClock: the sandbox, the service client,
 * the store in a temp dir, the outbox on grammY's Api against the fake Bot API, the notifier and
 * the scheduler. For the integration suites.
 */
import { join } from 'node:path';
import { Api } from 'grammy';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import type { Notifier } from '../../src/scheduler/port.js';
import { createScheduler, type Scheduler, type SchedulerTuning } from '../../src/scheduler/scheduler.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import type { Store } from '../../src/store/port.js';
import { plainVault, seededRandom, tempStore } from './harness.js';

export interface StackOptions {
  sandbox?: Omit<SandboxOptions, 'clock'>;
  limits?: { tokensPerHour?: number; itemsPerMinute?: number; scope?: 'key' | 'address'; tokenScope?: 'key' | 'address' };
  pollSeconds?: number;
  /** Use this notifier instead of the real one (and no outbox or fake Telegram). */
  notifier?: (clock: ManualClock) => Notifier;
  tuning?: Partial<SchedulerTuning>;
  /** The store's write debounce (real ms); default 50. */
  storeDebounceMs?: number;
  /** The scheduler's ownership predicate (a cluster's worker: the users whose bucket it holds). */
  owns?: (userId: number) => boolean;
}

export interface Stack {
  clock: ManualClock;
  sandbox: Sandbox;
  store: Store;
  dataDir: string;
  client: ServiceClientWithLimits;
  telegram: FakeTelegram | undefined;
  outbox: Outbox | undefined;
  notifier: Notifier;
  scheduler: Scheduler;
  /** A new notifier and scheduler on the same store, client and outbox: what a restart builds. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const clock = new ManualClock();
  const sandbox = await startSandbox({ ...opts.sandbox, clock });
  const { store, dataDir, cleanup } = await tempStore(clock, opts.storeDebounceMs);
  const config = {
    ...sandbox.urls,
    BB_PATH_FORM: 'A' as const,
    BB_ACCOUNT_PREFIX: 'bb-',
    BB_REQUEST_TIMEOUT_MS: 1_000,
    LIMIT_TOKENS_PER_HOUR: opts.limits?.tokensPerHour ?? 20,
    LIMIT_FILTERS_PER_HOUR: 20,
    LIMIT_ITEMS_PER_MINUTE: opts.limits?.itemsPerMinute ?? 30,
    LIMIT_DICTS_PER_DAY: 24,
    LIMIT_SCOPE: opts.limits?.scope ?? ('key' as const),
    LIMIT_SCOPE_TOKENS: opts.limits?.tokenScope ?? ('key' as const),
    DATA_DIR: dataDir,
    POLL_INTERVAL_SECONDS: opts.pollSeconds ?? 5,
  };
  // No retries inside the client: the scheduler's own backoff is what is under test, and a retry
  // sleeping on the ManualClock would hold a read across steps.
  const client = createServiceClient({ config, logger: silentLogger, clock, retries: 0 });
  await client.dictionaries('en');
  await client.dictionaries('ru');

  let telegram: FakeTelegram | undefined;
  let outbox: Outbox | undefined;
  let scheduler: Scheduler | undefined;
  const makeNotifier = (): Notifier => {
    if (opts.notifier) return opts.notifier(clock);
    return createNotifier({ store, client, outbox: outbox!, logger: silentLogger, clock });
  };
  if (!opts.notifier) {
    telegram = await startFakeTelegram({ clock });
    const api = new Api(telegram.token, { apiRoot: telegram.apiRoot });
    outbox = new Outbox({
      api,
      logger: silentLogger,
      clock,
      onBlocked: (chatId) => {
        const user = store.listUsers().find((u) => u.chatId === chatId);
        if (!user) return;
        store.updateUser(user.id, (u) => {
          u.blocked = true;
        });
        scheduler?.refreshUser(user.id);
      },
    });
    outbox.start();
  }
  const random = seededRandom(20260103);
  const make = (notifier: Notifier) =>
    createScheduler({
      random,
      config,
      logger: silentLogger,
      store,
      client,
      notifier,
      vault: plainVault,
      clock,
      ledgerFile: join(dataDir, 'token-ledger.json'),
      ...(opts.tuning ? { tuning: opts.tuning } : {}),
      ...(opts.owns ? { owns: opts.owns } : {}),
    });

  const stack: Stack = {
    clock,
    sandbox,
    store,
    dataDir,
    client,
    telegram,
    outbox,
    notifier: makeNotifier(),
    scheduler: undefined as unknown as Scheduler,
    async restart() {
      await stack.scheduler.stop();
      await stack.notifier.idle();
      stack.notifier = makeNotifier();
      stack.scheduler = scheduler = make(stack.notifier);
      stack.scheduler.start();
    },
    async close() {
      await stack.scheduler.stop();
      outbox?.stop();
      await client.close();
      await telegram?.close();
      await sandbox.close();
      await cleanup();
    },
  };
  stack.scheduler = scheduler = make(stack.notifier);
  return stack;
}

/** Advances the clock in steps; after each, waits for the reads started on the way (sends go on in the background). */
export async function runStack(stack: Stack, ms: number, stepMs = 1_000): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    await stack.clock.advance(Math.min(stepMs, ms - done));
    await stack.scheduler.whenIdle();
  }
}

const realDelay = (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms));

/** Lets the outbox deliver everything queued (its pacing follows the ManualClock), without polling further. */
export async function flushAlerts(stack: Stack, maxSeconds = 300): Promise<void> {
  for (let i = 0; i < maxSeconds; i++) {
    const idle = await Promise.race([stack.notifier.idle().then(() => true), realDelay(30)]);
    if (idle && (stack.outbox?.depth ?? 0) === 0) return;
    await stack.clock.advance(1_000);
    await stack.scheduler.whenIdle();
  }
  throw new Error('the outbox did not empty');
}
