/**
 * The Mini App on the operator port, when MINI_APP_URL is set: the API acting through the bot's
 * own runtime (the same bounded ledger, caps, scheduler and filter save path as the chat) and the
 * page's files from `assets` (the build's provider; without one, a page that says the assets are
 * not built). Only a process that holds the bot mounts it (the single process, or a cluster's front).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { saveFilter } from '../bot/actions/save-filter.js';
import type { Api } from 'grammy';
import { sendDocument } from '../bot/actions/send-document.js';
import { CAP_RULES } from '../bot/caps.js';
import type { BotRuntime } from '../bot/deps.js';
import { translator } from '../locales/i18n.js';
import { createMiniAppApi } from './api.js';
import { createMiniAppRoutes, type AssetProvider } from './server.js';

const NOT_BUILT = Buffer.from('<!doctype html><meta charset="utf-8"><title>Mini App</title><p>The Mini App’s page is not built: run <code>npm run build</code> and restart the bot.</p>\n');
export const notBuiltAssets: AssetProvider = { get: (name) => (name === 'index.html' ? { body: NOT_BUILT, type: 'text/html; charset=utf-8' } : undefined) };

type Routes = (req: IncomingMessage, res: ServerResponse) => boolean;

/** `api`: the bot's own Bot API client (its calls to a chat keep the outbox's per-chat budget). */
export function mountMiniApp(rt: BotRuntime, api: Api, assets?: AssetProvider): Routes | undefined {
  const { config } = rt;
  if (config.MINI_APP_URL === undefined || config.BOT_TOKEN === undefined) return undefined;
  const logger = rt.logger.child({ module: 'miniapp' });
  const routes = createMiniAppApi({
    store: rt.store,
    clock: rt.clock,
    logger,
    botToken: config.BOT_TOKEN,
    maxAgeSeconds: config.MINI_APP_MAX_AGE_SECONDS,
    bookmakers: (lang) => rt.client.cachedDictionaries(lang)?.bookmakers ?? rt.client.cachedDictionaries('en')?.bookmakers ?? {},
    sports: (lang) => rt.client.cachedDictionaries(lang)?.sports ?? rt.client.cachedDictionaries('en')?.sports ?? {},
    filters: { save: (userId, service, settings) => saveFilter(rt, userId, service, settings), coverage: (userId, extra) => rt.scheduler.coverage(userId, extra) },
    reports: {
      takeReport: (userId) => rt.caps.take('report', userId),
      reportRule: CAP_RULES.report,
      sendDocument: (userId, bytes, fileName, caption) =>
        sendDocument(api, userId, { bytes, fileName, caption }, logger, translator(rt.store.getUser(userId)?.lang ?? 'en')('upload_refused_unknown')),
    },
  });
  return createMiniAppRoutes(routes, assets ?? notBuiltAssets);
}

/** `{ miniApp }` for the operator port's options when mounted, else nothing (exactOptionalPropertyTypes). */
export const miniAppOf = (routes: Routes | undefined): { miniApp?: Routes } => (routes ? { miniApp: routes } : {});
