/**
 * Polling: the scheduler and the notifier it hands its reads to. The embedded bot runs it beside
 * the front and hands the notifier the front's outbox; a cluster's worker (ROLE=worker) runs it
 * alone, hands the notifier the alert stream (the RemoteOutbox) and tells the scheduler which users
 * it owns (their bucket leases, src/cluster/ownership.ts).
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/port.js';
import type { Vault } from '../store/vault.js';
import type { ServiceClient } from '../service/client-types.js';
import type { OutboxPort } from '../outbox/port.js';
import type { Notifier } from '../scheduler/port.js';
import { createScheduler, type Scheduler } from '../scheduler/scheduler.js';
import { createCloseRecorder } from '../alerts/closing-lines.js';
import { createNotifier } from '../alerts/notifier.js';
import { staleDefaultsOf } from '../alerts/loudness.js';
import { userAllowed } from '../bot/middleware/access.js';
import type { MetricsPort } from '../health/observe.js';

export interface PollingDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  vault: Vault;
  client: ServiceClient;
  outbox: OutboxPort;
  metrics: MetricsPort;
  /** Where the keys' token requests of the last hour are kept (embedded: DATA_DIR/token-ledger.json). */
  ledgerFile?: string;
  /** A cluster's worker: the users whose bucket it holds. Default everyone. */
  owns?: (userId: number) => boolean;
}

export interface Polling {
  readonly scheduler: Scheduler;
  readonly notifier: Notifier;
}

export function createPolling(deps: PollingDeps): Polling {
  const { config, logger, clock, store, client } = deps;
  const notifier = createNotifier({ store, client, outbox: deps.outbox, logger, clock, metrics: deps.metrics, staleDefaults: staleDefaultsOf(config) });
  const scheduler = createScheduler({
    config,
    logger,
    store,
    client: timedReads(client, deps.metrics, clock),
    notifier,
    recordCloses: createCloseRecorder(store.ledger),
    vault: deps.vault,
    clock,
    ...(deps.ledgerFile !== undefined && { ledgerFile: deps.ledgerFile }),
    // ALLOWED_USER_IDS holds for polling too: someone taken off the list gets no more alerts.
    isAllowed: userAllowed(config),
    ...(deps.owns && { owns: deps.owns }),
  });
  return { scheduler, notifier };
}

/** The scheduler's client, with each item read timed for the read-duration histogram. */
function timedReads(client: ServiceClient, metrics: MetricsPort, clock: Clock): ServiceClient {
  return {
    ...client,
    readItems: async (key, service, opts) => {
      const started = clock.now();
      try {
        return await client.readItems(key, service, opts);
      } finally {
        metrics.readDuration(clock.now() - started);
      }
    },
  };
}
