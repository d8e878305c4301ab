import { afterEach, describe, expect, it } from 'vitest';
import type { WireEnvelope } from '../../src/sandbox/index.js';
import { SERVICES } from '../../src/service/services.js';
import { Harness, call, hostOf, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

describe('sandbox routes', () => {
  it('serves the URLs of every host under one origin', async () => {
    const sb = await h.start();
    expect(sb.origin).toBe(`http://127.0.0.1:${sb.port}`);
    expect(sb.urls).toEqual({
      BB_AUTH_URL: `${sb.origin}/auth`,
      BB_DICTS_URL: `${sb.origin}/dicts`,
      BB_ARBS_PREMATCH_URL: `${sb.origin}/arbs-prematch`,
      BB_ARBS_LIVE_URL: `${sb.origin}/arbs-live`,
      BB_MIDDLES_PREMATCH_URL: `${sb.origin}/middles-prematch`,
      BB_MIDDLES_LIVE_URL: `${sb.origin}/middles-live`,
      BB_VALUEBETS_PREMATCH_URL: `${sb.origin}/valuebets-prematch`,
      BB_VALUEBETS_LIVE_URL: `${sb.origin}/valuebets-live`,
    });
  });

  for (const account of ['bb-demo-key', 'demo-key']) {
    it(`answers every endpoint of both forms on every host with account "${account}"`, async () => {
      const sb = await h.start({ limits: { itemsPerMinute: 100 } });
      for (const service of SERVICES) {
        const host = hostOf(sb, service);
        const token = await tokenFor(sb, service);
        // Form A
        const writeA = await call(`${host}/filters/${account}`, token, { method: 'POST', body: { min: -100 } });
        expect(writeA.status, `${service} form A filter`).toBe(200);
        expect(await writeA.json()).toEqual({ ok: true, filter: { min: -100 } });
        const listA = await call(`${host}/filters/${account}/items`, token, { method: 'POST', body: {} });
        expect(listA.status).toBe(200);
        const envA = (await listA.json()) as WireEnvelope;
        expect(envA.items.length).toBeGreaterThan(0);
        // Form B
        expect((await call(`${host}/v1/users/${account}/filter`, token, { method: 'POST', body: { min: -100 } })).status).toBe(200);
        expect((await call(`${host}/v1/users/${account}/filter`, token, { method: 'PUT', body: { min: -100 } })).status).toBe(200);
        const listB = await call(`${host}/v1/users/${account}/filter/items`, token);
        expect(listB.status).toBe(200);
        const envB = (await listB.json()) as WireEnvelope;
        expect(envB.items.map((i) => i.id).sort()).toEqual(envA.items.map((i) => i.id).sort());
        const first = envB.items[0];
        if (!first) throw new Error('no items');
        const perEvent = await call(`${host}/v1/users/${account}/filter/events/${first.event_id}/items`, token);
        expect(perEvent.status).toBe(200);
        const envE = (await perEvent.json()) as WireEnvelope;
        expect(envE.items.length).toBeGreaterThan(0);
        expect(envE.items.every((i) => i.event_id === first.event_id)).toBe(true);
        expect(envE.events.map((e) => e.id)).toEqual([first.event_id]);
        const byId = await call(`${host}/v1/users/${account}/items/${first.id}`, token);
        expect(byId.status).toBe(200);
        const envI = (await byId.json()) as WireEnvelope;
        expect(envI.items).toHaveLength(1);
        expect(envI.items[0]?.id).toBe(first.id);
        expect(envI.events[0]?.id).toBe(first.event_id);
      }
      const c = sb.counters();
      expect(c.requests).toMatchObject({ token: 6, filter: 18, items: 12, event_items: 6, item: 6 });
      expect(c.byKeyHost['demo-key|/valuebets-live|items']).toBe(4);
      expect(c.byKeyHost['demo-key|/valuebets-live|filter']).toBe(3);
      expect(c.status).toEqual({ '200': 48 });
    });
  }

  it('answers 404 with a JSON body for an unknown item id, and an empty list for an unknown event', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_live');
    const res = await call(`${hostOf(sb, 'arbs_live')}/v1/users/bb-demo-key/items/no-such-item`, token);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: expect.stringContaining('no-such-item'), status: 404 });
    const ev = await call(`${hostOf(sb, 'arbs_live')}/v1/users/bb-demo-key/filter/events/0/items`, token);
    expect(ev.status).toBe(200);
    expect(await ev.json()).toMatchObject({ filtered: 0, items: [], events: [] });
  });

  it('answers 404 for unknown routes and 405 (with Allow) for a wrong method', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_live');
    const host = hostOf(sb, 'arbs_live');
    for (const url of [`${sb.origin}/`, `${sb.origin}/nope`, `${host}/v2/users/bb-demo-key/filter/items`, `${host}/filters`, `${sb.urls.BB_AUTH_URL}/access_keys/demo-key`]) {
      const res = await call(url, token);
      expect(res.status, url).toBe(404);
      expect(await res.json()).toMatchObject({ status: 404 });
    }
    const getA = await call(`${host}/filters/bb-demo-key/items`, token);
    expect(getA.status).toBe(405);
    expect(getA.headers.get('allow')).toBe('POST');
    const deleteB = await call(`${host}/v1/users/bb-demo-key/filter`, token, { method: 'DELETE' });
    expect(deleteB.status).toBe(405);
    expect(deleteB.headers.get('allow')).toBe('POST, PUT');
    expect((await call(`${host}/v1/users/bb-demo-key/filter/items`, token, { method: 'POST', body: {} })).status).toBe(405);
    expect((await call(`${sb.urls.BB_AUTH_URL}/access_keys/demo-key/access_tokens`, undefined)).status).toBe(405);
    expect(sb.counters().requests.other).toBe(5);
  });

  it("accepts only 'bb-<key>' with accountPrefix 'bb-' and only the bare key with ''", async () => {
    const prefixed = await h.start({ accountPrefix: 'bb-' });
    const t1 = await tokenFor(prefixed, 'arbs_prematch');
    expect((await call(`${hostOf(prefixed, 'arbs_prematch')}/v1/users/bb-demo-key/filter/items`, t1)).status).toBe(200);
    expect((await call(`${hostOf(prefixed, 'arbs_prematch')}/v1/users/demo-key/filter/items`, t1)).status).toBe(403);
    const bare = await h.start({ accountPrefix: '' });
    const t2 = await tokenFor(bare, 'arbs_prematch');
    expect((await call(`${hostOf(bare, 'arbs_prematch')}/filters/demo-key/items`, t2, { method: 'POST' })).status).toBe(200);
    expect((await call(`${hostOf(bare, 'arbs_prematch')}/filters/bb-demo-key/items`, t2, { method: 'POST' })).status).toBe(403);
  });

  it('keeps one filter per key and host, shared by both forms', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_prematch');
    const host = hostOf(sb, 'arbs_prematch');
    expect((await call(`${host}/v1/users/demo-key/filter`, token, { method: 'PUT', body: { min: 1000 } })).status).toBe(200);
    const viaA = (await (await call(`${host}/filters/bb-demo-key/items`, token, { method: 'POST' })).json()) as WireEnvelope;
    expect(viaA.items).toEqual([]);
    // The other host of the same kind keeps its own (none yet).
    const liveToken = await tokenFor(sb, 'arbs_live');
    const live = (await (await call(`${hostOf(sb, 'arbs_live')}/filters/bb-demo-key/items`, liveToken, { method: 'POST' })).json()) as WireEnvelope;
    expect(live.items.length).toBeGreaterThan(0);
  });
});
