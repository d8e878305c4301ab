import { afterEach, describe, expect, it } from 'vitest';
import { SlidingWindowLimit } from '../../src/sandbox/limits.js';
import { SERVICES } from '../../src/service/services.js';
import { Harness, call, hostOf, requestToken, tokenFor, writeFilter } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

const OTHER = { accessKey: 'other-key', secret: 'other-secret-0001' };

describe('SlidingWindowLimit', () => {
  it('counts a use while now < t + window and says when the oldest leaves', () => {
    const l = new SlidingWindowLimit(2, 1000);
    expect(l.take('s', 0)).toEqual({ ok: true });
    expect(l.take('s', 400)).toEqual({ ok: true });
    expect(l.take('s', 999)).toEqual({ ok: false, retryAfterMs: 1 });
    expect(l.take('other', 999)).toEqual({ ok: true });
    expect(l.take('s', 1000)).toEqual({ ok: true });
    expect(l.take('s', 1200)).toEqual({ ok: false, retryAfterMs: 200 });
    expect(l.used('s', 1400)).toBe(1);
  });
});

describe('sandbox limits', () => {
  it('item reads: the 31st in a minute is a 429 with Retry-After and a JSON body; refused reads are not uses; the window slides', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_live');
    const host = hostOf(sb, 'arbs_live');
    const urls = [
      `${host}/v1/users/bb-demo-key/filter/items`,
      `${host}/v1/users/bb-demo-key/filter/events/1/items`,
      `${host}/v1/users/bb-demo-key/items/unknown`,
    ];
    for (let i = 0; i < 27; i++) await call(urls[i % 3] as string, token);
    await h.clock.advance(30_000);
    for (let i = 0; i < 3; i++) expect((await call(`${host}/filters/bb-demo-key/items`, token, { method: 'POST' })).status).toBe(200);
    const refused = await call(urls[0] as string, token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toMatchObject({ status: 429, retry_after: 30, error: expect.stringContaining('rate limit') });
    const c = sb.counters();
    expect(c.breaches).toBe(1);
    expect(c.breachLog).toEqual([{ at: h.clock.now(), route: 'items', scope: 'items|/arbs-live|key:demo-key' }]);
    expect(c.byKeyHost['demo-key|/arbs-live|items']).toBe(30);
    // The read log holds the 30 admitted reads, not the refused one, with their time and address.
    expect(c.readLog).toHaveLength(30);
    expect(c.readLog[0]).toEqual({ at: expect.any(Number), accessKey: 'demo-key', base: '/arbs-live', address: '127.0.0.1' });
    expect([c.readLog[0]?.at, c.readLog.at(-1)?.at]).toEqual([h.clock.now() - 30_000, h.clock.now()]);
    expect(c.status['429']).toBe(1);
    // Other hosts, even of the same kind, count separately.
    expect((await call(`${hostOf(sb, 'arbs_prematch')}/filters/bb-demo-key/items`, await tokenFor(sb, 'arbs_prematch'), { method: 'POST' })).status).toBe(200);
    // Just before the first 27 leave the window: still refused, and Retry-After shrinks.
    await h.clock.advance(29_000);
    const stillRefused = await call(urls[0] as string, token);
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');
    await h.clock.advance(1_000);
    for (let i = 0; i < 27; i++) expect((await call(urls[0] as string, token)).status).toBe(200);
    expect((await call(urls[0] as string, token)).status).toBe(429);
    expect(sb.counters().breaches).toBe(3);
  });

  it('tokens: 20 per hour per key across services, the 21st refused; another key has its own budget', async () => {
    const sb = await h.start({ keys: [{ accessKey: 'demo-key', secret: 'demo-secret-0123456789' }, OTHER] });
    for (let i = 0; i < 20; i++) {
      expect((await requestToken(sb, SERVICES[i % SERVICES.length] as string)).status).toBe(200);
      await h.clock.advance(60_000);
    }
    const refused = await requestToken(sb, 'arbs_live');
    expect(refused.status).toBe(429);
    // The first token was taken 20 minutes ago: it leaves the window in 40 minutes.
    expect(refused.headers.get('retry-after')).toBe(String(40 * 60));
    expect((await requestToken(sb, 'arbs_live', OTHER)).status).toBe(200);
    const c = sb.counters();
    expect(c.breaches).toBe(1);
    expect(c.breachLog[0]?.scope).toBe('tokens|key:demo-key');
    // Rotation across services shows in the counters.
    expect(c.byKeyHost['demo-key|/arbs-prematch|token']).toBe(4);
    expect(c.byKeyHost['demo-key|/valuebets-live|token']).toBe(3);
    await h.clock.advance(40 * 60_000);
    expect((await requestToken(sb, 'arbs_live')).status).toBe(200);
  });

  it('filter writes: 20 per hour per key and host', async () => {
    const sb = await h.start({ limits: { filtersPerHour: 3 } });
    const token = await tokenFor(sb, 'middles_prematch');
    for (let i = 0; i < 3; i++) expect((await writeFilter(sb, 'middles_prematch', token, { min: i })).status).toBe(200);
    const refused = await call(`${hostOf(sb, 'middles_prematch')}/v1/users/demo-key/filter`, token, { method: 'PUT', body: { min: 9 } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(3600);
    expect(sb.counters().breachLog[0]).toMatchObject({ route: 'filter', scope: 'filters|/middles-prematch|key:demo-key' });
    // The refused write did not replace the filter.
    const env = (await (await call(`${hostOf(sb, 'middles_prematch')}/v1/users/demo-key/filter/items`, token)).json()) as { items: { value: number }[] };
    expect(env.items.every((i) => i.value >= 2)).toBe(true);
    const live = await tokenFor(sb, 'middles_live');
    expect((await writeFilter(sb, 'middles_live', live, { min: 1 })).status).toBe(200);
  });

  it('dictionaries: per address per day', async () => {
    const sb = await h.start({ limits: { dictsPerDay: 2 } });
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v1`)).status).toBe(200);
    await h.clock.advance(3_600_000);
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v1/ru`)).status).toBe(200);
    const refused = await fetch(`${sb.urls.BB_DICTS_URL}/v1/en`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(23 * 3600));
    expect(sb.counters().breachLog[0]).toMatchObject({ route: 'dicts', scope: 'dicts|addr:127.0.0.1' });
    expect(sb.counters().byKeyHost['127.0.0.1|/dicts|dicts']).toBe(2);
    await h.clock.advance(23 * 3_600_000);
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v1/en`)).status).toBe(200);
  });

  it("scope 'key' gives each key its own read budget; scope 'address' makes keys on one address share it", async () => {
    for (const scope of ['key', 'address'] as const) {
      const sb = await h.start({ limits: { itemsPerMinute: 5, tokensPerHour: 3, scope }, keys: [{ accessKey: 'demo-key', secret: 'demo-secret-0123456789' }, OTHER] });
      const t1 = await tokenFor(sb, 'arbs_live');
      const t2 = await tokenFor(sb, 'arbs_live', OTHER);
      for (let i = 0; i < 5; i++) expect((await call(`${hostOf(sb, 'arbs_live')}/v1/users/demo-key/filter/items`, t1)).status).toBe(200);
      const second = await call(`${hostOf(sb, 'arbs_live')}/v1/users/other-key/filter/items`, t2);
      expect(second.status, scope).toBe(scope === 'key' ? 200 : 429);
      // Tokens: 3 per hour per key, or per address.
      expect((await requestToken(sb, 'arbs_live', OTHER)).status).toBe(200);
      expect((await requestToken(sb, 'arbs_live', OTHER)).status, scope).toBe(scope === 'key' ? 200 : 429);
      const breach = sb.counters().breachLog[0];
      if (scope === 'address') expect(breach?.scope).toBe('items|/arbs-live|addr:127.0.0.1');
      else expect(sb.counters().breaches).toBe(0);
    }
  });
  it("tokenScope 'key' under scope 'address': reads share the address's budget, tokens stay per key (the real token endpoint)", async () => {
    const sb = await h.start({
      limits: { itemsPerMinute: 5, tokensPerHour: 2, scope: 'address', tokenScope: 'key' },
      keys: [{ accessKey: 'demo-key', secret: 'demo-secret-0123456789' }, OTHER],
    });
    const t1 = await tokenFor(sb, 'arbs_live');
    expect((await requestToken(sb, 'arbs_live')).status).toBe(200);
    // demo-key has spent its 2; OTHER, on the same address, still has its own.
    expect((await requestToken(sb, 'arbs_live')).status).toBe(429);
    const t2 = await tokenFor(sb, 'arbs_live', OTHER);
    for (let i = 0; i < 5; i++) expect((await call(`${hostOf(sb, 'arbs_live')}/v1/users/demo-key/filter/items`, t1)).status).toBe(200);
    expect((await call(`${hostOf(sb, 'arbs_live')}/v1/users/other-key/filter/items`, t2)).status).toBe(429);
    expect(sb.counters().breachLog.map((b) => b.scope)).toEqual(['tokens|key:demo-key', 'items|/arbs-live|addr:127.0.0.1']);
  });
});
