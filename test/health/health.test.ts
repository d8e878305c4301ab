import { describe, expect, it } from 'vitest';
import { stopAfterEach } from '../support/teardown.js';
import { createBotMetrics } from '../../src/health/metrics.js';
import { startHealthServer } from '../../src/health/server.js';

describe('health server', () => {
  const stopAfter = stopAfterEach();

  it('answers /healthz 200 when every check passes and 503 naming the failing one otherwise', async () => {
    let ticking = true;
    const server = stopAfter(await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: [
        { name: 'telegram', check: () => true },
        { name: 'scheduler', check: () => ticking },
        { name: 'store', check: async () => true },
      ],
      metrics: { render: async () => 'bot_users 2\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' },
    }));
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

  it('counts a throwing check as unhealthy instead of failing the request, and says what it threw', async () => {
    const server = stopAfter(await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: [{ name: 'store', check: () => { throw new Error('disk full'); } }],
      metrics: createBotMetrics(),
    }));
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ok: false, checks: { store: false }, reasons: { store: 'the check failed: disk full' } });
  });

  it('a reason that throws still answers, naming what it threw; a check\'s own reason wins over what it threw', async () => {
    const server = stopAfter(await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: [
        { name: 'store', check: () => false, reason: () => { throw new Error('EACCES: permission denied, scandir /data'); } },
        { name: 'scheduler', check: async () => { throw new Error('tick failed'); }, reason: () => 'no tick for 90 s' },
        { name: 'telegram', check: () => true, reason: () => { throw new Error('never asked'); } },
      ],
      metrics: createBotMetrics(),
    }));
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      ok: false,
      checks: { store: false, scheduler: false, telegram: true },
      reasons: { store: 'its reason could not be told: EACCES: permission denied, scandir /data', scheduler: 'no tick for 90 s' },
    });
  });
});
