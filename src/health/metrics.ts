/**
 * The operator's /metrics through prom-client: its default process and event-loop metrics, the
 * bot's own counters and gauges (read from the parts that own them at scrape time), and
 * histograms of read duration, outbox wait and alert latency fed through a `MetricsPort`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { collectSamples, type MetricSources, type Sample } from './collect.js';
import type { MetricsPort } from './observe.js';

export interface BotMetrics {
  /** Hand this to the scheduler's client wrapper, the outbox and the notifier. */
  readonly port: MetricsPort;
  /** Connects the counters and gauges to their sources (once the parts exist). */
  attach(sources: MetricSources): void;
  /** The exposition text. */
  render(): Promise<string>;
  readonly contentType: string;
}

// Seconds. Reads answer in tens of milliseconds to the service's timeout; alerts should reach
// Telegram within seconds, and a backlog shows as the upper buckets.
const READ_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/**
 * ms between the event-loop delay samples behind `nodejs_eventloop_lag_p50_seconds` and the rest.
 * prom-client's default, 10 ms, wakes the loop 100 times a second: 0.5 s of CPU a minute in an
 * idle process, most of what an idle front or worker spent, and paid again by each process of a
 * cluster. At 100 ms it costs a tenth; a stall still shows, sampled in proportion to its length.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createBotMetrics(): BotMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  let sources: MetricSources | undefined;
  // The sources are read once per scrape, not once per metric.
  let snapshot: Map<string, Sample[]> | undefined;
  const current = (name: string): Sample[] => {
    if (!sources) return [];
    snapshot ??= groupByName(collectSamples(sources));
    return snapshot.get(name) ?? [];
  };

  const readDuration = new Histogram({
    name: 'bot_read_duration_seconds',
    help: 'How long one item read of one subscription took, failures included',
    buckets: READ_BUCKETS,
    registers: [registry],
  });
  const outboxWait = new Histogram({
    name: 'bot_outbox_wait_seconds',
    help: 'How long a new message waited in the outbox before its first call to Telegram',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const alertLatency = new Histogram({
    name: 'bot_alert_latency_seconds',
    help: 'From the first read that saw an item to its alert delivered to Telegram',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });

  // Two blocks of one shape on purpose: prom-client types `this` in collect() per class, and a
  // counter is written with inc, a gauge with set.
  for (const def of SAMPLE_DEFS) {
    const labelNames = def.labels ? [...def.labels] : [];
    if (def.type === 'counter') {
      new Counter({
        name: def.name,
        help: def.help,
        labelNames,
        registers: [registry],
        collect() {
          // The owners keep running totals; a scrape copies them.
          this.reset();
          for (const s of current(def.name)) {
            if (s.labels) this.inc(s.labels, s.value);
            else this.inc(s.value);
          }
        },
      });
    } else {
      new Gauge({
        name: def.name,
        help: def.help,
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          for (const s of current(def.name)) {
            if (s.labels) this.set(s.labels, s.value);
            else this.set(s.value);
          }
        },
      });
    }
  }

  const seconds = (ms: number) => Math.max(0, ms) / 1000;
  return {
    port: {
      readDuration: (ms) => readDuration.observe(seconds(ms)),
      outboxWait: (ms) => outboxWait.observe(seconds(ms)),
      alertLatency: (ms) => alertLatency.observe(seconds(ms)),
    },
    attach(s) {
      sources = s;
    },
    async render() {
      snapshot = undefined;
      try {
        return await registry.metrics();
      } finally {
        snapshot = undefined;
      }
    },
    contentType: registry.contentType,
  };
}

function groupByName(samples: readonly Sample[]): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const s of samples) {
    const list = out.get(s.name) ?? [];
    list.push(s);
    out.set(s.name, list);
  }
  return out;
}

interface SampleDef {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  labels?: readonly string[];
}

/** Every bot metric by name, with its help text; `collectSamples` gives their values. docs/operating.md lists them. */
export const SAMPLE_DEFS: readonly SampleDef[] = [
  { name: 'bot_users', help: 'Users the bot knows', type: 'gauge' },
  { name: 'bot_subscriptions', help: 'Active subscriptions (a key and a service) being polled', type: 'gauge' },
  { name: 'bot_reads_total', help: 'Successful item reads', type: 'counter' },
  { name: 'bot_read_errors_total', help: 'Failed item reads', type: 'counter' },
  { name: 'bot_service_requests_total', help: 'Data API requests sent', type: 'counter' },
  {
    name: 'bot_service_failures_total',
    help: 'Failed Data API requests by error kind (rate_limited counts 429s)',
    type: 'counter',
    labels: ['kind'],
  },
  { name: 'bot_service_429_total', help: 'Answers 429 from the Data Service', type: 'counter' },
  {
    name: 'bot_items_rejected_total',
    help: 'Items from the Data Service kept out as unusable, by reason (non_finite, wrong_type, bad_legs, no_event), on every read that met them',
    type: 'counter',
    labels: ['reason'],
  },
  { name: 'bot_alerts_sent_total', help: 'New alerts handed to the outbox', type: 'counter' },
  { name: 'bot_alert_edits_total', help: 'Alert edits (moved, gone) handed to the outbox', type: 'counter' },
  { name: 'bot_telegram_sent_total', help: 'Messages sent to Telegram', type: 'counter' },
  { name: 'bot_telegram_edited_total', help: 'Messages edited on Telegram', type: 'counter' },
  { name: 'bot_telegram_gave_up_total', help: 'Sends given up after bounded retries', type: 'counter' },
  { name: 'bot_telegram_429_total', help: 'Answers 429 from Telegram (outbox sends and command replies)', type: 'counter' },
  { name: 'bot_outbox_depth', help: 'Sends and edits waiting in the outbox', type: 'gauge' },
  {
    name: 'bot_scheduling_lag_p99_ms',
    help: 'How late subscriptions were taken from the queue, 99th percentile (ms)',
    type: 'gauge',
  },
  {
    name: 'bot_poll_interval_stretch',
    help: 'How much every poll interval is stretched because the bot cannot keep up (1 when it can)',
    type: 'gauge',
  },
  { name: 'bot_resident_memory_bytes', help: 'Resident memory of the bot process', type: 'gauge' },
  { name: 'bot_heap_used_bytes', help: 'JavaScript heap in use, garbage not yet collected included', type: 'gauge' },
  {
    name: 'bot_heap_limit_bytes',
    help: 'The heap ceiling (--max-old-space-size): a heap used near it after collections means the bot needs more',
    type: 'gauge',
  },
  { name: 'bot_webhook_updates_total', help: 'Updates Telegram posted to the webhook and the bot accepted', type: 'counter' },
  {
    name: 'bot_webhook_refused_total',
    help: 'Webhook posts refused: a wrong secret (reason="secret"), a replayed update_id ("replay") or a bad body ("body")',
    type: 'counter',
    labels: ['reason'],
  },
];
