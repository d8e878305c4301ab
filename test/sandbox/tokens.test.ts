import { afterEach, describe, expect, it } from 'vitest';
import { Harness, call, hostOf, readItems, requestToken, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

describe('sandbox tokens', () => {
  it('issues {access_token, expires_in} for the demo key pair, expires_in from tokenTtlMs', async () => {
    const sb = await h.start({ tokenTtlMs: 120_000 });
    expect(sb.demoKey).toEqual({ accessKey: 'demo-key', secret: 'demo-secret-0123456789' });
    const res = await requestToken(sb, 'arbs_live');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    expect(body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(body.expires_in).toBe(120);
    expect(sb.counters().byKeyHost['demo-key|/arbs-live|token']).toBe(1);
  });

  it('answers 401 for an unknown key, a wrong secret or a missing ApiKey header, with a JSON error', async () => {
    const sb = await h.start();
    const unknown = await requestToken(sb, 'arbs_live', { accessKey: 'nobody', secret: 'demo-secret-0123456789' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: expect.any(String), status: 401 });
    const wrong = await requestToken(sb, 'arbs_live', { accessKey: 'demo-key', secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    const bearer = await requestToken(sb, 'arbs_live', sb.demoKey, { headers: { Authorization: 'Bearer demo-secret-0123456789' } });
    expect(bearer.status).toBe(401);
    // No error text echoes the secret.
    for (const r of [unknown, wrong, bearer]) expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(JSON.stringify(await wrong.text())).not.toContain('not-the-secret');
  });

  it('answers 400 for a wrong Content-Type, a non-JSON body or an unknown service', async () => {
    const sb = await h.start();
    const ct = await requestToken(sb, 'arbs_live', sb.demoKey, { headers: { 'Content-Type': 'text/plain' } });
    expect(ct.status).toBe(400);
    const notJson = await requestToken(sb, 'arbs_live', sb.demoKey, { body: 'service=arbs_live' });
    expect(notJson.status).toBe(400);
    const unknownService = await requestToken(sb, 'surebets_live');
    expect(unknownService.status).toBe(400);
    const noField = await requestToken(sb, 'x', sb.demoKey, { body: '{}' });
    expect(noField.status).toBe(400);
    // A bad request is not a use of the token limit.
    expect(sb.counters().byKeyHost).toEqual({});
  });

  it('answers 403 for a service outside the key’s services and for a revoked key', async () => {
    const sb = await h.start({ keys: [{ accessKey: 'k1', secret: 'secret-one-1234', services: ['arbs_prematch'] }] });
    expect((await requestToken(sb, 'arbs_prematch')).status).toBe(200);
    const other = await requestToken(sb, 'valuebets_live');
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: string }).error).toMatch(/valuebets_live/);
    sb.setFaults({ revokedKeys: ['k1'] });
    expect((await requestToken(sb, 'arbs_prematch')).status).toBe(403);
  });

  it('lets a token expire on the injected clock: 200 just before the TTL, 401 at it', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'arbs_prematch');
    await h.clock.advance(299_999);
    expect((await readItems(sb, 'arbs_prematch', token)).items.length).toBeGreaterThan(0);
    await h.clock.advance(1);
    const res = await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/demo-key/filter/items`, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 401 });
    // A new token works again.
    const fresh = await tokenFor(sb, 'arbs_prematch');
    expect((await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/demo-key/filter/items`, fresh)).status).toBe(200);
  });

  it('accepts a token only on its own service’s host and for its own key', async () => {
    const sb = await h.start();
    sb.addKey({ accessKey: 'other', secret: 'other-secret-999' });
    const token = await tokenFor(sb, 'arbs_prematch');
    expect((await call(`${hostOf(sb, 'arbs_live')}/v1/users/bb-demo-key/filter/items`, token)).status).toBe(401);
    expect((await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/bb-demo-key/filter/items`, undefined)).status).toBe(401);
    expect((await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/bb-demo-key/filter/items`, 'made-up-token')).status).toBe(401);
    // The path's account must be the token's key.
    const forbidden = await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/bb-other/filter/items`, token);
    expect(forbidden.status).toBe(403);
    const otherToken = await tokenFor(sb, 'arbs_prematch', { accessKey: 'other', secret: 'other-secret-999' });
    expect((await call(`${hostOf(sb, 'arbs_prematch')}/v1/users/bb-other/filter/items`, otherToken)).status).toBe(200);
  });

  it('refuses data calls of a revoked key with 403 even with a token issued before', async () => {
    const sb = await h.start();
    const token = await tokenFor(sb, 'middles_live');
    sb.setFaults({ revokedKeys: ['demo-key'] });
    expect((await call(`${hostOf(sb, 'middles_live')}/filters/bb-demo-key/items`, token, { method: 'POST' })).status).toBe(403);
    expect((await call(`${hostOf(sb, 'middles_live')}/filters/bb-demo-key`, token, { method: 'POST', body: {} })).status).toBe(403);
    sb.setFaults({});
    expect((await call(`${hostOf(sb, 'middles_live')}/filters/bb-demo-key/items`, token, { method: 'POST' })).status).toBe(200);
  });
});
