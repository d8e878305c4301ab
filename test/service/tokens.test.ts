import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import {
  DEFAULT_TOKEN_TTL_MS,
  dataAuthHeaders,
  jwtExpiry,
  parseTokenResponse,
} from '../../src/service/tokens.js';
import { arbsEnvelope, configFor, keyRef, sendJson, settle, startLocalServer, type LocalServer } from './helpers.js';

const NOW = Date.UTC(2026, 0, 3, 10, 0, 0);
const json = (body: unknown) => ({ status: 200, body, bodyIsJson: true });
const jwt = (claims: Record<string, unknown>) =>
  ['{"alg":"none"}', JSON.stringify(claims), 'sig'].map((p, i) => (i === 2 ? p : Buffer.from(p).toString('base64url'))).join('.');

describe('parseTokenResponse', () => {
  it('takes token or access_token, or a bare string', () => {
    expect(parseTokenResponse(json({ token: 't1' }), NOW, 'x').token).toBe('t1');
    expect(parseTokenResponse(json({ access_token: 't2', token_type: 'Bearer' }), NOW, 'x').token).toBe('t2');
    expect(parseTokenResponse(json('t3'), NOW, 'x').token).toBe('t3');
    expect(parseTokenResponse({ status: 200, body: 't4', bodyIsJson: false }, NOW, 'x').token).toBe('t4');
    expect(parseTokenResponse(json({ data: { token: 't5', expires_in: 60 } }), NOW, 'x')).toMatchObject({
      token: 't5',
      expiresAt: NOW + 60_000,
    });
  });

  it('reads the expiry from expires_in, expires_at (unix or ISO) or the JWT exp claim, else 5 minutes', () => {
    expect(parseTokenResponse(json({ token: 't', expires_in: 120 }), NOW, 'x').expiresAt).toBe(NOW + 120_000);
    expect(parseTokenResponse(json({ token: 't', expires_at: NOW / 1000 + 90 }), NOW, 'x').expiresAt).toBe(NOW + 90_000);
    expect(parseTokenResponse(json({ token: 't', expires_at: '2026-01-03T10:03:00Z' }), NOW, 'x').expiresAt).toBe(NOW + 180_000);
    expect(parseTokenResponse(json({ token: jwt({ exp: NOW / 1000 + 240 }) }), NOW, 'x').expiresAt).toBe(NOW + 240_000);
    expect(parseTokenResponse(json({ token: 't' }), NOW, 'x').expiresAt).toBe(NOW + DEFAULT_TOKEN_TTL_MS);
    // An expiry in the past or absurdly far is not believed.
    expect(parseTokenResponse(json({ token: 't', expires_at: NOW / 1000 - 5 }), NOW, 'x').expiresAt).toBe(NOW + DEFAULT_TOKEN_TTL_MS);
    expect(parseTokenResponse(json({ token: 't', expires_in: 10 ** 9 }), NOW, 'x').expiresAt).toBe(NOW + DEFAULT_TOKEN_TTL_MS);
  });

  it('renews 5 s before expiry, or a quarter of a very short lifetime', () => {
    expect(parseTokenResponse(json({ token: 't' }), NOW, 'x').renewAt).toBe(NOW + 295_000);
    expect(parseTokenResponse(json({ token: 't', expires_in: 16 }), NOW, 'x').renewAt).toBe(NOW + 12_000);
    expect(parseTokenResponse(json({ token: 't', expires_in: 8 }), NOW, 'x').renewAt).toBe(NOW + 6_000);
  });

  it('is malformed when no token is there', () => {
    for (const body of [{}, { token: '' }, { token: 'has space' }, null, 42, { access_token: 7 }]) {
      expect(() => parseTokenResponse(json(body), NOW, 'arbs_live token request')).toThrowError(ServiceError);
    }
    expect(() => parseTokenResponse({ status: 200, body: '<html> oops </html>', bodyIsJson: false }, NOW, 'x')).toThrow(
      'x: the answer held no token',
    );
  });

  it('reads JWT exp only from a well-formed JWT', () => {
    expect(jwtExpiry(jwt({ exp: 100 }))).toBe(100_000);
    expect(jwtExpiry('a.b')).toBeUndefined();
    expect(jwtExpiry('a.!!!.c')).toBeUndefined();
    expect(dataAuthHeaders('tok')).toEqual({ authorization: 'Bearer tok' });
  });
});

describe('tokens in the client (local server)', () => {
  let server: LocalServer;
  let client: ServiceClientWithLimits | undefined;
  let clock: ManualClock;
  let issued: string[];
  /** Tokens the data routes refuse (simulating expiry or revocation on the service side). */
  let refuse: (token: string) => boolean;
  const SECRET = 'sekret-abcdef-123456';

  beforeEach(async () => {
    clock = new ManualClock(NOW);
    issued = [];
    refuse = () => false;
    server = await startLocalServer((req, res) => {
      if (req.path.startsWith('/auth/access_keys/')) {
        if (req.headers.authorization !== `ApiKey ${SECRET}`) return sendJson(res, 401, { error: 'bad pair' });
        const token = `tok-${issued.length + 1}`;
        issued.push(token);
        return sendJson(res, 200, { access_token: token, expires_in: 300 });
      }
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !issued.includes(token) || refuse(token)) return sendJson(res, 401, { error: 'token' });
      return sendJson(res, 200, arbsEnvelope(1));
    });
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await server.close();
  });

  const make = () => {
    client = createServiceClient({ config: configFor(server.url), logger: silentLogger, clock, random: () => 0.5 });
    return client;
  };

  it('shares one token request among concurrent callers and reveals the secret only for it', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    const reads = await Promise.all(Array.from({ length: 5 }, () => c.readItems(key, 'arbs_live')));
    expect(reads.every((r) => r.items.length === 1)).toBe(true);
    expect(issued).toEqual(['tok-1']);
    expect(key.reveals).toBe(1);
    const tokenCall = server.seen.find((r) => r.path.startsWith('/auth'));
    expect(tokenCall).toMatchObject({ method: 'POST', path: '/auth/access_keys/k1/access_tokens', body: '{"service":"arbs_live"}' });
    expect(tokenCall?.headers['content-type']).toBe('application/json');
    for (const data of server.seen.filter((r) => !r.path.startsWith('/auth'))) {
      expect(data.headers.authorization).toBe('Bearer tok-1');
      expect(JSON.stringify(data)).not.toContain(SECRET);
    }
    expect(c.hasValidToken('k1', 'arbs_live')).toBe(true);
    expect(c.hasValidToken('k1', 'arbs_prematch')).toBe(false);
  });

  it('renews shortly before expiry, following the injected clock', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    await c.readItems(key, 'arbs_live');
    expect(c.budget('k1', 'arbs_live').tokenExpiresInMs).toBe(300_000);
    await clock.advance(294_000);
    await c.readItems(key, 'arbs_live');
    expect(issued).toHaveLength(1);
    await clock.advance(1_000); // 5 s before expiry
    expect(c.hasValidToken('k1', 'arbs_live')).toBe(false);
    await c.readItems(key, 'arbs_live');
    expect(issued).toEqual(['tok-1', 'tok-2']);
    expect(c.budget('k1', 'arbs_live')).toMatchObject({ tokenExpiresInMs: 300_000, tokensLeft: 18 });
  });

  it('renews once on a 401 of a data call, and succeeds with the new token', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    await c.readItems(key, 'arbs_live');
    refuse = (t) => t === 'tok-1';
    const read = await c.readItems(key, 'arbs_live');
    expect(read.items).toHaveLength(1);
    expect(issued).toEqual(['tok-1', 'tok-2']);
  });

  it('gives up with auth after one renewal is refused too', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    refuse = () => true;
    const err = await c.readItems(key, 'arbs_live').catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'auth', details: { status: 401 } });
    expect((err as Error).message).toBe('arbs_live items read: the service refused a freshly issued token too (HTTP 401)');
    expect(issued).toHaveLength(2);
    expect(server.seen.filter((r) => r.path.includes('/items'))).toHaveLength(2);
  });

  it('reports a refused key pair as auth, without retrying and without the secret in the message', async () => {
    const c = make();
    const err = await c.checkKey(keyRef('k1', 'wrong-secret-xyz'), 'arbs_live').catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'auth' });
    expect((err as Error).message).not.toContain('wrong-secret-xyz');
    expect(server.seen).toHaveLength(1);
  });

  it('checkKey always asks for a token, within the token limit', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    await c.checkKey(key, 'arbs_live');
    await c.checkKey(key, 'arbs_live');
    expect(issued).toHaveLength(2);
    expect(c.budget('k1', 'arbs_live').tokensLeft).toBe(18);
  });

  it('forgetKey drops held tokens', async () => {
    const c = make();
    const key = keyRef('k1', SECRET);
    await c.readItems(key, 'arbs_live');
    c.forgetKey('k1');
    expect(c.hasValidToken('k1', 'arbs_live')).toBe(false);
    expect(c.budget('k1', 'arbs_live').tokenExpiresInMs).toBe(0);
    await c.readItems(key, 'arbs_live');
    expect(issued).toHaveLength(2);
  });

  it('waits for the token limit instead of going over it', async () => {
    client = createServiceClient({
      config: configFor(server.url, { LIMIT_TOKENS_PER_HOUR: 2 }),
      logger: silentLogger,
      clock,
      random: () => 0.5,
    });
    const key = keyRef('k1', SECRET);
    await client.checkKey(key, 'arbs_live');
    await client.checkKey(key, 'arbs_prematch');
    const refused = await client.checkKey(key, 'middles_live', { wait: false }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rate_limited', details: { local: true } });
    expect(issued).toHaveLength(2);
    const started = clock.now();
    await settle(clock, client.checkKey(key, 'middles_live'), 60_000);
    expect(issued).toHaveLength(3);
    expect(clock.now() - started).toBeGreaterThanOrEqual(3_600_000);
  });
});
