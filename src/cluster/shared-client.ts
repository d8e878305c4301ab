/**
 * The Data Service client of a bot process in a cluster (REDIS_URL set): the ordinary client
 * (src/service/client.ts) with its limits decorated by the shared windows in Redis
 * (shared-limits.ts) and its token cache shared through Redis (shared-tokens.ts). What the roles
 * call instead of `createServiceClient` when REDIS_URL is set; the embedded bot never loads this.
 *
 * The connection is the caller's: the client uses it and never closes it. In a cluster the
 * scheduler's token ledger file is not needed (and several processes must not share it): the
 * token requests of the last hour are the tokens scope's window in Redis, which outlives restarts.
 */
import type { Redis } from 'ioredis';
import { systemClock } from '../clock.js';
import { createServiceClient, type ServiceClientOptions, type ServiceClientWithLimits } from '../service/client.js';
import type { Vault } from '../store/vault.js';
import { createLimitWindows } from './limit-window.js';
import { sharedLimits } from './shared-limits.js';
import { SharedTokenCache, TOKEN_KEY_PURPOSE, type SharedTokenCacheOptions } from './shared-tokens.js';

export interface SharedServiceClientOptions extends Omit<ServiceClientOptions, 'limits' | 'tokens'> {
  /** An open ioredis connection (the caller's: it is not closed here). */
  redis: Redis;
  /** REDIS_PREFIX. */
  prefix: string;
  /** The vault: the token cache's key is derived from its key (ENCRYPTION_KEY) and never leaves this process. */
  vault: Pick<Vault, 'deriveKey'>;
  /** How long a caller waits for Redis before its call fails as transient; default 2 s. */
  redisTimeoutMs?: number;
  /** Tests only: shifts Redis's clock in the scripts (limit windows, token renewal times). */
  clockOffsetMs?: number | (() => number);
  /** Tests only: the token lock's timings. */
  tokenLock?: Pick<SharedTokenCacheOptions, 'lockTtlMs' | 'pollMs' | 'busyWaitMs'>;
}

/** The client with limits and tokens shared through Redis; BB_LOCAL_ADDRESS names its egress and its address budgets. */
export function createSharedServiceClient(opts: SharedServiceClientOptions): ServiceClientWithLimits {
  const { redis, prefix, vault, redisTimeoutMs, clockOffsetMs, tokenLock, ...client } = opts;
  const clock = client.clock ?? systemClock;
  const offset = clockOffsetMs === undefined ? {} : { clockOffsetMs };
  const windows = createLimitWindows(redis, { prefix, ...offset });
  const timeout = redisTimeoutMs === undefined ? {} : { redisTimeoutMs };
  return createServiceClient({
    ...client,
    limits: (local) =>
      sharedLimits(local, windows, { localAddress: client.config.BB_LOCAL_ADDRESS, clock, logger: client.logger, ...timeout }),
    tokens: (manager, { shutdown }) =>
      new SharedTokenCache({
        redis,
        prefix,
        key: vault.deriveKey(TOKEN_KEY_PURPOSE),
        manager,
        clock,
        logger: client.logger,
        shutdown,
        ...timeout,
        ...offset,
        ...tokenLock,
      }),
  });
}
