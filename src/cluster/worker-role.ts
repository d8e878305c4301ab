/**
 * A cluster's worker (ROLE=worker, or the worker half of ROLE=all): the scheduler, the service
 * client and the notifier, polling only the users whose bucket leases it holds, and handing its
 * alerts to the alert stream (the RemoteOutbox) instead of Telegram. It follows the store's change
 * feed (a user changed on a front is refreshed here), answers the fronts' questions for the latest
 * items of the users it owns, and at stop gives its leases back first, so another worker takes
 * over within a round instead of a TTL.
 */
import type { Redis } from 'ioredis';
import type { Vault } from '../store/vault.js';
import type { MetricsPort } from '../health/observe.js';
import type { HealthCheck } from '../health/server.js';
import type { Notifier } from '../scheduler/port.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { settlesWithin } from '../lib/settles-within.js';
import { createPolling } from '../roles/polling.js';
import { createLatestItemsAnswerer, LATEST_ITEMS_KEY_PURPOSE } from './latest-items.js';
import { messageSealFor } from './message-seal.js';
import { createLeases, type LeaseTimings, type Leases } from './leases.js';
import { createOwnership } from './ownership.js';
import type { ClusterClient, ClusterContext, ClusterParts, ClusterStore } from './parts.js';

export interface WorkerRoleDeps {
  ctx: ClusterContext;
  parts: Pick<ClusterParts, 'createRemoteOutbox'>;
  store: ClusterStore;
  vault: Vault;
  client: ClusterClient;
  metrics: MetricsPort;
  /** Tests: shorter leases. */
  leaseTimings?: Partial<LeaseTimings>;
}

export interface WorkerRole {
  readonly scheduler: Scheduler;
  readonly notifier: Notifier;
  readonly leases: Leases;
  readonly checks: readonly HealthCheck[];
  details(): Record<string, unknown>;
  start(): void;
  /** Gives the leases back, stops polling, waits up to `drainMs` for the front's answers to alerts in flight. */
  stop(drainMs: number): Promise<void>;
}

export async function createWorkerRole(deps: WorkerRoleDeps): Promise<WorkerRole> {
  const { ctx, store } = deps;
  const { config, logger, clock, prefix } = ctx;
  const remote = deps.parts.createRemoteOutbox({ ...ctx, vault: deps.vault });
  // Alert state reaches Redis only after its alerts reach the stream: a kill -9 in between loses no alert.
  if (remote.added) {
    const added = remote.added.bind(remote);
    store.alertWritesAfter?.(added);
  }
  // Its own connection, failing at once while Redis is away: a renewal must not wait in a queue.
  const leaseConn: Redis = ctx.redis.duplicate({ connectionName: 'bb-leases', enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  leaseConn.on('error', () => undefined);
  await leaseConn.connect();
  const leases = createLeases({ redis: leaseConn, prefix, logger, ...deps.leaseTimings });
  const ownership = createOwnership({ leases, userIds: () => store.listUsers().map((u) => u.id), store, logger });
  const { scheduler, notifier } = createPolling({
    config, logger, clock, store, vault: deps.vault, client: deps.client, outbox: remote, metrics: deps.metrics,
    // No ledger file: the token requests of the last hour are the tokens scope's window in Redis.
    owns: ownership.owns,
  });
  ownership.attach((ids) => scheduler.refreshUsers(ids));
  const answerer = await createLatestItemsAnswerer({
    redis: ctx.redis, prefix, logger, owns: ownership.owns, latestItems: (u, s) => scheduler.latestItems(u, s),
    seal: messageSealFor(deps.vault, LATEST_ITEMS_KEY_PURPOSE),
  });
  let unsubscribe: (() => void) | undefined;

  return {
    scheduler,
    notifier,
    leases,
    checks: [
      { name: 'scheduler', check: () => clock.now() - scheduler.stats().lastTickAt < 30_000 },
      {
        name: 'leases',
        check: () => leases.state().redisOk,
        reason: () => 'the last lease renewal did not reach Redis: this worker reads nobody until it does',
      },
    ],
    details: () => {
      const s = leases.state();
      return { workerId: s.workerId, leasesHeld: s.held, leasesReady: ownership.ready, fairShare: s.share, liveWorkers: s.live, redisReachable: s.redisOk, sinceLastRenewalMs: s.sinceLastRoundMs, subscriptions: scheduler.stats().subscriptions, alertsAwaitingFront: remote.pending };
    },
    start() {
      unsubscribe = store.onUserChanged((userId) => scheduler.refreshUser(userId));
      scheduler.start();
      leases.start();
    },
    async stop(drainMs) {
      await leases.stop();
      ownership.close();
      unsubscribe?.();
      await scheduler.stop();
      // The front answers alerts in flight with their message ids (kept for later edits): wait a little.
      await settlesWithin(notifier.idle(), drainMs);
      await remote.close();
      await answerer.close();
      leaseConn.disconnect();
    },
  };
}
