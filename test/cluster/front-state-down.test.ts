/**
 * A front whose shared state in Redis goes out of reach fails safe and says so (en and ru): the
 * bot of the test harness on the Redis implementations of the open questions, flows and caps
 * (src/cluster/front-state.ts), whose connections the test cuts. A message sent while the open
 * question cannot be read may be a secret asked for on another front: it is deleted, never taken
 * as anything, and the user told to send it again in a moment; a known command is not deleted; a
 * lookup or an inline search whose cap cannot be checked is refused (fail closed) with a "try
 * again in a moment"; a button gets a short toast.
 */
import { createSecretKey } from 'node:crypto';
import { createMessageSeal } from '../../src/cluster/message-seal.js';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSharedCaps } from '../../src/cluster/shared-caps.js';
import { createSharedConversations } from '../../src/cluster/shared-conversations.js';
import { createSharedPending } from '../../src/cluster/shared-pending.js';
import { silentLogger } from '../../src/logger.js';
import { en } from '../../src/locales/en.js';
import { ru } from '../../src/locales/ru.js';
import { htmlToPlain } from '../../src/bot/ui/plain.js';
import { ALICE, BORIS, createHarness, DEMO_KEY, DEMO_SECRET, type Harness } from '../bot/harness.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('front-state-down');
});
afterAll(async () => {
  await redis.dispose();
});

let h: Harness | undefined;
let questions: Redis;
let caps: Redis;
let run = 0;
afterEach(async () => {
  await h?.close();
  h = undefined;
  questions?.disconnect();
  caps?.disconnect();
});

/** The harness's bot on the shared state: questions and flows on one connection, caps on another. */
async function start(): Promise<Harness> {
  const prefix = `${redis.prefix}${++run}:`;
  const opts = { prefix, logger: silentLogger, timeoutMs: 500, seal: createMessageSeal({ mac: createSecretKey(Buffer.alloc(32, 5)), box: createSecretKey(Buffer.alloc(32, 6)) }) };
  questions = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  caps = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  for (const c of [questions, caps]) c.on('error', () => undefined);
  h = await createHarness({
    state: { pending: createSharedPending(questions, opts), conversations: createSharedConversations(questions, opts), caps: createSharedCaps(caps, opts) },
  });
  return h;
}
/** Cuts a connection for good (no reconnection), as a Redis gone down leaves it. */
const cut = (c: Redis) => c.disconnect(false);
const userMessage = (h: Harness, userId: number, text: string) => h.fake.userMessages(userId).find((m) => m.text === text);

describe('the shared state out of reach', () => {
  it('a secret pasted while the open question cannot be read is deleted, not used, and the user told to send it again', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const h = await start();
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    expect(h.last(ALICE.id).text).toContain('secret key');
    cut(questions);
    await h.say(ALICE, DEMO_SECRET);
    expect(userMessage(h, ALICE.id, DEMO_SECRET)?.deleted).toBe(true);
    expect(h.last(ALICE.id).text).toBe(en.state_unavailable_deleted);
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
    expect(h.logs.join('\n')).not.toContain(DEMO_SECRET);
  });

  it('any text is treated as possibly a secret (in Russian too); a known command is not deleted', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const h = await start();
    await h.say(BORIS, '/start');
    cut(questions);
    await h.say(BORIS, '150');
    expect(userMessage(h, BORIS.id, '150')?.deleted).toBe(true);
    expect(h.last(BORIS.id).text).toBe(ru.state_unavailable_deleted);
    await h.say(BORIS, '/status');
    expect(userMessage(h, BORIS.id, '/status')?.deleted).toBe(false);
    expect(h.last(BORIS.id).text).toBe(ru.state_unavailable);
    // A /connect line carries a secret: deleted although it is a known command.
    await h.say(BORIS, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    expect(userMessage(h, BORIS.id, `/connect ${DEMO_KEY} ${DEMO_SECRET}`)?.deleted).toBe(true);
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
  });

  it('a lookup or an inline search whose cap cannot be checked is refused: nothing read, "try again in a moment"', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const h = await start();
    await h.connect();
    await h.say(ALICE, '/filter arbs_prematch');
    cut(caps);
    await h.say(ALICE, '/item a1 arbs_prematch');
    expect(h.last(ALICE.id).text).toBe(en.state_unavailable);
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    await h.handle(h.fake.inlineQuery(ALICE, 'foot'));
    const answer = h.fake.calls('answerInlineQuery').at(-1)?.payload as { results: unknown[]; button?: { text: string } } | undefined;
    expect(answer?.results).toEqual([]);
    expect(answer?.button?.text).toBe(htmlToPlain(en.state_unavailable_short));
  });

  it('a button pressed while the state cannot be read gets a short "try again"', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const h = await start();
    await h.connect();
    await h.say(ALICE, '/filter');
    const prompt = h.last(ALICE.id);
    cut(questions);
    await h.press(ALICE, prompt, h.button(prompt, 'Arbs · live'));
    expect(h.callbackText()).toBe(htmlToPlain(en.state_unavailable_short));
  });
});
