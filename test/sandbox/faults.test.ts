import { afterEach, describe, expect, it } from 'vitest';
import { Harness, call, hostOf, requestToken, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

describe('sandbox faults', () => {
  it('errorRate 1 answers 500 with a JSON body on data and dictionary calls, and the read still counts', async () => {
    const sb = await h.start({ limits: { itemsPerMinute: 2 } });
    const token = await tokenFor(sb, 'arbs_live');
    sb.setFaults({ errorRate: 1 });
    const url = `${hostOf(sb, 'arbs_live')}/v1/users/bb-demo-key/filter/items`;
    const res = await call(url, token);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: expect.any(String), status: 500 });
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v1`)).status).toBe(500);
    // Token requests are not hit by errorRate.
    expect((await requestToken(sb, 'arbs_live')).status).toBe(200);
    sb.setFaults({});
    expect((await call(url, token)).status).toBe(200);
    expect((await call(url, token)).status).toBe(429);
    expect(sb.counters().status).toMatchObject({ '500': 2, '200': 3, '429': 1 });
  });

  it('an errorRate between 0 and 1 hits about that share, the same requests for the same seed', async () => {
    const runs: number[][] = [];
    for (let run = 0; run < 2; run++) {
      const sb = await h.start({ seed: 5, limits: { itemsPerMinute: 1000 }, faults: { errorRate: 0.3 } });
      const token = await tokenFor(sb, 'valuebets_prematch');
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await call(`${hostOf(sb, 'valuebets_prematch')}/filters/demo-key/items`, token, { method: 'POST' })).status);
      runs.push(statuses);
    }
    const errors = runs[0]?.filter((s) => s === 500).length ?? 0;
    expect(errors).toBeGreaterThan(8);
    expect(errors).toBeLessThan(30);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('timeoutRate 1 never answers: the client gives up, and close() drops the held socket', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'middles_live');
    sb.setFaults({ timeoutRate: 1 });
    const started = Date.now();
    await expect(
      fetch(`${hostOf(sb, 'middles_live')}/v1/users/bb-demo-key/filter/items`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // Token requests can time out too.
    await expect(requestTokenWithTimeout(sb.urls.BB_AUTH_URL, 150)).rejects.toThrow();
    expect(sb.counters().status.timeout).toBe(2);
    // A request still held when the sandbox closes is dropped, not left hanging.
    const pending = fetch(`${hostOf(sb, 'middles_live')}/v1/users/bb-demo-key/filter/items`, { headers: { Authorization: `Bearer ${token}` } });
    await new Promise((r) => setTimeout(r, 50));
    await sb.close();
    await expect(pending).rejects.toThrow();
  });

  it('malformedRate 1 cuts 200 bodies short (still 200, JSON content type); errors stay well formed', async () => {
    const sb = await h.start({ faults: { malformedRate: 1 } });
    const res = await requestToken(sb, 'arbs_prematch');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const text = await res.text();
    expect(() => JSON.parse(text) as unknown).toThrow();
    const dicts = await fetch(`${sb.urls.BB_DICTS_URL}/v1/ru`);
    expect(dicts.status).toBe(200);
    const dictsText = await dicts.text();
    expect(dictsText.startsWith('{"lang":"ru"')).toBe(true);
    expect(() => JSON.parse(dictsText) as unknown).toThrow();
    const denied = await requestToken(sb, 'arbs_prematch', { accessKey: 'demo-key', secret: 'wrong-secret' });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ status: 401 });
  });

  it('latencyMs delays every answer by real time', async () => {
    const sb = await h.start({ faults: { latencyMs: 120 } });
    const started = performance.now();
    const res = await fetch(`${sb.urls.BB_DICTS_URL}/v1`);
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    sb.setFaults({});
    const quick = performance.now();
    expect((await fetch(`${sb.urls.BB_DICTS_URL}/v1`)).status).toBe(200);
    expect(performance.now() - quick).toBeLessThan(110);
  });

  it('revokedKeys refuses token requests and data calls with 403 until lifted', async () => {
    const sb = await h.start({ faults: { revokedKeys: ['demo-key'] } });
    const res = await requestToken(sb, 'arbs_live');
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: expect.stringContaining('revoked'), status: 403 });
    sb.setFaults({ revokedKeys: [] });
    expect((await requestToken(sb, 'arbs_live')).status).toBe(200);
  });
});

function requestTokenWithTimeout(authUrl: string, ms: number): Promise<Response> {
  return fetch(`${authUrl}/access_keys/demo-key/access_tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'ApiKey demo-secret-0123456789' },
    body: JSON.stringify({ service: 'arbs_live' }),
    signal: AbortSignal.timeout(ms),
  });
}
