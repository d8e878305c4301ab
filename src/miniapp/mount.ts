/**
 * The Mini App on the operator port, when MINI_APP_URL is set: the API over this process's store
 * and the page's files from `assets` (the build's provider; without one, a page that says the
 * assets are not built). Only a process that holds the bot's token and the store mounts it (the
 * single process, or a cluster's front).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ServiceClient } from '../service/client-types.js';
import type { Store } from '../store/port.js';
import { createMiniAppApi } from './api.js';
import { createMiniAppRoutes, type AssetProvider } from './server.js';

const NOT_BUILT = Buffer.from('<!doctype html><meta charset="utf-8"><title>Mini App</title><p>The Mini App’s page is not built: run <code>npm run build</code> and restart the bot.</p>\n');
export const notBuiltAssets: AssetProvider = { get: (name) => (name === 'index.html' ? { body: NOT_BUILT, type: 'text/html; charset=utf-8' } : undefined) };

export interface MountOptions {
  config: Pick<Config, 'MINI_APP_URL' | 'MINI_APP_MAX_AGE_SECONDS' | 'BOT_TOKEN'>;
  store: Store;
  clock: Clock;
  logger: Logger;
  client: Pick<ServiceClient, 'cachedDictionaries'>;
  assets?: AssetProvider;
}

export function mountMiniApp(opts: MountOptions): ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined {
  const { config } = opts;
  if (config.MINI_APP_URL === undefined || config.BOT_TOKEN === undefined) return undefined;
  const api = createMiniAppApi({
    store: opts.store,
    clock: opts.clock,
    logger: opts.logger.child({ module: 'miniapp' }),
    botToken: config.BOT_TOKEN,
    maxAgeSeconds: config.MINI_APP_MAX_AGE_SECONDS,
    bookmakers: (lang) => opts.client.cachedDictionaries(lang)?.bookmakers ?? opts.client.cachedDictionaries('en')?.bookmakers ?? {},
  });
  return createMiniAppRoutes(api, opts.assets ?? notBuiltAssets);
}

/** `{ miniApp }` for the operator port's options when mounted, else nothing (exactOptionalPropertyTypes). */
export const miniAppOf = (
  routes: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined,
): { miniApp?: (req: IncomingMessage, res: ServerResponse) => boolean } => (routes ? { miniApp: routes } : {});
