/**
 * The scheduler as a cluster's front sees it (`SchedulerPort`), without running one: the front
 * reads nothing from the service on its own.
 *
 * - refreshUser: the store already published the change (every write goes through the shared
 *   store, whose change feed the workers follow), so the worker that owns the user refreshes it.
 *   Locally it updates the front's mirror (below), and in ROLE=all this process's own scheduler.
 * - coverage: computed by the same code the scheduler uses (coverage.ts over the registry and the
 *   keys' token plans, token-plan.ts), on a registry that mirrors the store and never schedules a
 *   read. It knows every user of the cluster, so under LIMIT_SCOPE=address it counts everyone on a
 *   host as the embedded bot would, while each worker has its own address and so its own budget:
 *   there it is conservative (it may promise fewer reads than the workers make); it forms the same
 *   read groups (read-groups.ts) as the embedded bot. The load factor is
 *   the workers' business and counts as 1. The mirror also tells the front's client each key's
 *   polling token plan, so interactive token requests keep to what polling leaves, as embedded.
 * - latestItems: asked of the worker that owns the user (latest-items.ts), one round trip.
 */
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Opportunity } from '../service/opportunity.js';
import type { ServiceClient } from '../service/client-types.js';
import type { Service } from '../service/services.js';
import type { SecretOpener } from '../store/key-ref.js';
import type { Store } from '../store/port.js';
import { userAllowed } from '../bot/middleware/access.js';
import { AddressTokenTurns } from '../scheduler/address-turns.js';
import { createCoverage } from '../scheduler/coverage.js';
import type { SchedulerPort } from '../scheduler/port.js';
import { readPaceMs } from '../scheduler/read-pace.js';
import { createReadGroups } from '../scheduler/read-groups.js';
import { createSubscriptionRegistry, type Sub } from '../scheduler/subscriptions.js';
import { DEFAULT_TUNING } from '../scheduler/tuning.js';

export interface FrontPortOptions {
  config: Config;
  store: Pick<Store, 'getUser' | 'listUsers'>;
  client: Pick<ServiceClient, 'setPollingTokens'> & Partial<Pick<ServiceClient, 'hasValidToken' | 'itemWindowMs'>>;
  vault: SecretOpener;
  latest: { ask(userId: number, service?: Service): Promise<Opportunity[]> };
  /** ROLE=all: this process's scheduler, refreshed at once too. */
  local?: Pick<SchedulerPort, 'refreshUser'>;
  /** The clock coverage reads the time by (when a service's next token window opens); default the system's. */
  clock?: Clock;
}

export interface FrontSchedulerPort extends SchedulerPort {
  /** The store's change feed: another process changed the user (the mirror follows; nothing else). */
  changed(userId: number): void;
}

export function createFrontSchedulerPort(opts: FrontPortOptions): FrontSchedulerPort {
  const { config, store } = opts;
  const tuning = DEFAULT_TUNING;
  const isAllowed = userAllowed(config);
  const windowMs = tuning.tokenTtlMs;
  const paceMs = readPaceMs(config.LIMIT_ITEMS_PER_MINUTE, tuning.interactiveShare, opts.client.itemWindowMs);
  // The read groups (LIMIT_SCOPE=address) as the embedded scheduler forms them, without a queue.
  const groups = config.LIMIT_SCOPE === 'address'
    ? createReadGroups({ store, queue: { push: () => undefined, remove: () => false, dueAt: () => undefined }, scopeOf: (s) => s, push: () => undefined })
    : undefined;
  const mirror = createSubscriptionRegistry({
    config, store, client: opts.client, vault: opts.vault, clock: systemClock, random: Math.random, isAllowed,
    owns: () => true, queue: { remove: () => false, dueAt: () => undefined }, schedule: (sub) => groups?.wake(sub, 0), paceMs,
    windowMs, tokenReserve: tuning.tokenReserve,
    ...(groups ? { afterRefresh: (userId: number, current: Iterable<Sub>) => groups.sync(userId, current) } : {}),
  });
  const turns = config.LIMIT_SCOPE_TOKENS === 'address'
    ? new AddressTokenTurns({ tokensPerHour: config.LIMIT_TOKENS_PER_HOUR, reserve: tuning.tokenReserve, windowMs })
    : undefined;
  const coverage = createCoverage({
    config, store, registry: mirror, turns, groups, isAllowed,
    floorMs: config.POLL_INTERVAL_SECONDS * 1000,
    paceMs,
    loadFactor: { factor: 1 },
    clock: opts.clock ?? systemClock,
    // The token cache is the cluster's (shared-tokens.ts): a token a front's save took is the worker's too.
    heldToken: (accessKey, service) => opts.client.hasValidToken?.(accessKey, service) ?? false,
  });
  for (const user of store.listUsers()) mirror.refresh(user.id, 0);

  return {
    refreshUser(userId) {
      mirror.refresh(userId, 0);
      opts.local?.refreshUser(userId);
    },
    coverage(userId, extra) {
      // Another process may have changed the user since the feed last told us.
      mirror.refresh(userId, 0);
      return coverage(userId, extra);
    },
    latestItems: (userId, service) => opts.latest.ask(userId, service),
    changed: (userId) => mirror.refresh(userId, 0),
  };
}
