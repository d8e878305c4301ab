/**
 * A cluster's front (ROLE=front, or the front half of ROLE=all): the front of the embedded bot
 * (src/roles/front.ts: outbox, grammY, destinations) with the front's scheduler port (coverage from
 * the token plans, latest items asked of the workers; front-port.ts) and the consumer of the alert
 * queue, which hands the workers' alerts to this outbox. The consumer starts once the outbox sends
 * and is closed before the outbox drains.
 */
import type { UserFromGetMe } from 'grammy/types';
import type { Vault } from '../store/vault.js';
import type { MetricsPort } from '../health/observe.js';
import type { HealthCheck } from '../health/server.js';
import type { SchedulerPort } from '../scheduler/port.js';
import { createFront, type Front } from '../roles/front.js';
import { createFrontSchedulerPort } from './front-port.js';
import { createLatestItemsAsker } from './latest-items.js';
import type { AlertConsumerPart, ClusterClient, ClusterContext, ClusterParts, ClusterStore } from './parts.js';

export interface FrontRoleDeps {
  ctx: ClusterContext & { config: { BOT_TOKEN: string } };
  parts: Pick<ClusterParts, 'startAlertConsumer'>;
  store: ClusterStore;
  vault: Vault;
  client: ClusterClient;
  metrics: MetricsPort;
  botInfo?: UserFromGetMe;
  /** ROLE=all: this process's scheduler. */
  local?: Pick<SchedulerPort, 'refreshUser'>;
}

export interface FrontRole {
  readonly front: Front;
  readonly checks: readonly HealthCheck[];
  details(): Record<string, unknown>;
  start(): Promise<void>;
  stop(drainMs: number): Promise<void>;
}

export async function createFrontRole(deps: FrontRoleDeps): Promise<FrontRole> {
  const { ctx, store } = deps;
  const { config, logger, clock, prefix } = ctx;
  const latest = await createLatestItemsAsker({ redis: ctx.redis, prefix, logger });
  const port = createFrontSchedulerPort({ config, store, client: deps.client, vault: deps.vault, latest, ...(deps.local && { local: deps.local }) });
  let consumer: AlertConsumerPart | undefined;
  let unsubscribe: (() => void) | undefined;
  const front = await createFront({
    config: ctx.config, logger, clock, store, vault: deps.vault, client: deps.client, scheduler: port, metrics: deps.metrics,
    ...(deps.botInfo && { botInfo: deps.botInfo }),
    stats: () => ({ outboxDepth: front.outbox.depth }),
  });

  return {
    front,
    checks: [front.check, { name: 'redis', check: () => ctx.redis.status === 'ready', reason: () => `not connected to Redis (${ctx.redis.status})` }],
    details: () => ({ outboxDepth: front.outbox.depth, alertQueue: consumer ? consumer.stats() : 'not started' }),
    async start() {
      unsubscribe = store.onUserChanged((userId) => port.changed(userId));
      await front.start();
      consumer = deps.parts.startAlertConsumer({ ...ctx, outbox: front.outbox });
    },
    async stop(drainMs) {
      unsubscribe?.();
      await front.stop(drainMs, consumer ? [consumer] : []);
      await latest.close();
    },
  };
}
