/**
 * Long polling with @grammyjs/runner. Start-up sets the command menu in English and Russian; a
 * failing non-essential call there is logged, not fatal. getMe (bot.init) is essential.
 */
import { run } from '@grammyjs/runner';
import type { Bot } from 'grammy';
import type { Logger } from '../logger.js';
import { commandMenu } from './commands.js';
import type { BotContext } from './context.js';

export interface BotHandle {
  /** Stops polling and waits for updates in progress. */
  stop(): Promise<void>;
  isRunning(): boolean;
  /**
   * When polling was last known to work (ms since the epoch; 0 before the first poll): the last good
   * getUpdates answer, or the start of the poll in flight when the one before it went well.
   */
  lastPollAt(): number;
}

/** Long-poll timeout (seconds): one getUpdates call waits this long for updates. */
export const POLL_TIMEOUT_SECONDS = 25;

/**
 * Edits and channel posts are asked for only so that a `/connect <key> <secret>` line written
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

export async function runBot(bot: Bot<BotContext>, deps: { logger: Logger }): Promise<BotHandle> {
  const { logger } = deps;
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
  await nonEssential(logger, 'deleteWebhook', () => bot.api.deleteWebhook());
  await nonEssential(logger, 'setMyCommands en', () => bot.api.setMyCommands(commandMenu('en')));
  await nonEssential(logger, 'setMyCommands ru', () => bot.api.setMyCommands(commandMenu('ru'), { language_code: 'ru' }));

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
    lastPollAt: () => (inFlightSince > 0 && !lastFailed ? Math.max(lastOk, inFlightSince) : lastOk),
  };
}
