/**
 * Builds the whole bot from settings and starts it: store, vault, service client, scheduler,
 * outbox, grammY and the optional operator port. `main.ts` and the playground both use it, so
 * the playground runs exactly the production code path.
 */
import { join } from 'node:path';
import { Api } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { systemClock, type Clock } from './clock.js';
import { openStore, type Store } from './store/store.js';
import { Vault } from './store/vault.js';
import { createServiceClient } from './service/client.js';
import { createScheduler } from './scheduler/scheduler.js';
import { createNotifier } from './scheduler/notifier.js';
import { Outbox } from './alerts/outbox.js';
import { createBot } from './bot/bot.js';
import { userAllowed } from './bot/middleware/access.js';
import { POLL_TIMEOUT_SECONDS, runBot } from './bot/run.js';
import { startHealthServer, type HealthServer } from './health/server.js';
import { collectMetrics } from './health/collect.js';

export interface App {
  readonly store: Store;
  /** Stops polling, drains the outbox for up to `drainMs`, flushes the store. Safe to call twice. */
  stop(drainMs?: number): Promise<void>;
  readonly healthPort: number | undefined;
}

export interface AppOptions {
  config: Config & { BOT_TOKEN: string };
  logger: Logger;
  clock?: Clock;
  /** Skips getMe at start (tests and the playground know the bot already). */
  botInfo?: UserFromGetMe;
}

export async function startApp({ config, logger, clock = systemClock, botInfo }: AppOptions): Promise<App> {
  const store = await openStore({ dataDir: config.DATA_DIR, logger, clock });
  if (store.loadReport.movedAside) {
    logger.warn({ file: store.loadReport.movedAside }, 'the database file was unreadable: moved aside, starting empty');
  }
  const vault = await Vault.open({ dataDir: config.DATA_DIR, envKey: config.ENCRYPTION_KEY, logger });
  const client = createServiceClient({ config, logger, clock });

  // The outbox has its own Api instance: it paces and retries every send itself, so it must
  // not stack the bot's auto-retry on top.
  // A short call timeout keeps one hung call from holding a chat's queue (grammY's default is 500 s).
  const outboxApi = new Api(config.BOT_TOKEN, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: 30 });
  const outbox = new Outbox({
    api: outboxApi,
    logger,
    clock,
    // Called only once sends run, after `scheduler` below exists.
    onBlocked: (chatId) => {
      for (const user of store.listUsers()) {
        if (user.chatId === chatId) {
          logger.info({ userId: user.id }, 'Telegram says the user blocked the bot: polling paused until they come back');
          store.updateUser(user.id, (u) => {
            u.blocked = true;
          });
        } else if (user.alertChatId === chatId) {
          logger.info({ userId: user.id }, 'the alert chat refused the bot: alerts go to the private chat');
          store.updateUser(user.id, (u) => {
            u.alertChatId = null;
          });
        } else continue;
        scheduler.refreshUser(user.id);
      }
    },
  });
  const notifier = createNotifier({ store, client, outbox, logger, clock });
  const scheduler = createScheduler({
    config,
    logger,
    store,
    client,
    notifier,
    vault,
    clock,
    // Token requests of the last hour survive a restart, so a restart never overspends the hour.
    ledgerFile: join(config.DATA_DIR, 'token-ledger.json'),
    // ALLOWED_USER_IDS holds for polling too: someone taken off the list gets no more alerts.
    isAllowed: userAllowed(config),
  });

  const bot = createBot({ config, logger, store, vault, client, scheduler, clock, botInfo, stats: () => collectStats() });
  const running = await runBot(bot, { logger });
  outbox.start();
  scheduler.start();

  function collectStats(): Record<string, number> {
    const s = scheduler.stats();
    return {
      users: store.listUsers().length,
      subscriptions: s.subscriptions,
      readsPerMinute: s.readsLastMinute,
      alertsPerMinute: notifier.stats().alertsLastMinute,
      errorsPerMinute: s.errorsLastMinute,
      outboxDepth: outbox.depth,
    };
  }

  let health: HealthServer | undefined;
  if (config.HTTP_PORT !== undefined) {
    health = await startHealthServer({
      port: config.HTTP_PORT,
      checks: [
        {
          name: 'telegram',
          check: () => running.isRunning() && Date.now() - running.lastPollAt() < (POLL_TIMEOUT_SECONDS + 60) * 1000,
        },
        { name: 'store', check: () => store.writable() },
        { name: 'scheduler', check: () => clock.now() - scheduler.stats().lastTickAt < 30_000 },
      ],
      metrics: () => collectMetrics({ users: () => store.listUsers().length, scheduler: scheduler, notifier, outbox, client }),
    });
    logger.info({ port: health.port }, 'operator port open: /healthz and /metrics');
  }

  let stopping: Promise<void> | undefined;
  return {
    store,
    healthPort: health?.port,
    stop(drainMs = 10_000) {
      stopping ??= (async () => {
        await scheduler.stop();
        await running.stop();
        const left = await outbox.drain(drainMs);
        if (left > 0) logger.warn({ left }, 'outbox not empty at shutdown: these sends are lost');
        outbox.stop();
        await store.close();
        await client.close();
        await health?.close();
      })();
      return stopping;
    },
  };
}
