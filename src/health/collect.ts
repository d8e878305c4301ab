/** Reads the numbers operators watch from the parts that own them, as named samples for /metrics. */
import { getHeapStatistics } from 'node:v8';
import type { OutboxStats } from '../alerts/outbox.js';
import type { ClientStats } from '../service/client.js';
import type { SchedulerStats } from '../scheduler/scheduler.js';
import type { NotifierStats } from '../scheduler/notifier.js';

export interface Sample {
  name: string;
  value: number;
  labels?: Record<string, string>;
}

export interface WebhookStats {
  accepted: number;
  refused: { secret: number; replay: number; body: number };
}

export interface MetricSources {
  users: () => number;
  scheduler: { stats(): SchedulerStats };
  notifier: { stats(): NotifierStats };
  outbox: { readonly depth: number; readonly stats: OutboxStats };
  client: { stats(): ClientStats };
  /** Present in webhook mode. */
  webhook?: () => WebhookStats;
}

export function collectSamples(src: MetricSources): Sample[] {
  const s = src.scheduler.stats();
  const n = src.notifier.stats();
  const o = src.outbox.stats;
  const c = src.client.stats();
  const heap = getHeapStatistics();
  const one = (name: string, value: number): Sample => ({ name, value });
  const samples: Sample[] = [
    one('bot_users', src.users()),
    one('bot_subscriptions', s.subscriptions),
    one('bot_reads_total', s.reads),
    one('bot_read_errors_total', s.errors),
    one('bot_service_requests_total', c.requests),
    ...Object.entries(c.failures).map(([kind, value]): Sample => ({ name: 'bot_service_failures_total', value, labels: { kind } })),
    one('bot_service_429_total', c.failures.rate_limited),
    one('bot_alerts_sent_total', n.alerts),
    one('bot_alert_edits_total', n.edits),
    one('bot_telegram_sent_total', o.sent),
    one('bot_telegram_edited_total', o.edited),
    one('bot_telegram_gave_up_total', o.gaveUp),
    one('bot_telegram_429_total', o.rateLimited),
    one('bot_outbox_depth', src.outbox.depth),
    one('bot_scheduling_lag_p99_ms', s.lagMsP99),
    one('bot_poll_interval_stretch', s.loadFactor),
    one('bot_resident_memory_bytes', process.memoryUsage.rss()),
    one('bot_heap_used_bytes', heap.used_heap_size),
    one('bot_heap_limit_bytes', heap.heap_size_limit),
  ];
  if (src.webhook) {
    const w = src.webhook();
    samples.push(one('bot_webhook_updates_total', w.accepted));
    for (const [reason, value] of Object.entries(w.refused)) {
      samples.push({ name: 'bot_webhook_refused_total', value, labels: { reason } });
    }
  }
  return samples;
}
