/**
 * The scale benchmark's users (bench/scheduler-scale.ts), stored as /connect and the filter builder
 * leave them — an encrypted sandbox key each and a filter per service, one live and one prematch
 * service per user — and their filters saved with the service, as the bot would have done before
 * the restart the benchmark starts from.
 */
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { createServiceClient } from '../../src/service/client.js';
import { filterSettingsSchema, type FilterSettings } from '../../src/service/filter-model.js';
import { kindOf, SERVICES, type Kind, type Service } from '../../src/service/services.js';
import { storedKeyRef } from '../../src/store/key-ref.js';
import type { Store } from '../../src/store/port.js';
import type { Vault } from '../../src/store/vault.js';
import { benchKey } from './scale-backend.js';

/** Each user subscribes to one pair: a live and a prematch service, mixed kinds. */
const PAIRS: readonly [Service, Service][] = [
  ['arbs_live', 'arbs_prematch'],
  ['middles_live', 'valuebets_prematch'],
  ['valuebets_live', 'middles_prematch'],
];

/**
 * Filters as a user would save them: each lets through some 5–10 % of the sandbox's items. Each
 * subscription's first read alerts what matches at that moment, so the first minute is a flood
 * (some 13,000 alerts at 5,000 subscriptions against Telegram's 1,500 a minute: the outbox folds
 * them into digests); after it, alerts come as new items appear.
 */
const FILTERS: Record<Kind, Partial<FilterSettings>> = {
  arbs: { minProfit: 4 },
  middles: { minProfit: 0.5 },
  valuebets: { minOvervalue: 12 },
};

/** Stores the users as /connect and the filter builder leave them: an encrypted key and a filter per service. Returns the subscriptions made. */
export function addUsers(store: Store, vault: Vault, users: number, wanted: number): number {
  let subscriptions = 0;
  for (let id = 1; id <= users; id++) {
    const key = benchKey(id);
    const pair = PAIRS[(id - 1) % PAIRS.length]!;
    // An odd count gives the last user one service.
    const services = subscriptions + 2 <= wanted ? pair : pair.slice(0, 1);
    subscriptions += services.length;
    store.updateUser(
      id,
      (u) => {
        u.key = { accessKey: key.accessKey, secretEnc: vault.encrypt(key.secret), connectedAt: Date.now() };
        for (const s of services) {
          u.filters[s] = { settings: filterSettingsSchema.parse(FILTERS[kindOf(s)]), paused: false, pausedReason: null, savedAt: Date.now() };
        }
      },
      // Every fifth user reads Russian: the alerts are formatted in both languages.
      { chatId: id, lang: id % 5 === 0 ? 'ru' : 'en' },
    );
  }
  return subscriptions;
}

/**
 * Saves every user's filters with the service, as the filter builder and /connect do: the service
 * then answers each read with the items that pass, not its whole list. Written by a client of its
 * own, closed afterwards, so the measured one starts as after a restart, holding no tokens.
 */
export async function writeFilters(config: Config, logger: Logger, store: Store, vault: Vault): Promise<void> {
  const writer = createServiceClient({ config, logger });
  try {
    const jobs = store.listUsers().flatMap((user) =>
      SERVICES.flatMap((service) => {
        const filter = user.filters[service];
        return filter && user.key ? [{ ref: storedKeyRef(store, vault, user.id, user.key.accessKey), service, settings: filter.settings }] : [];
      }),
    );
    let next = 0;
    const worker = async () => {
      for (let job = jobs[next++]; job; job = jobs[next++]) await writer.writeFilter(job.ref, job.service, job.settings);
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    await writer.close();
  }
}
