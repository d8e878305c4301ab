/**
 * Receiving updates: long polling with @grammyjs/runner, or a webhook (TELEGRAM_WEBHOOK_URL) that
 * the operator port serves. Start-up sets the command menu in English and Russian; a failing
 * non-essential call there is logged, not fatal. getMe (bot.init) is essential, and so is
 * setWebhook in webhook mode. Long polling deletes a webhook left from an earlier webhook run,
 * since Telegram refuses getUpdates while one is set.
 */
import { run } from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Logger } from '../logger.js';
import { commandMenu } from './commands.js';
import type { BotContext } from './context.js';
import { createWebhookReceiver, type FirstSeen, type WebhookReceiver } from './webhook.js';

export interface BotHandle {
  /** Stops polling and waits for updates in progress. */
  stop(): Promise<void>;
  isRunning(): boolean;
  /**
   * When polling was last known to work (ms since the epoch; 0 before the first poll): the last good
   * getUpdates answer, or the start of the poll in flight when the one before it went well.
   */
  lastPollAt(): number;
  /** True while updates can reach the bot: polling recently worked, or the webhook is set. */
  healthy(): boolean;
  /** In webhook mode: the handler the operator port routes the webhook's POSTs to. */
  readonly webhook?: { readonly path: string; readonly receiver: WebhookReceiver };
}

/** Webhook mode's settings (TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET). */
export interface WebhookSettings {
  url: string;
  secret: string;
  /** Several fronts: whether this one is the first to take an update (src/cluster/seen-updates.ts). */
  firstSeen?: FirstSeen;
}

/** Long-poll timeout (seconds): one getUpdates call waits this long for updates. */
export const POLL_TIMEOUT_SECONDS = 25;

/**
 * The update kinds the bot handles, for polling and the webhook alike. Edits and channel posts are asked for only so that a `/connect <key> <secret>` line written
 * there is deleted (see middleware/secret-shield.ts); nothing else acts on them.
 */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'callback_query', 'inline_query', 'my_chat_member'] as const;

async function nonEssential(logger: Logger, what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    logger.warn({ err, what }, 'start-up call failed; going on without it');
  }
}

export async function runBot(bot: Bot<BotContext>, deps: { logger: Logger; webhook?: WebhookSettings }): Promise<BotHandle> {
  const { logger } = deps;
  if (deps.webhook) return runWebhook(bot, logger, deps.webhook);
  // A long poll answers only when updates come or after POLL_TIMEOUT_SECONDS, so a poll in flight
  // after a good one also counts as alive; a failing one does not.
  let lastOk = 0;
  let inFlightSince = 0;
  let lastFailed = false;
  bot.api.config.use(async (prev, method, payload, signal) => {
    if (method !== 'getUpdates') return prev(method, payload, signal);
    inFlightSince = Date.now();
    try {
      const result = await prev(method, payload, signal);
      lastFailed = !result.ok;
      if (result.ok) lastOk = Date.now();
      return result;
    } catch (err) {
      lastFailed = true;
      throw err;
    } finally {
      inFlightSince = 0;
    }
  });

  await bot.init();
  await nonEssential(logger, 'deleteWebhook', async () => {
    // Asked first only to say so in the log; the delete runs either way.
    const left = (
      await bot.api.getWebhookInfo().catch((err: unknown) => {
        logger.debug({ err }, 'could not ask whether a webhook was left; deleting it either way');
        return undefined;
      })
    )?.url;
    // Pending updates stay with Telegram and arrive through getUpdates.
    await bot.api.deleteWebhook();
    if (left) logger.info('a webhook was set from an earlier run: deleted it to poll (TELEGRAM_WEBHOOK_URL is not set)');
  });
  await setCommands(bot, logger);

  const handle = run(bot, {
    runner: {
      fetch: { timeout: POLL_TIMEOUT_SECONDS, allowed_updates: ALLOWED_UPDATES },
      silent: true,
      maxRetryTime: 24 * 3_600_000,
    },
  });
  logger.info({ username: bot.botInfo.username }, 'bot polling');

  return {
    stop: async () => {
      if (handle.isRunning()) await handle.stop();
    },
    isRunning: () => handle.isRunning(),
    lastPollAt,
    healthy: () => handle.isRunning() && Date.now() - lastPollAt() < (POLL_TIMEOUT_SECONDS + 60) * 1000,
  };

  function lastPollAt(): number {
    return inFlightSince > 0 && !lastFailed ? Math.max(lastOk, inFlightSince) : lastOk;
  }
}

async function setCommands(bot: Bot<BotContext>, logger: Logger): Promise<void> {
  await nonEssential(logger, 'setMyCommands en', () => bot.api.setMyCommands(commandMenu('en')));
  await nonEssential(logger, 'setMyCommands ru', () => bot.api.setMyCommands(commandMenu('ru'), { language_code: 'ru' }));
}

async function runWebhook(bot: Bot<BotContext>, logger: Logger, settings: WebhookSettings): Promise<BotHandle> {
  await bot.init();
  const receiver = createWebhookReceiver({ secret: settings.secret, handleUpdate: (u) => bot.handleUpdate(u), logger, ...(settings.firstSeen && { firstSeen: settings.firstSeen }) });
  // Pending updates are kept: Telegram delivers them to the webhook once it is set.
  await bot.api.setWebhook(settings.url, { secret_token: settings.secret, allowed_updates: [...ALLOWED_UPDATES] });
  await setCommands(bot, logger);
  let running = true;
  logger.info({ url: settings.url, username: bot.botInfo.username }, 'bot receiving updates through the webhook');
  return {
    stop: async () => {
      if (!running) return;
      running = false;
      // The webhook stays set: Telegram holds new updates until the next start takes them.
      receiver.close();
      await receiver.drain(10_000);
    },
    isRunning: () => running,
    lastPollAt: () => 0,
    healthy: () => running,
    webhook: { path: new URL(settings.url).pathname, receiver },
  };
}
