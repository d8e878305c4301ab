/** Gathers the numbers operators watch into Prometheus samples, from the parts that own them. */
import { getHeapStatistics } from 'node:v8';
import type { OutboxStats } from '../alerts/outbox.js';
import type { ClientStats } from '../service/client.js';
import type { SchedulerStats } from '../scheduler/scheduler.js';
import type { NotifierStats } from '../scheduler/notifier.js';
import type { Store } from '../store/store.js';
import type { MetricSample } from './metrics.js';
import type { HealthCheck } from './server.js';

/**
 * The store's health: writable, and no corrupt database moved aside and left unattended (the bot
 * would be running without its users). The operator acknowledges by removing the moved-aside files.
 */
export function storeCheck(store: Pick<Store, 'writable' | 'corruptFiles'>): HealthCheck {
  return {
    name: 'store',
    check: async () => store.writable() && (await store.corruptFiles()).length === 0,
    async reason() {
      if (!store.writable()) return 'the database cannot be written (see the log); retrying';
      const files = await store.corruptFiles();
      return files.length > 0
        ? `a corrupt database was moved aside to ${files.join(', ')} and the bot started without its data: restore or inspect it, then remove the moved-aside files from DATA_DIR`
        : undefined;
    },
  };
}

export interface MetricSources {
  users: () => number;
  scheduler: { stats(): SchedulerStats };
  notifier: { stats(): NotifierStats };
  outbox: { readonly depth: number; readonly stats: OutboxStats };
  client: { stats(): ClientStats };
}

export function collectMetrics(src: MetricSources): MetricSample[] {
  const s = src.scheduler.stats();
  const n = src.notifier.stats();
  const o = src.outbox.stats;
  const c = src.client.stats();
  const heap = getHeapStatistics();
  const gauge = (name: string, help: string, value: number): MetricSample => ({ name, help, type: 'gauge', value });
  const counter = (name: string, help: string, value: number): MetricSample => ({ name, help, type: 'counter', value });
  return [
    gauge('bot_users', 'Users the bot knows', src.users()),
    gauge('bot_subscriptions', 'Active subscriptions (a key and a service) being polled', s.subscriptions),
    counter('bot_reads_total', 'Successful item reads', s.reads),
    counter('bot_read_errors_total', 'Failed item reads', s.errors),
    counter('bot_service_requests_total', 'Data API requests sent', c.requests),
    ...Object.entries(c.failures).map(
      ([kind, value]): MetricSample => ({
        name: 'bot_service_failures_total',
        help: 'Failed Data API requests by error kind (rate_limited counts 429s)',
        type: 'counter',
        value,
        labels: { kind },
      }),
    ),
    counter('bot_service_429_total', 'Answers 429 from the Data Service', c.failures.rate_limited),
    ...Object.entries(c.rejectedItems ?? {}).map(
      ([reason, value]): MetricSample => ({
        name: 'bot_items_rejected_total',
        help: 'Items from the Data Service kept out as unusable, by reason (non_finite, wrong_type, bad_legs, no_event), on every read that met them',
        type: 'counter',
        value,
        labels: { reason },
      }),
    ),
    counter('bot_alerts_sent_total', 'New alerts handed to the outbox', n.alerts),
    counter('bot_alert_edits_total', 'Alert edits (moved, gone) handed to the outbox', n.edits),
    counter('bot_telegram_sent_total', 'Messages sent to Telegram', o.sent),
    counter('bot_telegram_edited_total', 'Messages edited on Telegram', o.edited),
    counter('bot_telegram_gave_up_total', 'Sends given up after bounded retries', o.gaveUp),
    gauge('bot_outbox_depth', 'Sends and edits waiting in the outbox', src.outbox.depth),
    gauge('bot_scheduling_lag_p99_ms', 'How late subscriptions were taken from the queue, 99th percentile (ms)', s.lagMsP99),
    gauge('bot_poll_interval_stretch', 'How much every poll interval is stretched because the bot cannot keep up (1 when it can)', s.loadFactor),
    gauge('bot_resident_memory_bytes', 'Resident memory of the bot process', process.memoryUsage.rss()),
    gauge('bot_heap_used_bytes', 'JavaScript heap in use, garbage not yet collected included', heap.used_heap_size),
    gauge('bot_heap_limit_bytes', 'The heap ceiling (--max-old-space-size): a heap used near it after collections means the bot needs more', heap.heap_size_limit),
  ];
}
