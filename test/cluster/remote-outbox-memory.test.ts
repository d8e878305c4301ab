/**
 * A worker's call waits for the front's answer for as long as the front's backlog lasts (Telegram
 * sends 25 messages a second; a busy minute queues hundreds). What waits must not be the alert
 * itself: its text and buttons are in the stream and in the front by then, and holding them a third
 * time in every worker is memory each full collection marks again.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertStreams } from '../../src/cluster/alert-jobs.js';
import { createRemoteOutbox } from '../../src/cluster/remote-outbox.js';
import { captureLogs } from '../support/logs.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { stopAfterEach } from '../support/teardown.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('remote-outbox-memory');
});
afterAll(async () => {
  await redis.dispose();
});
const stopAfter = stopAfterEach();

/** Collects until `ref` is gone, or gives up after a few rounds (a WeakRef lives at least to the end of its job). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 5; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

describe('a call waiting for the front', () => {
  it('holds neither the text nor the buttons once its batch is in the stream', async () => {
    const prefix = `${redis.prefix}mem:`;
    const remote = stopAfter(createRemoteOutbox({ connection: { url: redis.url }, prefix, logger: captureLogs().logger }));
    const reader = new Redis(redis.url);
    stopAfter({ close: () => reader.quit() });
    // No front reads the stream: the call waits, as behind a backlog.
    const { buttons, answer } = ((): { buttons: WeakRef<object>; answer: Promise<number | undefined> } => {
      const own = [[{ text: 'Open', callbackData: 'a:ev:1' }]];
      return { buttons: new WeakRef(own), answer: remote.send(42, `alert ${'x'.repeat(10_000)}`, { buttons: own, idempotencyKey: '42:a' }) };
    })();
    await vi.waitFor(async () => expect(await reader.xlen(alertStreams(prefix).new)).toBe(1));
    expect(remote.pending).toBe(1);
    expect(await collected(buttons)).toBe(true);
    // Still waiting, and answered as before once closed.
    expect(remote.pending).toBe(1);
    await remote.close();
    await expect(answer).resolves.toBeUndefined();
  });
});
