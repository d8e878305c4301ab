/**
 * The cluster's factories, as the roles (roles.ts) use them: the store shared through Redis, the
 * service client whose limits and tokens are shared through Redis, the workers' outbox over the
 * alert stream, and the front's consumer of that stream. Each is built elsewhere (src/store/ and
 * src/cluster/ of the other cluster pieces); this file is the one place where the roles meet them,
 * so wiring them is one object literal.
 *
 * Tests of the role wiring may pass stand-ins built from the embedded pieces (test/cluster/stand-in-parts.ts).
 */
import type { Api } from 'grammy';
import { createDestinationConfirmer } from './destination-confirm.js';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ClientStats } from '../service/client.js';
import type { ServiceClient } from '../service/client-types.js';
import type { Store } from '../store/port.js';
import type { Vault } from '../store/vault.js';
import type { OutboxPort, SendingOutboxPort } from '../outbox/port.js';
import type { AlertStateLoader } from './ownership.js';
import { openRedisStore } from '../store/redis-store.js';
import { createSharedServiceClient } from './shared-client.js';
import { createRemoteOutbox } from './remote-outbox.js';
import { startAlertConsumer } from './alert-consumer.js';
import { ALERT_JOB_KEY_PURPOSE, createJobGuard } from './job-guard.js';

/** What every factory gets. */
export interface ClusterContext {
  config: Config & { REDIS_URL: string };
  logger: Logger;
  clock: Clock;
  /** This process's command connection to Redis (the roles close it last; parts never close it). */
  redis: Redis;
  /** REDIS_URL, for parts that open connections of their own (a blocking stream read, a subscriber). */
  connection: { url: string };
  /** REDIS_PREFIX. */
  prefix: string;
}

/** The store as the roles use it in a cluster: the embedded store's surface, its change feed, and alert state loaded per user. */
export interface ClusterStore extends Store, AlertStateLoader {
  /** Calls `listener` with the id of every user that any process changed (for a worker: refresh them). Returns the unsubscribe. */
  onUserChanged(listener: (userId: number) => void): () => void;
  /** Each write of alert state first waits for `wait` (a worker: its alerts on the stream). */
  alertWritesAfter?(wait: () => Promise<void>): void;
}

export interface ClusterClient extends ServiceClient {
  stats(): ClientStats;
}

export interface RemoteOutboxPart extends OutboxPort {
  /** Adds what waits without its linger; resolves once every batch added so far is in the stream (or failed). */
  added?(): Promise<void>;
  /** Calls waiting for the front's answer (the worker's /healthz). */
  readonly pending?: number;
  /** Stops waiting for the front's answers (callers resolve undefined/false) and closes the stream's connections. */
  close(): Promise<void>;
}

export interface AlertConsumerPart {
  /** Stops taking alerts, waits (at most `withinMs`) for the outbox to answer the alerts in hand, closes its connections. */
  close(withinMs?: number): Promise<void>;
  /** Counters for /healthz (received, sent, edited, repeats, unsure, …). */
  stats(): object;
}

export interface ClusterParts {
  openStore(ctx: ClusterContext): Promise<ClusterStore>;
  createClient(ctx: ClusterContext & { vault: Vault }): ClusterClient;
  createRemoteOutbox(ctx: ClusterContext & { vault: Vault }): RemoteOutboxPart;
  startAlertConsumer(ctx: ClusterContext & { outbox: SendingOutboxPort; vault: Vault; store: ClusterStore; api: Pick<Api, 'getChatMember'> }): AlertConsumerPart;
}

/**
 * The factories of the cluster. A worker opens the store without alert state and loads each user's as
 * it takes over their bucket (`loadAlerts`); a front (and `all`) loads it all, for the checks of
 * alert buttons pressed in groups.
 */
export const clusterParts: ClusterParts = {
  openStore: (c) =>
    openRedisStore({ url: c.connection.url, prefix: c.prefix, logger: c.logger, clock: c.clock, loadAllAlerts: c.config.ROLE !== 'worker' }),
  createClient: (c) =>
    createSharedServiceClient({ config: c.config, logger: c.logger, clock: c.clock, redis: c.redis, prefix: c.prefix, vault: c.vault }),
  createRemoteOutbox: (c) =>
    createRemoteOutbox({ connection: c.connection, prefix: c.prefix, logger: c.logger, guard: createJobGuard({ key: c.vault.deriveKey(ALERT_JOB_KEY_PURPOSE) }) }),
  startAlertConsumer: (c) =>
    startAlertConsumer({
      connection: c.connection, prefix: c.prefix, outbox: c.outbox, logger: c.logger,
      guard: createJobGuard({ key: c.vault.deriveKey(ALERT_JOB_KEY_PURPOSE), store: c.store }),
      confirmDestination: createDestinationConfirmer(c.api),
    }),
};
