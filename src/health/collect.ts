/** Reads the numbers operators watch from the parts that own them, as named samples for /metrics. */
import { getHeapStatistics } from 'node:v8';
import type { OutboxStats } from '../outbox/port.js';
import type { ClientStats } from '../service/client.js';
import type { SchedulerStats } from '../scheduler/scheduler.js';
import type { NotifierStats } from '../scheduler/port.js';
import type { Store } from '../store/port.js';
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

export interface Sample {
  name: string;
  value: number;
  labels?: Record<string, string>;
}

export interface WebhookStats {
  accepted: number;
  refused: { secret: number; replay: number; body: number };
}

/** What the samples are read from; in a cluster a front has no scheduler or notifier, a worker no outbox. */
export interface MetricSources {
  users: () => number;
  scheduler?: { stats(): SchedulerStats };
  notifier?: { stats(): NotifierStats };
  outbox?: { readonly depth: number; readonly stats: OutboxStats };
  client: { stats(): ClientStats };
  /** Present in webhook mode. */
  webhook?: () => WebhookStats;
}

export function collectSamples(src: MetricSources): Sample[] {
  const c = src.client.stats();
  const heap = getHeapStatistics();
  const one = (name: string, value: number): Sample => ({ name, value });
  const samples: Sample[] = [
    one('bot_users', src.users()),
    one('bot_service_requests_total', c.requests),
    ...Object.entries(c.failures).map(([kind, value]): Sample => ({ name: 'bot_service_failures_total', value, labels: { kind } })),
    one('bot_service_429_total', c.failures.rate_limited),
    ...Object.entries(c.rejectedItems ?? {}).map(([reason, value]): Sample => ({ name: 'bot_items_rejected_total', value, labels: { reason } })),
    one('bot_resident_memory_bytes', process.memoryUsage.rss()),
    one('bot_heap_used_bytes', heap.used_heap_size),
    one('bot_heap_limit_bytes', heap.heap_size_limit),
  ];
  if (src.scheduler) {
    const s = src.scheduler.stats();
    samples.push(
      one('bot_subscriptions', s.subscriptions),
      one('bot_reads_total', s.reads),
      one('bot_read_errors_total', s.errors),
      one('bot_scheduling_lag_p99_ms', s.lagMsP99),
      one('bot_poll_interval_stretch', s.loadFactor),
    );
  }
  if (src.notifier) {
    const n = src.notifier.stats();
    samples.push(one('bot_alerts_sent_total', n.alerts), one('bot_alert_edits_total', n.edits));
  }
  if (src.outbox) {
    const o = src.outbox.stats;
    samples.push(
      one('bot_telegram_sent_total', o.sent),
      one('bot_telegram_edited_total', o.edited),
      one('bot_telegram_gave_up_total', o.gaveUp),
      one('bot_telegram_429_total', o.rateLimited),
      one('bot_outbox_depth', src.outbox.depth),
    );
  }
  if (src.webhook) {
    const w = src.webhook();
    samples.push(one('bot_webhook_updates_total', w.accepted));
    for (const [reason, value] of Object.entries(w.refused)) {
      samples.push({ name: 'bot_webhook_refused_total', value, labels: { reason } });
    }
  }
  return samples;
}
