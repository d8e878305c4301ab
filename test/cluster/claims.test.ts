import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { CLAIM_TTL_MS, createClaims, parseClaim, type Claims } from '../../src/cluster/claims.js';
import { idempotencyId } from '../../src/cluster/alert-jobs.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
let claims: Claims;
let probe: Redis;
beforeAll(async () => {
  redis = await redisForTests('claims');
  if (!redis.available) return;
  claims = createClaims({ connection: { url: redis.url }, prefix: redis.prefix });
  probe = new Redis(redis.url);
});
afterAll(async () => {
  await claims?.close();
  await probe?.quit();
  await redis.dispose();
});

describe('claims (real Redis)', () => {
  it('gives a key to its first claimant only, and records the answer for later claimants', async (ctx) => {
    if (!redis.available) return ctx.skip();
    expect(await claims.claim('1:arbs:a:new:1', 'front-a')).toEqual({ kind: 'claimed' });
    expect(await claims.claim('1:arbs:a:new:1', 'front-b')).toEqual({ kind: 'pending', holder: 'front-a' });
    // Only the holder records the answer.
    expect(await claims.settle('1:arbs:a:new:1', 'front-b', 77)).toBe(false);
    expect(await claims.settle('1:arbs:a:new:1', 'front-a', 42)).toBe(true);
    expect(await claims.claim('1:arbs:a:new:1', 'front-b')).toEqual({ kind: 'sent', messageId: 42 });
    expect(await claims.peek('1:arbs:a:new:1')).toEqual({ kind: 'sent', messageId: 42 });
    // An answer without a message id (folded into a digest, dropped) is an answer too.
    await claims.claim('1:arbs:b:new:1', 'front-a');
    await claims.settle('1:arbs:b:new:1', 'front-a', undefined);
    expect(await claims.claim('1:arbs:b:new:1', 'front-b')).toEqual({ kind: 'sent', messageId: undefined });
    expect(await claims.peek('never claimed')).toBeUndefined();
  });

  it('takes a nonce once: again for the same entry (taken over after a front died), never for another', async (ctx) => {
    if (!redis.available) return ctx.skip();
    expect(await claims.takeNonce('nonce-0123456789abcdef', 'new:1-0', 60_000)).toBe(true);
    expect(await claims.takeNonce('nonce-0123456789abcdef', 'new:1-0', 60_000)).toBe(true);
    expect(await claims.takeNonce('nonce-0123456789abcdef', 'new:2-0', 60_000)).toBe(false);
    expect(await probe.pttl(`${redis.prefix}job-nonce:nonce-0123456789abcdef`)).toBeGreaterThan(50_000);
  });

  it('keeps a claim for seven days under the cluster prefix, through its settling', async (ctx) => {
    if (!redis.available) return ctx.skip();
    await claims.claim('ttl', 'front-a');
    const key = `${redis.prefix}claim:${idempotencyId('ttl')}`;
    expect(await probe.pttl(key)).toBeGreaterThan(CLAIM_TTL_MS - 60_000);
    await claims.settle('ttl', 'front-a', 5);
    expect(await probe.pttl(key)).toBeGreaterThan(CLAIM_TTL_MS - 60_000);
    expect(await probe.get(key)).toBe('s:5');
  });

  it('reads a value it does not know as pending (never sent again)', () => {
    expect(parseClaim('s:12')).toEqual({ kind: 'sent', messageId: 12 });
    expect(parseClaim('s:')).toEqual({ kind: 'sent', messageId: undefined });
    expect(parseClaim('p:host:1:ab')).toEqual({ kind: 'pending', holder: 'host:1:ab' });
    expect(parseClaim('s:-3')).toEqual({ kind: 'pending', holder: '?' });
    expect(parseClaim('1')).toEqual({ kind: 'pending', holder: '?' });
  });
});

describe('idempotency ids', () => {
  it('are stable, distinct, and name no user or item', () => {
    const id = idempotencyId('1:arbs_prematch:a:new:1767434280000');
    expect(id).toBe(idempotencyId('1:arbs_prematch:a:new:1767434280000'));
    expect(id).not.toBe(idempotencyId('1:arbs_prematch:a:new:1767434280001'));
    expect(id).toMatch(/^k-[\w-]{32}$/);
    expect(id).not.toContain('arbs_prematch');
  });
});
