/**
 * The front: everything that talks to Telegram. The outbox (the one sender of alerts and the
 * per-chat budget the bot's replies take turns in), grammY (long polling or the webhook), and the
 * watch over alert destinations. The embedded bot runs it beside the scheduler in one process; in a
 * cluster a front process runs it alone (ROLE=front) and workers' alerts reach its outbox through
 * the alert stream's consumer, which is closed before the outbox drains.
 *
 * The front asks the scheduler only through `SchedulerPort`: the real scheduler in the embedded
 * bot, the front's own port in a cluster (src/cluster/front-port.ts).
 */
import { Api } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/port.js';
import type { Vault } from '../store/vault.js';
import type { ServiceClient } from '../service/client-types.js';
import type { SchedulerPort } from '../scheduler/port.js';
import { Outbox } from '../outbox/outbox.js';
import type { OutboxOptions } from '../outbox/options.js';
import type { OutboxService } from '../outbox/port.js';
import { chatGateTransformer } from '../outbox/chat-gate.js';
import { DestinationWatch } from '../outbox/destinations.js';
import { latestReadCheck } from '../outbox/quiet-summary.js';
import { htmlByDefault } from '../lib/parse-mode.js';
import { createBot, runtimeOf } from '../bot/bot.js';
import { telegramFetch } from '../bot/telegram-fetch.js';
import type { BotRuntime } from '../bot/deps.js';
import type { BotStats, ChatTurns } from '../bot/deps.js';
import { runBot, type BotHandle } from '../bot/run.js';
import type { FirstSeen } from '../bot/webhook.js';
import { createSettleDigest } from '../bot/settle-digest.js';
import { createConversationStore } from '../bot/conversation-store.js';
import type { CapsPort } from '../bot/caps.js';
import type { ConversationStorage } from '../bot/conversation-store.js';
import type { PendingStore } from '../bot/pending.js';
import type { MetricsPort } from '../health/observe.js';
import type { HealthCheck } from '../health/server.js';

/**
 * The front's outbox settings beyond the defaults. More alerts than `digestThreshold` queued for
 * one chat fold into a digest (the outbox's default is 5). A service whose token comes back after
 * a window without one finds every item born meanwhile at its first read — about ten per chat in
 * the busy-world benchmark — and each is an opportunity the user should get as itself (a digest
 * line names no item and has no buttons); at one message a second they are all out in about 12 s.
 * A real flood (a new filter's first read of dozens) still folds, and so does any backlog one of
 * whose alerts has waited the outbox's 30 s.
 */
export const FRONT_OUTBOX_OPTIONS = { digestThreshold: 15 } as const satisfies Partial<OutboxOptions>;

export interface FrontDeps {
  config: Config & { BOT_TOKEN: string };
  logger: Logger;
  clock: Clock;
  store: Store;
  vault: Vault;
  client: ServiceClient;
  scheduler: SchedulerPort;
  metrics: MetricsPort;
  /** Skips getMe (tests and the playground know the bot already). */
  botInfo?: UserFromGetMe;
  stats: BotStats;
  /** Several fronts: whether this one sends the settle digests now (the sender lease's holder). */
  sendsDigests?: () => boolean;
  /**
   * The open questions, guided flows, caps and the webhook updates taken: the cluster's fronts
   * share them in Redis (src/cluster/front-state.ts); without them, this front keeps its own in memory.
   */
  state?: { pending: PendingStore; caps: CapsPort; conversations: ConversationStorage; turns: ChatTurns; firstSeen: FirstSeen };
}

export interface Front {
  readonly outbox: OutboxService;
  /** The Bot API client of the front's checks (destinations): not the outbox's, so a check never waits behind sends. */
  readonly api: Api;
  /** Starts sending, receiving updates and watching destinations. */
  start(): Promise<void>;
  /** What the bot's features act through (the Mini App's API uses the same). */
  readonly runtime: BotRuntime;
  /** The bot's own Bot API client, with its per-chat budget (the Mini App sends the CSV through it). */
  readonly botApi: Api;
  /** The bot's update intake, once started. */
  readonly running: BotHandle | undefined;
  /** `telegram`: updates reach the bot. */
  readonly check: HealthCheck;
  /**
   * Stops the intake, then closes `feeders` (other sources of outbox work, e.g. the alert stream's
   * consumer, which still needs the outbox to answer the jobs in hand), then drains the outbox and
   * stops it: the feeders' wait and the drain together within `drainMs` (main.ts gives the whole
   * stop 20 s before it exits with 1).
   */
  stop(drainMs: number, feeders?: readonly { close(withinMs?: number): Promise<void> }[]): Promise<void>;
}

export async function createFront(deps: FrontDeps): Promise<Front> {
  const { config, logger, clock, store, scheduler } = deps;
  // The outbox has its own Api instance: it paces and retries every send itself, so it must
  // not stack the bot's auto-retry on top.
  // A short call timeout keeps one hung call from holding a chat's queue (grammY's default is 500 s).
  // Through undici, as the bot's replies: every alert and edit is one of its calls (telegram-fetch.ts).
  const outboxApi = new Api(config.BOT_TOKEN, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: 30, fetch: telegramFetch() });
  outboxApi.config.use(htmlByDefault());
  const outbox: OutboxService = new Outbox({
    api: outboxApi,
    logger,
    clock,
    metrics: deps.metrics,
    // Called only once sends run, after `destinations` below exists.
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
    heldAlive: latestReadCheck(scheduler),
    onMigrated: (oldChatId, newChatId) => destinations.migrated(oldChatId, newChatId),
    onChatUnavailable: (chatId) => destinations.suspect(chatId),
    ...FRONT_OUTBOX_OPTIONS,
  });

  // getMe without the bot's retries: a refused token or an unreachable Bot API ends the start at
  // once with a line that names the setting, instead of being retried in silence.
  const me = deps.botInfo ?? (await outboxApi.getMe());
  // The bot's replies take their turns in the outbox's per-chat budget (the chat gate), so the
  // outbox runs before the first update is handled.
  // Flows nobody finishes are dropped on a timer, not kept until the same chat writes again.
  const conversationStore = deps.state?.conversations ?? createConversationStore({ clock, logger });
  const bot = createBot({
    config, logger, store, vault: deps.vault, client: deps.client, scheduler, clock, botInfo: me, chatGate: outbox, stats: deps.stats, conversationStore,
    ...(deps.state && { pending: deps.state.pending, caps: deps.state.caps, chatTurns: deps.state.turns }),
  });

  // Alert destinations re-checked on a slow timer and after a refused send; their reads keep to
  // each chat's 429 pauses through the chat gate.
  const checkApi = new Api(config.BOT_TOKEN, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: 30, fetch: telegramFetch() });
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
      ? { url: config.TELEGRAM_WEBHOOK_URL, secret: config.TELEGRAM_WEBHOOK_SECRET, ...(deps.state && { firstSeen: deps.state.firstSeen }) }
      : undefined;
  let running: BotHandle | undefined;
  const digest = createSettleDigest({
    store, clock, logger, hours: config.SETTLE_DIGEST_HOURS, send: (chatId, text) => void outbox.send(chatId, text, { kind: 'info' }),
    ...(deps.sendsDigests && { active: deps.sendsDigests }),
  });

  return {
    outbox,
    api: checkApi,
    runtime: runtimeOf(bot),
    botApi: bot.api,
    get running() {
      return running;
    },
    check: { name: 'telegram', check: () => running?.healthy() ?? false },
    async start() {
      outbox.start();
      running = await runBot(bot, { logger, ...(webhook && { webhook }) });
      destinations.start();
      digest.start();
      conversationStore.start();
    },
    async stop(drainMs, feeders = []) {
      digest.stop();
      conversationStore.stop();
      await destinations.stop();
      await running?.stop();
      // One budget for the whole stop: the feeders' wait for their alerts in hand, then the drain.
      const until = Date.now() + drainMs;
      for (const feeder of feeders) await feeder.close(Math.max(0, until - Date.now()));
      const left = await outbox.drain(Math.max(0, until - Date.now()));
      if (left > 0) logger.warn({ left }, 'outbox not empty at shutdown: these sends are lost');
      outbox.stop();
    },
  };
}
