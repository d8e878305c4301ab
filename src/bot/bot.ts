/**
 * `createBot(deps)`: the grammY bot with every feature, no side effects on import and none until
 * updates arrive. Long polling lives in `run.ts`.
 */
import { autoRetry } from '@grammyjs/auto-retry';
import { conversations, createConversation } from '@grammyjs/conversations';
import { sequentialize } from '@grammyjs/runner';
import { Bot, type BotError, type Context, type Middleware, type Transformer } from 'grammy';
import { chatGateTransformer } from '../outbox/chat-gate.js';
import { htmlByDefault } from '../lib/parse-mode.js';
import { systemClock } from '../clock.js';
import { UsageCaps } from './caps.js';
import type { BotContext, ConvContext } from './context.js';
import { contextMiddleware } from './context.js';
import { createFilterConversation, FILTER_CONVERSATION } from './conversations/filter.js';
import { callsOnce } from './conversations/calls-once.js';
import { FLOW_TIMEOUT_MS, type Convo } from './conversations/prompt.js';
import { createSettingsConversation, SETTINGS_CONVERSATION } from './conversations/settings.js';
import type { BotDeps, BotRuntime } from './deps.js';
import { adminFeature } from './features/admin.js';
import { alertActionsFeature } from './features/alert-actions.js';
import { legLimitedFeature } from './features/leg-limited.js';
import { cancelFeature } from './features/cancel.js';
import { connectFeature } from './features/connect.js';
import { fallbackFeature } from './features/fallback.js';
import { filterFeature } from './features/filter-command.js';
import { filtersFeature } from './features/filters-list.js';
import { forgetFeature } from './features/forget.js';
import { booksFeature } from './features/books.js';
import { miniAppFeature } from './features/mini-app.js';
import { glossaryFeature } from './features/glossary.js';
import { ledgerFeature } from './features/ledger.js';
import { ledgerAddFeature } from './features/ledger-add.js';
import { ledgerEditFeature } from './features/ledger-edit.js';
import { lookupFeature } from './features/lookup.js';
import { listsFeature } from './features/lists.js';
import { mutedFeature } from './features/muted.js';
import { membershipFeature, returningUserFeature } from './features/membership.js';
import { pauseFeature } from './features/pause.js';
import { pendingInputFeature } from './features/pending-input.js';
import { settingsFeature } from './features/settings.js';
import { startFeature } from './features/start.js';
import { statusFeature } from './features/status.js';
import { rankFeature } from './features/rank.js';
import { inlineFeature } from './inline/inline-query.js';
import { accessGuard } from './middleware/access.js';
import { flowButtonsGuard } from './middleware/flow-buttons.js';
import { privateOnly } from './middleware/private-only.js';
import { secretShield } from './middleware/secret-shield.js';
import { PendingInputs } from './pending.js';
import { createConversationStore } from './conversation-store.js';
import { RenderedMessages } from './ui/rendered.js';
import { isStateUnavailable } from './state-unavailable.js';
import { answerStateUnavailable } from './state-failsafe.js';
import { isLedgerFull, withBoundedLedger } from './ledger-bound.js';
import { answerLedgerFull, ledgerReportsFeature } from './features/ledger-reports.js';
import { telegramFetch } from './telegram-fetch.js';

export type { BotDeps, BotStats } from './deps.js';
export type { BotContext } from './context.js';

/** Retries on Telegram's 429 (retry_after) and 5xx, bounded, so a handler never hangs for long. */
function retryTransformer(maxDelaySeconds: number): Transformer {
  return autoRetry({ maxRetryAttempts: 3, maxDelaySeconds, rethrowHttpErrors: true });
}

/** A handler (a conversation's step too) may wait this long for Telegram's retry_after. */
const RETRY_MAX_DELAY_S = 30;

/** Updates of one chat run one after another (a user's messages, a conversation's steps). */
function sequenceKey(ctx: Context): string | undefined {
  return ctx.chat?.id.toString() ?? ctx.from?.id.toString();
}

async function onFeatureError(err: BotError<BotContext>): Promise<void> {
  const ctx = err.ctx;
  // The shared state out of reach (a cluster's Redis): fail safe and say so, not "went wrong".
  if (isStateUnavailable(err.error)) return answerStateUnavailable(ctx, err.error.message);
  // A full ledger is the user's limit, not a failure: say how to make room.
  if (isLedgerFull(err.error)) return answerLedgerFull(ctx, err.error.max);
  ctx.log.error({ err: err.error }, 'update failed');
  try {
    // A press already answered (the failure came after the toast) cannot be answered again.
    if (ctx.callbackQuery && !ctx.callbackAnswered) await ctx.answerCallbackQuery({ text: ctx.tp('error_generic') });
    else if (ctx.chat?.type === 'private') await ctx.reply(ctx.t('error_generic'));
  } catch (replyErr) {
    ctx.log.warn({ err: replyErr }, 'could not tell the user about the error');
  }
}

const runtimes = new WeakMap<Bot<BotContext>, BotRuntime>();
/** The runtime the bot's features use (the Mini App's API acts through the same store, caps and scheduler). */
export const runtimeOf = (bot: Bot<BotContext>): BotRuntime => runtimes.get(bot)!;

export function createBot(deps: BotDeps): Bot<BotContext> {
  const { config } = deps;
  if (!config.BOT_TOKEN) throw new Error('BOT_TOKEN is not set: get one from @BotFather');
  const clock = deps.clock ?? systemClock;
  const rt: BotRuntime = {
    ...deps, store: withBoundedLedger(deps.store, config.LEDGER_MAX_POSITIONS), clock, pending: deps.pending ?? new PendingInputs(clock), caps: deps.caps ?? new UsageCaps(clock), rendered: new RenderedMessages(),
  };

  const bot = new Bot<BotContext>(config.BOT_TOKEN, {
    ...(deps.botInfo ? { botInfo: deps.botInfo } : {}),
    client: { apiRoot: config.TELEGRAM_API_ROOT, fetch: telegramFetch(), ...deps.telegramClient },
  });
  runtimes.set(bot, rt);
  // Innermost (closest to Telegram): the chat gate, so each try of auto-retry waits for its slot.
  const gate = deps.chatGate ? [chatGateTransformer(deps.chatGate)] : [];
  bot.api.config.use(...gate, retryTransformer(RETRY_MAX_DELAY_S), ...(deps.apiTransformers ?? []), htmlByDefault());

  // Conversations build their own Api objects: their calls go once each through bot.api (calls-once.ts).
  const conversationPlugins = (conversation: Convo): Middleware<ConvContext>[] => [
    async (ctx, next) => {
      ctx.log = deps.logger.child({ update_id: ctx.update.update_id, user_id: ctx.from?.id, chat_id: ctx.chat?.id });
      ctx.api.config.use(callsOnce(conversation, bot.api));
      await next();
    },
  ];

  bot.use(sequentialize(sequenceKey));
  bot.use(contextMiddleware(rt));

  const features = bot.errorBoundary(onFeatureError);
  // Across the fronts of a cluster too; inside the boundary, so a Redis out of reach fails safe.
  const turns = deps.chatTurns;
  if (turns) {
    features.use(async (ctx, next) => {
      const key = sequenceKey(ctx);
      return key === undefined ? next() : turns(key, next);
    });
  }
  features.use(secretShield());
  // Before the allow-list: a group's admin who removes the bot or upgrades the group need not be on it.
  features.use(membershipFeature(rt));
  features.use(accessGuard(rt));
  features.use(returningUserFeature(rt));
  features.use(inlineFeature(rt));
  features.use(privateOnly());
  features.use(flowButtonsGuard());
  // Before the commands: the menu button is set on the user's first update, whichever it is.
  features.use(miniAppFeature(rt));
  const conversationStore = deps.conversationStore ?? createConversationStore({ clock });
  features.use(conversations<BotContext, ConvContext>({ plugins: conversationPlugins, storage: { type: 'key', adapter: conversationStore.adapter } }));
  // Before the conversations: /cancel must reach an open flow, and a secret must never enter one.
  features.use(cancelFeature(rt));
  features.use(pendingInputFeature(rt));
  features.use(connectFeature(rt));
  features.use(
    createConversation<BotContext, ConvContext>(createFilterConversation(rt), {
      id: FILTER_CONVERSATION,
      maxMillisecondsToWait: FLOW_TIMEOUT_MS,
    }),
  );
  features.use(
    createConversation<BotContext, ConvContext>(createSettingsConversation(rt), {
      id: SETTINGS_CONVERSATION,
      maxMillisecondsToWait: FLOW_TIMEOUT_MS,
    }),
  );
  features.use(
    startFeature(rt),
    filterFeature(rt),
    filtersFeature(rt),
    pauseFeature(rt),
    statusFeature(rt),
    rankFeature(rt),
    settingsFeature(rt),
    lookupFeature(rt),
    listsFeature(rt),
    glossaryFeature(),
    mutedFeature(rt),
    alertActionsFeature(rt),
    ledgerFeature(rt),
    ledgerEditFeature(rt),
    ledgerAddFeature(rt),
    ledgerReportsFeature(rt),
    legLimitedFeature(rt),
    forgetFeature(rt),
    booksFeature(rt),
    adminFeature(rt),
  );
  features.use(fallbackFeature());

  bot.catch((err) => {
    deps.logger.error({ err: err.error, update_id: err.ctx.update.update_id }, 'unhandled bot error');
  });
  return bot;
}
