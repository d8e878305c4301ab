/**
 * Subscriber connections that subscribe again themselves after a reconnect (src/lib/redis-resubscribe.ts),
 * against a private redis-server that is restarted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { NO_AUTO_RESUBSCRIBE, resubscribing } from '../../src/lib/redis-resubscribe.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('resubscribe', { privateOnly: true });
});
afterAll(async () => {
  await redis.dispose();
});

const ready = (conn: Redis) => new Promise<void>((resolve) => conn.once('ready', () => resolve()));

describe('a subscriber connection across a Redis restart', () => {
  it('gets the messages of its channel again once Redis is back', async (ctx) => {
    if (!redis.available || !redis.server) return ctx.skip();
    const sub = new Redis(redis.url, { ...NO_AUTO_RESUBSCRIBE });
    const pub = new Redis(redis.url);
    sub.on('error', () => undefined);
    pub.on('error', () => undefined);
    try {
      const got: string[] = [];
      sub.on('message', (_channel: string, text: string) => got.push(text));
      const troubles: unknown[] = [];
      await resubscribing(sub, (err) => troubles.push(err))('news');
      await redis.server.stop({ hard: true });
      const back = ready(sub);
      await redis.server.restart();
      await back;
      await vi.waitFor(async () => {
        await pub.publish('news', 'after the restart');
        expect(got).toContain('after the restart');
      }, { timeout: 5_000, interval: 50 });
      expect(troubles).toEqual([]);
    } finally {
      sub.disconnect();
      pub.disconnect();
    }
  });

  it('hands a SUBSCRIBE that fails after a reconnect to its handler, never leaving it unhandled', async () => {
    // A connection closed while its SUBSCRIBE is on the wire (a store closing just after Redis came
    // back): ioredis's own resubscribe leaves that rejection unhandled (redis/ioredis#2187). A stand-in
    // makes it happen every time.
    const conn = Object.assign(new EventEmitter(), {
      calls: [] as string[][],
      subscribe(...channels: string[]) {
        this.calls.push(channels);
        return this.calls.length === 1 ? Promise.resolve(1) : Promise.reject(new Error('Connection is closed.'));
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const troubles: unknown[] = [];
      const subscribe = resubscribing(conn as unknown as Redis, (err) => troubles.push(err));
      await subscribe('news');
      conn.emit('ready');
      expect(conn.calls).toEqual([['news']]);
      conn.emit('close');
      conn.emit('ready');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(conn.calls).toEqual([['news'], ['news']]);
      expect(troubles.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual(['Connection is closed.']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
