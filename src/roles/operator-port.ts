/**
 * Opens the operator port (HTTP_PORT): `/healthz` with the checks of the roles this process runs,
 * `/metrics`, and in webhook mode the webhook's path. Nothing when HTTP_PORT is not set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { BotHandle } from '../bot/run.js';
import type { BotMetrics } from '../health/metrics.js';
import { startHealthServer, type HealthCheck, type HealthServer } from '../health/server.js';

export interface OperatorPortOptions {
  config: Pick<Config, 'HTTP_PORT' | 'HTTP_HOST' | 'HEALTH_TOKEN'>;
  logger: Logger;
  checks: readonly HealthCheck[];
  metrics: BotMetrics;
  /** The front's intake: in webhook mode its receiver is served here. */
  running?: BotHandle;
  details?: () => Record<string, unknown>;
  /** The Mini App's routes (src/miniapp/mount.ts), when MINI_APP_URL is set and this process holds the bot. */
  miniApp?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export async function openOperatorPort(opts: OperatorPortOptions): Promise<HealthServer | undefined> {
  const { config, logger, running } = opts;
  if (config.HTTP_PORT === undefined) return undefined;
  const webhook = running?.webhook;
  const health = await startHealthServer({
    port: config.HTTP_PORT,
    host: config.HTTP_HOST,
    checks: opts.checks,
    metrics: opts.metrics,
    ...(webhook && { webhook: { path: webhook.path, handle: (req, res) => webhook.receiver.handle(req, res) } }),
    ...(opts.details && { details: opts.details }),
    ...(opts.miniApp && { miniApp: opts.miniApp }),
    ...(config.HEALTH_TOKEN !== undefined && { detailsToken: config.HEALTH_TOKEN }),
  });
  logger.info(
    { host: config.HTTP_HOST, port: health.port, ...(webhook && { webhookPath: webhook.path }), ...(opts.miniApp && { miniApp: '/app/' }) },
    webhook ? 'operator port open: /healthz, /metrics and the webhook' : 'operator port open: /healthz and /metrics',
  );
  return health;
}
