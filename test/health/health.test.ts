import { afterEach, describe, expect, it } from 'vitest';
import { renderPrometheus } from '../../src/health/metrics.js';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';

describe('Prometheus text', () => {
  it('groups samples under one HELP and TYPE and escapes label values', () => {
    const text = renderPrometheus([
      { name: 'bot_reads_total', help: 'Item reads', type: 'counter', value: 3, labels: { service: 'arbs_live' } },
      { name: 'bot_reads_total', help: 'Item reads', type: 'counter', value: 4, labels: { service: 'a"b\\c' } },
      { name: 'bot_outbox_depth', help: 'Queued sends', type: 'gauge', value: 0 },
    ]);
    expect(text).toBe(
      [
        '# HELP bot_reads_total Item reads',
        '# TYPE bot_reads_total counter',
        'bot_reads_total{service="arbs_live"} 3',
        'bot_reads_total{service="a\\"b\\\\c"} 4',
        '# HELP bot_outbox_depth Queued sends',
        '# TYPE bot_outbox_depth gauge',
        'bot_outbox_depth 0',
        '',
      ].join('\n'),
    );
  });

  it('refuses a name Prometheus would reject', () => {
    expect(() => renderPrometheus([{ name: 'bad-name', help: '', type: 'gauge', value: 1 }])).toThrow(/bad-name/);
  });
});

describe('health server', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers /healthz 200 when every check passes and 503 naming the failing one otherwise', async () => {
    let ticking = true;
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: [
        { name: 'telegram', check: () => true },
        { name: 'scheduler', check: () => ticking },
        { name: 'store', check: async () => true },
      ],
      metrics: () => [{ name: 'bot_users', help: 'Users', type: 'gauge', value: 2 }],
    });
    const base = `http://127.0.0.1:${server.port}`;
    let res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, checks: { telegram: true, scheduler: true, store: true } });

    ticking = false;
    res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ok: false, checks: { telegram: true, scheduler: false, store: true } });

    res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('bot_users 2');

    res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
  });

  it('counts a throwing check as unhealthy instead of failing the request', async () => {
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: [{ name: 'store', check: () => { throw new Error('disk full'); } }],
      metrics: () => [],
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ok: false, checks: { store: false } });
  });
});
