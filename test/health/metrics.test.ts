/**
 * /metrics through prom-client: default process and event-loop metrics, the bot's counters
 * under their old names, and the three histograms with their observation points in the outbox
 * and the notifier.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { LAST_TOKEN_GUARD_MS } from '../../src/outbox/chat-bucket.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { createBotMetrics } from '../../src/health/metrics.js';
import type { MetricSources } from '../../src/health/collect.js';
import { silentLogger } from '../../src/logger.js';
import { ScriptedApi, run, settle } from '../outbox/helpers.js';

function sources(over: Partial<{ reads: number; rateLimited: number }> = {}): MetricSources {
  return {
    users: () => 3,
    scheduler: {
      stats: () => ({ subscriptions: 2, reads: over.reads ?? 7, errors: 1, lagMsP99: 12, loadFactor: 1 }) as ReturnType<NonNullable<MetricSources['scheduler']>['stats']>,
    },
    notifier: { stats: () => ({ alerts: 4, edits: 2 }) as ReturnType<NonNullable<MetricSources['notifier']>['stats']> },
    outbox: { depth: 0, stats: { sent: 5, edited: 2, gaveUp: 0 } as NonNullable<MetricSources['outbox']>['stats'] },
    client: {
      stats: () => ({
        requests: 9,
        failures: { auth: 0, forbidden: 0, rate_limited: over.rateLimited ?? 1, not_found: 0, server: 0, timeout: 0, malformed: 0 },
        rejectedItems: { non_finite: 2 },
      }),
    },
  };
}

describe('metrics', () => {
  it('serves the default process and event-loop metrics beside the bot counters under their old names', async () => {
    const metrics = createBotMetrics();
    metrics.attach(sources());
    const text = await metrics.render();
    expect(metrics.contentType).toContain('text/plain');
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'));
    }
    expect(text).toContain('# TYPE bot_reads_total counter');
    expect(text).toMatch(/^bot_reads_total 7$/m);
    expect(text).toMatch(/^bot_users 3$/m);
    expect(text).toMatch(/^bot_service_failures_total\{kind="rate_limited"\} 1$/m);
    expect(text).toMatch(/^bot_items_rejected_total\{reason="non_finite"\} 2$/m);
    expect(text).toMatch(/^bot_service_429_total 1$/m);
  });

  it('copies the running totals at each scrape', async () => {
    let reads = 7;
    const metrics = createBotMetrics();
    const src = sources();
    metrics.attach({ ...src, scheduler: { stats: () => ({ ...src.scheduler!.stats(), reads }) } });
    expect(await metrics.render()).toMatch(/^bot_reads_total 7$/m);
    reads = 10;
    expect(await metrics.render()).toMatch(/^bot_reads_total 10$/m);
  });

  it('serves what a cluster role has: a front without scheduler and notifier, a worker without outbox', async () => {
    const { scheduler, notifier, ...front } = sources();
    const metrics = createBotMetrics();
    metrics.attach(front);
    const text = await metrics.render();
    expect(text).toMatch(/^bot_telegram_sent_total 5$/m);
    expect(text).toMatch(/^bot_users 3$/m);
    expect(text).toMatch(/^bot_reads_total 0$/m);

    const { outbox, ...worker } = sources();
    metrics.attach(worker);
    const text2 = await metrics.render();
    expect(text2).toMatch(/^bot_reads_total 7$/m);
    expect(text2).toMatch(/^bot_alerts_sent_total 4$/m);
    expect(text2).toMatch(/^bot_telegram_sent_total 0$/m);
    expect([scheduler, notifier, outbox].every(Boolean)).toBe(true);
  });

  it('turns the observation points into histograms in seconds', async () => {
    const metrics = createBotMetrics();
    metrics.port.readDuration(120);
    metrics.port.outboxWait(1500);
    metrics.port.alertLatency(2500);
    metrics.port.alertLatency(500);
    const text = await metrics.render();
    expect(text).toMatch(/^bot_read_duration_seconds_count 1$/m);
    expect(text).toMatch(/^bot_read_duration_seconds_sum 0\.12$/m);
    expect(text).toMatch(/^bot_read_duration_seconds_bucket\{le="0\.25"\} 1$/m);
    expect(text).toMatch(/^bot_outbox_wait_seconds_sum 1\.5$/m);
    expect(text).toMatch(/^bot_alert_latency_seconds_count 2$/m);
    expect(text).toMatch(/^bot_alert_latency_seconds_bucket\{le="1"\} 1$/m);
  });

  it('the outbox reports each new message\'s queue wait once, not per retry or part', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const api = new ScriptedApi(clock);
    const waits: number[] = [];
    const outbox = new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, metrics: { outboxWait: (ms) => waits.push(ms) } });
    outbox.start();
    try {
      // One private chat takes a burst of three, then one message a second: the fourth waits about a second.
      const sent = ['first', 'second', 'third', 'fourth'].map((text) => outbox.send(101, text));
      for (let i = 0; i < 5; i++) await run(clock, 500);
      await Promise.all(sent);
      await settle();
      expect(waits).toHaveLength(4);
      // The third takes the last token after its guard (chat-bucket.ts).
      expect(waits.slice(0, 3)).toEqual([0, 0, LAST_TOKEN_GUARD_MS]);
      expect(waits[3]).toBeGreaterThanOrEqual(900);
    } finally {
      outbox.stop();
    }
  });
});
