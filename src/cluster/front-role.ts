/**
 * A cluster's front (ROLE=front, or the front half of ROLE=all): the front of the embedded bot
 * (src/roles/front.ts: outbox, grammY, destinations) with the front's scheduler port (coverage from
 * the token plans, latest items asked of the workers; front-port.ts) and the consumer of the alert
 * stream, which hands the workers' alerts to this outbox. The consumer runs only while this front
 * holds the sender lease (sender-lease.ts: one front sends at a time, so Telegram's budgets are kept
 * whatever the number of fronts); it starts once the outbox sends and is closed before the outbox drains.
 * The open questions, the guided flows, the caps, the chats' turns and the webhook updates taken
 * are shared with the other fronts in Redis (front-state.ts), since Telegram may hand a user's next
 * update to any front; the settle digests go out from the sender lease's holder only.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { UserFromGetMe } from 'grammy/types';
import type { Vault } from '../store/vault.js';
import type { MetricsPort } from '../health/observe.js';
import type { HealthCheck } from '../health/server.js';
import type { SchedulerPort } from '../scheduler/port.js';
import { createFront, type Front } from '../roles/front.js';
import { createFrontSchedulerPort } from './front-port.js';
import { createLatestItemsAsker, LATEST_ITEMS_KEY_PURPOSE } from './latest-items.js';
import { messageSealFor } from './message-seal.js';
import { PENDING_KEY_PURPOSE } from './shared-pending.js';
import type { AlertConsumerPart, ClusterClient, ClusterContext, ClusterParts, ClusterStore } from './parts.js';
import { startSenderLease, type SenderLease, type SenderLeaseTimings } from './sender-lease.js';
import { createSharedFrontState } from './front-state.js';

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
  /** Tests: a shorter sender lease. */
  senderLease?: Partial<SenderLeaseTimings>;
  /** Tests: added to Redis's clock in the shared state's scripts (questions and caps expire on it). */
  stateClockOffsetMs?: () => number;
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
  const latest = await createLatestItemsAsker({ redis: ctx.redis, prefix, logger, seal: messageSealFor(deps.vault, LATEST_ITEMS_KEY_PURPOSE) });
  const port = createFrontSchedulerPort({ config, store, client: deps.client, vault: deps.vault, latest, clock, ...(deps.local && { local: deps.local }) });
  let consumer: AlertConsumerPart | undefined;
  let lease: SenderLease | undefined;
  let unsubscribe: (() => void) | undefined;
  // The open questions, flows and caps of every front, in Redis: a user's updates may reach any front.
  const state = createSharedFrontState(ctx.redis, {
    prefix, logger, seal: messageSealFor(deps.vault, PENDING_KEY_PURPOSE), ...(deps.stateClockOffsetMs && { clockOffsetMs: deps.stateClockOffsetMs }),
  });
  const front = await createFront({
    config: ctx.config, logger, clock, store, vault: deps.vault, client: deps.client, scheduler: port, metrics: deps.metrics, state,
    ...(deps.botInfo && { botInfo: deps.botInfo }),
    stats: () => ({ outboxDepth: front.outbox.depth }),
    sendsDigests: () => lease?.held() ?? false,
  });

  /** Starts and closes of the consumer, one after the other, as the lease comes and goes. */
  let turnover: Promise<void> = Promise.resolve();
  /** When the stop's budget ends (Date.now() ms), once stopping: every wait of the stop keeps within it. */
  let stopUntil: number | undefined;
  const budgetLeft = () => (stopUntil === undefined ? undefined : Math.max(0, stopUntil - Date.now()));
  const senderChanged = (held: boolean) => {
    turnover = turnover.then(async () => {
      if (held && !consumer) consumer = deps.parts.startAlertConsumer({ ...ctx, outbox: front.outbox, vault: deps.vault, store: deps.store, api: front.api });
      else if (!held && consumer) {
        const leaving = consumer;
        consumer = undefined;
        await leaving.close(budgetLeft());
      }
    });
  };

  return {
    front,
    checks: [front.check, { name: 'redis', check: () => ctx.redis.status === 'ready', reason: () => `not connected to Redis (${ctx.redis.status})` }],
    details: () => ({ outboxDepth: front.outbox.depth, sender: lease?.held() ?? false, alertStream: consumer ? consumer.stats() : 'not sending (another front holds the sender lease)' }),
    async start() {
      unsubscribe = store.onUserChanged((userId) => port.changed(userId));
      await front.start();
      lease = startSenderLease({
        redis: ctx.redis, prefix, holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`, logger,
        onChange: senderChanged, ...(deps.senderLease && { timings: deps.senderLease }),
      });
    },
    async stop(drainMs) {
      stopUntil = Date.now() + drainMs;
      unsubscribe?.();
      // Giving the lease up closes the consumer (its wait for the alerts in hand inside the budget).
      await lease?.stop();
      await turnover;
      await front.stop(budgetLeft() ?? drainMs, consumer ? [consumer] : []);
      await latest.close();
    },
  };
}
