/**
 * Builds the whole bot from settings and starts it. Without REDIS_URL: the embedded bot, one
 * process with everything (store, vault, service client, scheduler, outbox, grammY, the optional
 * operator port) — `main.ts` and the playground both use it, so the playground runs exactly the
 * production code path. With REDIS_URL: the process's cluster role (ROLE=all|front|worker,
 * src/cluster/roles.ts) from the same pieces (src/roles/). A failure here throws;
 * `operator/startup-errors.ts` turns it into the line the operator reads.
 */
import { join } from 'node:path';
import type { UserFromGetMe } from 'grammy/types';
import { ConfigError, type Config } from './config.js';
import type { Logger } from './logger.js';
import { systemClock, type Clock } from './clock.js';
import { openStore } from './store/store.js';
import { createServiceClient } from './service/client.js';
import type { OutboxPort } from './outbox/port.js';
import { storeCheck } from './health/collect.js';
import { createBotMetrics } from './health/metrics.js';
import { assertDataDirWritable } from './operator/data-dir.js';
import { createFront } from './roles/front.js';
import { createPolling } from './roles/polling.js';
import { watchDictionaries } from './roles/dictionaries.js';
import { openOperatorPort } from './roles/operator-port.js';
import { builtMiniAppAssets, type AssetProvider } from './miniapp/asset-provider.js';
import { miniAppOf, mountMiniApp } from './miniapp/mount.js';
import { openCheckedVault } from './roles/open-vault.js';
import { appHandle, type App } from './roles/handle.js';
import { clusterParts, type ClusterParts } from './cluster/parts.js';
import { startClusterRole } from './cluster/roles.js';
import type { LeaseTimings } from './cluster/leases.js';

export type { App } from './roles/handle.js';

export interface AppOptions {
  /** BOT_TOKEN is needed unless this is a cluster worker (ROLE=worker), which never talks to Telegram. */
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Skips getMe at start (tests and the playground know the bot already). */
  botInfo?: UserFromGetMe;
  /** With REDIS_URL: the cluster's factories (default `clusterParts`; tests pass stand-ins). */
  cluster?: ClusterParts;
  /** With REDIS_URL, tests: shorter leases. */
  leaseTimings?: Partial<LeaseTimings>;
  /** With REDIS_URL, tests: added to Redis's clock in the fronts' shared state (questions and caps expire on it). */
  stateClockOffsetMs?: () => number;
  /** The Mini App's page (default: what `npm run build` wrote; the playground and tests build it in memory). */
  miniAppAssets?: AssetProvider;
}

export async function startApp(opts: AppOptions): Promise<App> {
  if (opts.config.REDIS_URL === undefined) return startEmbedded(opts);
  return startClusterRole({ ...opts, clock: opts.clock ?? systemClock, parts: opts.cluster ?? clusterParts });
}

/** One process, lowdb, no Redis: what `npm start` runs without REDIS_URL. */
async function startEmbedded({ config: settings, logger, clock = systemClock, botInfo, miniAppAssets }: AppOptions): Promise<App> {
  const token = settings.BOT_TOKEN;
  if (token === undefined) throw new ConfigError('BOT_TOKEN: expected the token from @BotFather (set it in .env or the environment)');
  const config = { ...settings, BOT_TOKEN: token };
  await assertDataDirWritable(config.DATA_DIR);
  const store = await openStore({ dataDir: config.DATA_DIR, logger, clock });
  if (store.loadReport.movedAside) {
    logger.warn({ file: store.loadReport.movedAside }, 'the database file was unreadable: moved aside, starting empty');
  }
  try {
    return await startOnStore({ config, logger, clock, ...(botInfo && { botInfo }), ...(miniAppAssets && { miniAppAssets }) }, store);
  } catch (err) {
    // A start that fails (Telegram refusing the token, a port taken) releases DATA_DIR/bot.lock,
    // so the next start is not refused over this one.
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** The embedded bot on its opened store; `startEmbedded` closes the store when this throws. */
async function startOnStore(
  { config, logger, clock, botInfo, miniAppAssets }: { config: Config & { BOT_TOKEN: string }; logger: Logger; clock: Clock; botInfo?: UserFromGetMe | undefined; miniAppAssets?: AssetProvider },
  store: Awaited<ReturnType<typeof openStore>>,
): Promise<App> {
  const vault = await openCheckedVault(config, store, logger);
  const client = createServiceClient({ config, logger, clock });
  const metrics = createBotMetrics();

  // The notifier is built before the front's outbox exists; it sends only once the scheduler runs.
  const outbox: OutboxPort = {
    send: (chatId, text, o) => front.outbox.send(chatId, text, o),
    edit: (chatId, messageId, text, o) => front.outbox.edit(chatId, messageId, text, o),
  };
  const { scheduler, notifier } = createPolling({
    config, logger, clock, store, vault, client, outbox, metrics: metrics.port,
    // Token requests of the last hour survive a restart, so a restart never overspends the hour.
    ledgerFile: join(config.DATA_DIR, 'token-ledger.json'),
  });
  const front = await createFront({
    config, logger, clock, store, vault, client, scheduler, metrics: metrics.port,
    ...(botInfo && { botInfo }),
    stats: () => {
      const s = scheduler.stats();
      return {
        users: store.listUsers().length,
        subscriptions: s.subscriptions,
        readsPerMinute: s.readsLastMinute,
        alertsPerMinute: notifier.stats().alertsLastMinute,
        errorsPerMinute: s.errorsLastMinute,
        outboxDepth: front.outbox.depth,
      };
    },
  });
  await front.start();
  scheduler.start();
  const dictionariesRetry = watchDictionaries(client, config.BB_DICTS_URL, logger);

  const receiver = front.running?.webhook?.receiver;
  metrics.attach({
    users: () => store.listUsers().length,
    scheduler,
    notifier,
    outbox: front.outbox,
    client,
    ...(receiver && { webhook: () => receiver.stats() }),
  });
  const health = await openOperatorPort({
    config,
    logger,
    metrics,
    ...(front.running && { running: front.running }),
    ...miniAppOf(mountMiniApp(front.runtime, front.botApi, miniAppAssets ?? builtMiniAppAssets())),
    checks: [
      front.check,
      storeCheck(store),
      { name: 'scheduler', check: () => clock.now() - scheduler.stats().lastTickAt < 30_000 },
    ],
  });

  return appHandle(store, health?.port, async (drainMs) => {
    clearInterval(dictionariesRetry);
    await scheduler.stop();
    await front.stop(drainMs);
    await store.close();
    await client.close();
    await health?.close();
  });
}
