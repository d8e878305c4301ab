/**
 * Builds the whole bot from settings and starts it: store, vault, service client, scheduler,
 * outbox, grammY (long polling or webhook) and the optional operator port. `main.ts` and the
 * playground both use it, so the playground runs exactly the production code path. A failure
 * here throws; `operator/startup-errors.ts` turns it into the line the operator reads.
 */
import { join } from 'node:path';
import { Api } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import { ConfigError, type Config } from './config.js';
import type { Logger } from './logger.js';
import { systemClock, type Clock } from './clock.js';
import type { Store } from './store/port.js';
import { openStore } from './store/store.js';
import { Vault } from './store/vault.js';
import { checkEncryptionKey } from './store/key-check.js';
import { createServiceClient } from './service/client.js';
import { createScheduler } from './scheduler/scheduler.js';
import { createNotifier } from './alerts/notifier.js';
import { Outbox } from './outbox/outbox.js';
import type { OutboxService } from './outbox/port.js';
import { chatGateTransformer } from './outbox/chat-gate.js';
import { DestinationWatch } from './outbox/destinations.js';
import { htmlByDefault } from './lib/parse-mode.js';
import { createBot } from './bot/bot.js';
import { userAllowed } from './bot/middleware/access.js';
import { runBot } from './bot/run.js';
import { startHealthServer, type HealthServer } from './health/server.js';
import { storeCheck } from './health/collect.js';
import { createBotMetrics } from './health/metrics.js';
import type { MetricsPort } from './health/observe.js';
import type { ServiceClient } from './service/client-types.js';
import { DICT_LANGS } from './service/dictionaries.js';
import { assertDataDirWritable } from './operator/data-dir.js';

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

/** After a failed dictionaries fetch at start, how often to try again until one works. */
const DICTIONARIES_RETRY_MS = 15 * 60_000;

export async function startApp({ config, logger, clock = systemClock, botInfo }: AppOptions): Promise<App> {
  if (config.REDIS_URL !== undefined) {
    // Until the cluster is wired, a set REDIS_URL must not be silently ignored.
    throw new ConfigError('REDIS_URL: expected empty for now: the cluster roles are not wired yet (run one process without REDIS_URL)');
  }
  await assertDataDirWritable(config.DATA_DIR);
  const store = await openStore({ dataDir: config.DATA_DIR, logger, clock });
  if (store.loadReport.movedAside) {
    logger.warn({ file: store.loadReport.movedAside }, 'the database file was unreadable: moved aside, starting empty');
  }
  let vault: Vault;
  try {
    vault = await Vault.open({ dataDir: config.DATA_DIR, envKey: config.ENCRYPTION_KEY, logger });
    // A wrong key refuses the start (one line, main prints it) instead of pausing every user later.
    await checkEncryptionKey({ dataDir: config.DATA_DIR, store, vault, logger });
  } catch (err) {
    await store.close();
    throw err;
  }
  const client = createServiceClient({ config, logger, clock });
  const metrics = createBotMetrics();

  // The outbox has its own Api instance: it paces and retries every send itself, so it must
  // not stack the bot's auto-retry on top.
  // A short call timeout keeps one hung call from holding a chat's queue (grammY's default is 500 s).
  const outboxApi = new Api(config.BOT_TOKEN, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: 30 });
  outboxApi.config.use(htmlByDefault());
  const outbox: OutboxService = new Outbox({
    api: outboxApi,
    logger,
    clock,
    metrics: metrics.port,
    // Called only once sends run, after `scheduler` and `destinations` below exist.
    onBlocked: (chatId) => {
      for (const user of store.listUsers()) {
        if (user.chatId !== chatId) continue;
        logger.info({ userId: user.id }, 'Telegram says the user blocked the bot: polling paused until they come back');
        store.updateUser(user.id, (u) => {
          u.blocked = true;
        });
        scheduler.refreshUser(user.id);
      }
      destinations.lost(chatId, 'removed');
    },
    onMigrated: (oldChatId, newChatId) => destinations.migrated(oldChatId, newChatId),
    onChatUnavailable: (chatId) => destinations.suspect(chatId),
  });
  const notifier = createNotifier({ store, client, outbox, logger, clock, metrics: metrics.port });
  const scheduler = createScheduler({
    config,
    logger,
    store,
    client: timedReads(client, metrics.port, clock),
    notifier,
    vault,
    clock,
    // Token requests of the last hour survive a restart, so a restart never overspends the hour.
    ledgerFile: join(config.DATA_DIR, 'token-ledger.json'),
    // ALLOWED_USER_IDS holds for polling too: someone taken off the list gets no more alerts.
    isAllowed: userAllowed(config),
  });

  // getMe without the bot's retries: a refused token or an unreachable Bot API ends the start at
  // once with a line that names the setting, instead of being retried in silence.
  const me = botInfo ?? (await outboxApi.getMe());
  // The bot's replies take their turns in the outbox's per-chat budget (the chat gate), so the
  // outbox runs before the first update is handled.
  const bot = createBot({ config, logger, store, vault, client, scheduler, clock, botInfo: me, chatGate: outbox, stats: () => collectStats() });

  // Alert destinations re-checked on a slow timer and after a refused send; their reads keep to
  // each chat's 429 pauses through the chat gate.
  const checkApi = new Api(config.BOT_TOKEN, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: 30 });
  checkApi.config.use(chatGateTransformer(outbox));
  const destinations = new DestinationWatch({
    api: checkApi,
    botId: () => bot.botInfo.id,
    store,
    scheduler,
    logger,
    clock,
    tell: (chatId, text) => void outbox.send(chatId, text, { kind: 'info' }),
  });

  const webhook =
    config.TELEGRAM_WEBHOOK_URL !== undefined && config.TELEGRAM_WEBHOOK_SECRET !== undefined
      ? { url: config.TELEGRAM_WEBHOOK_URL, secret: config.TELEGRAM_WEBHOOK_SECRET }
      : undefined;
  outbox.start();
  const running = await runBot(bot, { logger, ...(webhook && { webhook }) });
  scheduler.start();
  const dictionariesRetry = watchDictionaries(client, config.BB_DICTS_URL, logger);
  destinations.start();

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

  const receiver = running.webhook?.receiver;
  metrics.attach({
    users: () => store.listUsers().length,
    scheduler,
    notifier,
    outbox,
    client,
    ...(receiver && { webhook: () => receiver.stats() }),
  });
  let health: HealthServer | undefined;
  if (config.HTTP_PORT !== undefined) {
    health = await startHealthServer({
      port: config.HTTP_PORT,
      host: config.HTTP_HOST,
      checks: [
        { name: 'telegram', check: () => running.healthy() },
        storeCheck(store),
        { name: 'scheduler', check: () => clock.now() - scheduler.stats().lastTickAt < 30_000 },
      ],
      metrics,
      ...(running.webhook && {
        webhook: { path: running.webhook.path, handle: (req, res) => running.webhook?.receiver.handle(req, res) },
      }),
    });
    logger.info(
      { host: config.HTTP_HOST, port: health.port, ...(running.webhook && { webhookPath: running.webhook.path }) },
      running.webhook ? 'operator port open: /healthz, /metrics and the webhook' : 'operator port open: /healthz and /metrics',
    );
  }

  let stopping: Promise<void> | undefined;
  return {
    store,
    healthPort: health?.port,
    stop(drainMs = 10_000) {
      stopping ??= (async () => {
        clearInterval(dictionariesRetry);
        await scheduler.stop();
        await destinations.stop();
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

/** The scheduler's client, with each item read timed for the read-duration histogram. */
function timedReads(client: ServiceClient, metrics: MetricsPort, clock: Clock): ServiceClient {
  return {
    ...client,
    readItems: async (key, service, opts) => {
      const started = clock.now();
      try {
        return await client.readItems(key, service, opts);
      } finally {
        metrics.readDuration(clock.now() - started);
      }
    },
  };
}

/**
 * Fetches the dictionaries at start (the cache file spares the request after a restart). The
 * bot starts either way: without names, alerts show ids until a later try works, and one line
 * says so. Tries again every 15 minutes while a language has no copy.
 */
function watchDictionaries(client: ServiceClient, url: string, logger: Logger): NodeJS.Timeout {
  const missing = () => DICT_LANGS.filter((lang) => client.cachedDictionaries(lang) === undefined);
  const attempt = async (first: boolean) => {
    for (const lang of missing()) await client.dictionaries(lang).catch(() => undefined);
    const still = missing();
    if (still.length > 0 && first) {
      logger.warn(
        { languages: still },
        `BB_DICTS_URL: the dictionaries host ${url} could not be reached at start: started anyway (alerts show ids for names); trying again every 15 minutes`,
      );
    } else if (still.length === 0 && !first) {
      logger.info('dictionaries fetched after all');
    }
  };
  void attempt(true);
  const timer = setInterval(() => {
    if (missing().length > 0) void attempt(false);
  }, DICTIONARIES_RETRY_MS);
  timer.unref();
  return timer;
}
