/**
 * The bot as one process of a cluster (REDIS_URL set): ROLE=front runs the front (Telegram, the
 * alert stream's consumer), ROLE=worker a worker (polling the users of its bucket leases, alerts into
 * the queue), ROLE=all both in one process. Every process connects to Redis first (a Redis out of
 * reach ends the start with one line naming REDIS_URL), opens the shared store, checks the
 * encryption key against it and builds the client whose limits and tokens are shared; the parts
 * come from `ClusterParts` (parts.ts). /healthz reports what the role does (`details`): a worker
 * its leases and whether Redis answers them, a front its queue consumer.
 *
 * Stop: the worker half first (its leases back at once, polling stopped, alerts in flight
 * answered), then the front half (intake, consumer, outbox drained), then the store, client and
 * Redis.
 */
import type { UserFromGetMe } from 'grammy/types';
import type { Clock } from '../clock.js';
import { builtMiniAppAssets } from '../miniapp/asset-provider.js';
import { miniAppOf, mountMiniApp } from '../miniapp/mount.js';
import { ConfigError, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { appHandle, type App } from '../roles/handle.js';
import { storeCheck } from '../health/collect.js';
import { createBotMetrics } from '../health/metrics.js';
import { assertDataDirWritable } from '../operator/data-dir.js';
import { watchDictionaries } from '../roles/dictionaries.js';
import { openOperatorPort } from '../roles/operator-port.js';
import { openCheckedVault } from '../roles/open-vault.js';
import { redisKeyCheck } from './key-fingerprint.js';
import { connectRedis } from './connect.js';
import { createFrontRole } from './front-role.js';
import type { LeaseTimings } from './leases.js';
import type { ClusterContext, ClusterParts, ClusterStore } from './parts.js';
import { createWorkerRole } from './worker-role.js';

export interface ClusterRoleOptions {
  /** BOT_TOKEN is needed by the roles that talk to Telegram (front, all); a worker never does. */
  config: Config;
  logger: Logger;
  clock: Clock;
  botInfo?: UserFromGetMe;
  parts: ClusterParts;
  /** Tests: shorter leases. */
  leaseTimings?: Partial<LeaseTimings>;
  /** Tests: added to Redis's clock in the fronts' shared state (questions and caps expire on it). */
  stateClockOffsetMs?: () => number;
}

export async function startClusterRole(opts: ClusterRoleOptions): Promise<App> {
  const { config, logger, clock, parts } = opts;
  const url = config.REDIS_URL;
  if (url === undefined) throw new Error('startClusterRole needs REDIS_URL');
  const role = config.ROLE;
  // DATA_DIR still holds the generated encryption key, its fingerprint and the dictionaries cache.
  await assertDataDirWritable(config.DATA_DIR);
  const token = config.BOT_TOKEN;
  // Checked before anything opens: a front without a token could not start anyway.
  if (role !== 'worker' && token === undefined) throw new ConfigError(`BOT_TOKEN: expected the token from @BotFather (ROLE=${role} talks to Telegram; only ROLE=worker runs without it)`);
  const redis = await connectRedis(url, `bb-${role}`, logger);
  const ctx: ClusterContext = {
    config: { ...config, REDIS_URL: url }, logger, clock, redis, connection: { url }, prefix: config.REDIS_PREFIX,
  };
  let store: ClusterStore;
  try {
    store = await parts.openStore(ctx);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const vault = await openCheckedVault(config, store, logger, redisKeyCheck(redis, config.REDIS_PREFIX)).catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  const client = parts.createClient({ ...ctx, vault });
  const metrics = createBotMetrics();

  const worker = role === 'front' ? undefined : await createWorkerRole({ ctx, parts, store, vault, client, metrics: metrics.port, ...(opts.leaseTimings && { leaseTimings: opts.leaseTimings }) });
  const front = role === 'worker' || token === undefined ? undefined : await createFrontRole({
    ctx: { ...ctx, config: { ...ctx.config, BOT_TOKEN: token } }, parts, store, vault, client, metrics: metrics.port,
    ...(opts.botInfo && { botInfo: opts.botInfo }),
    ...(worker && { local: worker.scheduler }),
    ...(opts.stateClockOffsetMs && { stateClockOffsetMs: opts.stateClockOffsetMs }),
  });
  await front?.start();
  worker?.start();
  const dictionariesRetry = watchDictionaries(client, config.BB_DICTS_URL, logger);

  const running = front?.front.running;
  const receiver = running?.webhook?.receiver;
  metrics.attach({
    users: () => store.listUsers().length,
    client,
    ...(worker && { scheduler: worker.scheduler, notifier: worker.notifier }),
    ...(front && { outbox: front.front.outbox }),
    ...(receiver && { webhook: () => receiver.stats() }),
  });
  const health = await openOperatorPort({
    config,
    logger,
    metrics,
    ...(running && { running }),
    // The Mini App needs the bot's token and acts as the chat does: a front's, never a worker's.
    ...(front ? miniAppOf(mountMiniApp(front.front.runtime, front.front.botApi, builtMiniAppAssets())) : {}),
    checks: [...(front?.checks ?? []), storeCheck(store), ...(worker?.checks ?? [])],
    details: () => ({ role, ...(worker && { worker: worker.details() }), ...(front && { front: front.details() }) }),
  });
  logger.info({ role, prefix: config.REDIS_PREFIX, ...(worker && { workerId: worker.leases.workerId }) }, 'cluster role started');

  return appHandle(store, health?.port, async (drainMs) => {
    clearInterval(dictionariesRetry);
    await worker?.stop(drainMs);
    await front?.stop(drainMs);
    await store.close();
    await client.close();
    await health?.close();
    await redis.quit().catch(() => redis.disconnect());
  });
}
