/**
 * The fronts' shared security state on a real Redis (src/cluster/front-state.ts), two connections
 * standing for two fronts, Redis's clock moved by the scripts' offset: an open question set on one
 * front is read on the other, a secret question is expected across chats and leaves a marker for an
 * hour that holds nothing of the question, the caps are counted once for both fronts, a flow
 * written on one is read on the other, a chat's updates take turns across fronts; every key expires; a value that does not read back is
 * dropped; a Redis out of reach is StateUnavailableError within the bound, never a hang.
 */
import { createSecretKey } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_TIMEOUT_MS } from '../../src/bot/conversations/timeout.js';
import { LATE_SECRET_MS, PENDING_TTL_MS } from '../../src/bot/pending.js';
import { StateUnavailableError } from '../../src/bot/state-unavailable.js';
import { createSharedFrontState, type FrontState } from '../../src/cluster/front-state.js';
import { createChatTurns } from '../../src/cluster/chat-turns.js';
import { silentLogger } from '../../src/logger.js';
import { createMessageSeal } from '../../src/cluster/message-seal.js';
import { freePort } from '../support/ports.js';
import { redisForTests, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
const connections: Redis[] = [];
beforeAll(async () => {
  redis = await redisForTests('front-state');
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await redis.dispose();
});

async function connect(url = redis.url): Promise<Redis> {
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await c.connect();
  connections.push(c);
  return c;
}

const seal = createMessageSeal({ mac: createSecretKey(Buffer.alloc(32, 5)), box: createSecretKey(Buffer.alloc(32, 6)) });

let run = 0;
/** Two fronts on their own connections, sharing one prefix and one (shifted) Redis clock. */
async function twoFronts(): Promise<{ a: FrontState; b: FrontState; prefix: string; shift: (ms: number) => void; check: Redis }> {
  let offset = 0;
  const prefix = `${redis.prefix}${++run}:`;
  const opts = { prefix, logger: silentLogger, seal, clockOffsetMs: () => offset };
  const [ca, cb, check] = [await connect(), await connect(), await connect()];
  return { a: createSharedFrontState(ca, opts), b: createSharedFrontState(cb, opts), prefix, shift: (ms) => (offset += ms), check };
}

/** Every key under the prefix, with its expiry in ms (-1: none). */
async function keysWithTtl(check: Redis, prefix: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const key of await check.keys(`${prefix}*`)) out[key.slice(prefix.length)] = await check.pttl(key);
  return out;
}

const KEY = 'access-key-0123456789';
const ALICE = 7001;
const CHAT = 7001;
const GROUP = -1007001;

describe('the open questions, shared', () => {
  it('a question set on one front is the question on the other; answered, it is gone on both', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-key', service: 'arbs_live' });
    expect(await b.pending.get(CHAT, ALICE)).toEqual({ kind: 'connect-key', service: 'arbs_live' });
    expect(await b.pending.get(CHAT, ALICE + 1)).toBeUndefined();
    expect(await b.pending.clear(CHAT, ALICE)).toBe(true);
    expect(await a.pending.get(CHAT, ALICE)).toBeUndefined();
    expect(await a.pending.clear(CHAT, ALICE)).toBe(false);
  });

  it('the secret is expected in every chat and on every front while its question is open, and no longer once it expires', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b, shift } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    expect(await b.pending.secretExpected(ALICE)).toBe(true);
    expect(await b.pending.secretExpected(ALICE + 1)).toBe(false);
    // Another question in another chat leaves the secret question where it is.
    await b.pending.set(GROUP, ALICE, { kind: 'lookup-id', what: 'item' });
    expect(await a.pending.secretExpected(ALICE)).toBe(true);
    // Replaced in its own chat by another question: no longer expected.
    await b.pending.set(CHAT, ALICE, { kind: 'lookup-id', what: 'event' });
    expect(await a.pending.secretExpected(ALICE)).toBe(false);
    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    shift(PENDING_TTL_MS + 1);
    expect(await b.pending.secretExpected(ALICE)).toBe(false);
    expect(await b.pending.get(CHAT, ALICE)).toBeUndefined();
  });

  it('an unanswered secret question leaves a marker for an hour on every front, holding nothing of the question', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b, shift, check, prefix } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    expect(await b.pending.lateSecretWatch(CHAT, ALICE)).toBe(false);
    shift(PENDING_TTL_MS + 1);
    expect(await b.pending.lateSecretWatch(CHAT, ALICE)).toBe(true);
    // Another command is no sign the secret is safe: clearing the expired question keeps the marker.
    expect(await b.pending.clear(CHAT, ALICE)).toBe(false);
    expect(await a.pending.lateSecretWatch(CHAT, ALICE)).toBe(true);
    const marker = await check.hgetall(`${prefix}pending:late:${CHAT}:${ALICE}`);
    expect(Object.keys(marker).sort()).toEqual(['from', 'to']);
    expect(JSON.stringify(marker)).not.toContain(KEY);
    shift(LATE_SECRET_MS);
    expect(await a.pending.lateSecretWatch(CHAT, ALICE)).toBe(false);
  });

  it('an answered secret question leaves no marker; a secret given ends one; /forget clears every chat', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b, shift, check, prefix } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    expect(await b.pending.clear(CHAT, ALICE)).toBe(true);
    shift(PENDING_TTL_MS + 1);
    expect(await a.pending.lateSecretWatch(CHAT, ALICE)).toBe(false);

    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    // While the question is open, a secret given elsewhere does not end its future marker.
    await b.pending.endLateSecret(CHAT, ALICE);
    shift(PENDING_TTL_MS + 1);
    expect(await a.pending.lateSecretWatch(CHAT, ALICE)).toBe(true);
    await b.pending.endLateSecret(CHAT, ALICE);
    expect(await a.pending.lateSecretWatch(CHAT, ALICE)).toBe(false);

    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    await a.pending.set(GROUP, ALICE, { kind: 'lookup-id', what: 'item' });
    await a.pending.set(CHAT, ALICE + 1, { kind: 'lookup-id', what: 'item' });
    await b.pending.clearUser(ALICE);
    // Only the other user's question is left.
    expect(Object.keys(await keysWithTtl(check, prefix)).sort()).toEqual([`pending:chats:${ALICE + 1}`, `pending:q:${CHAT}:${ALICE + 1}`]);
    expect(await a.pending.get(CHAT, ALICE + 1)).toEqual({ kind: 'lookup-id', what: 'item' });
  });

  it('every key expires, none later than the marker; the secret question is never among the values', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, check, prefix } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: KEY });
    await a.pending.set(GROUP, ALICE, { kind: 'stake-amount', service: 'arbs_live', itemId: 'i1', ownerId: ALICE });
    const keys = await keysWithTtl(check, prefix);
    expect(Object.keys(keys).sort()).toEqual(
      [`pending:chats:${ALICE}`, `pending:late:${CHAT}:${ALICE}`, `pending:q:${CHAT}:${ALICE}`, `pending:q:${GROUP}:${ALICE}`, `pending:secret:${ALICE}`].sort(),
    );
    for (const ttl of Object.values(keys)) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(PENDING_TTL_MS + LATE_SECRET_MS);
    }
    expect(keys[`pending:q:${CHAT}:${ALICE}`]).toBeLessThanOrEqual(PENDING_TTL_MS);
  });

  it('a question that does not read back as one is dropped and the read fails safe', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, check, prefix } = await twoFronts();
    await a.pending.set(CHAT, ALICE, { kind: 'connect-key', service: 'arbs_live' });
    await check.hset(`${prefix}pending:q:${CHAT}:${ALICE}`, 'input', '{"kind":"connect-secret","service":"nope"}');
    await expect(a.pending.get(CHAT, ALICE)).rejects.toBeInstanceOf(StateUnavailableError);
    expect(await check.exists(`${prefix}pending:q:${CHAT}:${ALICE}`)).toBe(0);
    expect(await a.pending.get(CHAT, ALICE)).toBeUndefined();
  });

  it('audit 3, M3: a question written in Redis without the cluster key, or moved to another user, is never taken', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, check, prefix } = await twoFronts();
    const BOB = 4242;
    // Alice's own Leg limited question, moved to Bob's chat and user: his typed amount would spend Alice's alert.
    await a.pending.set(CHAT, ALICE, { kind: 'leg-limit', service: 'arbs_live', itemId: 'i1', ownerId: ALICE });
    const stored = await check.hget(`${prefix}pending:q:${CHAT}:${ALICE}`, 'input');
    expect(stored).toMatch(/^[\w-]+\.\{/);
    await check.hset(`${prefix}pending:q:${BOB}:${BOB}`, 'input', stored!, 'until', String(Date.now() + 600_000));
    await expect(a.pending.get(BOB, BOB)).rejects.toBeInstanceOf(StateUnavailableError);
    // A question in the clear, or with an HMAC of another key, naming Alice as the owner.
    const forged = JSON.stringify({ kind: 'stake-amount', service: 'arbs_live', itemId: 'i1', ownerId: ALICE });
    const theirs = createMessageSeal({ mac: createSecretKey(Buffer.alloc(32, 7)), box: createSecretKey(Buffer.alloc(32, 8)) });
    for (const value of [forged, `${theirs.mac(`${BOB}:${BOB}:${forged}`)}.${forged}`]) {
      await check.hset(`${prefix}pending:q:${BOB}:${BOB}`, 'input', value, 'until', String(Date.now() + 600_000));
      await expect(a.pending.get(BOB, BOB)).rejects.toBeInstanceOf(StateUnavailableError);
      expect(await a.pending.get(BOB, BOB)).toBeUndefined();
    }
    expect(await a.pending.get(CHAT, ALICE)).toEqual({ kind: 'leg-limit', service: 'arbs_live', itemId: 'i1', ownerId: ALICE });
  });
});

describe('the caps, shared', () => {
  it('counts one user across both fronts: the 11th lookup in a minute is refused on either, and frees when the first leaves', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b, shift } = await twoFronts();
    for (let i = 0; i < 10; i++) {
      expect(await (i % 2 === 0 ? a : b).caps.take('lookup', ALICE, KEY)).toBe(0);
      shift(1_000);
    }
    const waitA = await a.caps.take('lookup', ALICE, KEY);
    const waitB = await b.caps.take('lookup', ALICE, KEY);
    expect(waitA).toBeGreaterThan(49_000);
    expect(waitA).toBeLessThanOrEqual(50_000);
    expect(waitB).toBeLessThanOrEqual(waitA);
    // A refused use is not counted; another user is not held (but the key is: 10 a minute per key).
    expect(await b.caps.take('lookup', ALICE + 1)).toBe(0);
    expect(await b.caps.take('lookup', ALICE + 1, KEY)).toBeGreaterThan(0);
    expect(await a.caps.take('filter', ALICE, KEY)).toBe(0);
    shift(waitA);
    expect(await b.caps.take('lookup', ALICE, KEY)).toBe(0);
  });

  it('keeps only digests of access keys in key names, and every bucket expires within its window', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, check, prefix } = await twoFronts();
    await a.caps.take('connect', ALICE, KEY);
    await a.caps.take('inline', ALICE);
    const keys = await keysWithTtl(check, prefix);
    expect(Object.keys(keys)).toHaveLength(3);
    expect(Object.keys(keys).join()).not.toContain(KEY);
    expect(keys[`cap:u:connect:${ALICE}`]).toBeGreaterThan(59 * 60_000);
    expect(keys[`cap:u:inline:${ALICE}`]).toBeLessThanOrEqual(60_000);
    for (const ttl of Object.values(keys)) expect(ttl).toBeGreaterThan(0);
  });

  it('two fronts taking at once cannot both take the last use', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b } = await twoFronts();
    const takes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).caps.take('lookup', ALICE)));
    expect(takes.filter((w) => w === 0)).toHaveLength(10);
  });
});

describe('the guided flows, shared', () => {
  const state = { version: [0, 0] as [0, number], state: { filter: [{ replay: { send: [{ payload: 'x' }], receive: [{ send: 0, returnValue: { a: 1 } }] }, interrupts: [0] }] } };

  it('a flow written on one front is read on the other, expires after the flow timeout, and ends on both', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b, check, prefix } = await twoFronts();
    await a.conversations.adapter.write(String(CHAT), state);
    expect(await b.conversations.adapter.read(String(CHAT))).toEqual(state);
    const ttl = await check.pttl(`${prefix}conv:${CHAT}`);
    expect(ttl).toBeGreaterThan(FLOW_TIMEOUT_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(FLOW_TIMEOUT_MS);
    await b.conversations.adapter.delete(String(CHAT));
    expect(await a.conversations.adapter.read(String(CHAT))).toBeUndefined();
  });

  it('a flow that does not read back as one is dropped, not replayed', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, check, prefix } = await twoFronts();
    await check.set(`${prefix}conv:${CHAT}`, JSON.stringify({ version: [0, 0], state: { filter: [{ replay: 'x' }] } }), 'PX', 60_000);
    expect(await a.conversations.adapter.read(String(CHAT))).toBeUndefined();
    expect(await check.exists(`${prefix}conv:${CHAT}`)).toBe(0);
  });
});

describe('the chats\' turns, shared', () => {
  it('a chat\'s update on one front waits for the other front\'s to end; other chats do not wait', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const { a, b } = await twoFronts();
    const events: string[] = [];
    let finishA: () => void = () => undefined;
    const first = a.turns('1', async () => {
      events.push('a starts');
      await new Promise<void>((resolve) => (finishA = resolve));
      events.push('a ends');
    });
    await expect.poll(() => events).toEqual(['a starts']);
    const second = b.turns('1', async () => void events.push('b runs'));
    await b.turns('2', async () => void events.push('other chat runs'));
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual(['a starts', 'other chat runs']);
    finishA();
    await Promise.all([first, second]);
    expect(events).toEqual(['a starts', 'other chat runs', 'a ends', 'b runs']);
  });

  it('a turn left by a front that died expires; one held too long is waited for only so long; only its holder ends it', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const prefix = `${redis.prefix}${++run}:`;
    const c = await connect();
    const short = createChatTurns(c, { prefix, logger: silentLogger, holdMs: 300, waitMs: 5_000 });
    // A dead front's turn: the key as it left it.
    await c.set(`${prefix}turn:9`, 'someone-else', 'PX', 300);
    const t0 = Date.now();
    await short('9', async () => {
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      // Released by its holder only: someone else's token is not deleted.
      expect(await c.get(`${prefix}turn:9`)).not.toBe('someone-else');
    });
    expect(await c.exists(`${prefix}turn:9`)).toBe(0);

    const impatient = createChatTurns(c, { prefix, logger: silentLogger, waitMs: 150 });
    await c.set(`${prefix}turn:8`, 'slow-holder', 'PX', 10_000);
    const t1 = Date.now();
    let ran = false;
    await impatient('8', async () => void (ran = true));
    expect(ran).toBe(true);
    expect(Date.now() - t1).toBeLessThan(2_000);
    expect(await c.get(`${prefix}turn:8`)).toBe('slow-holder');
  });
});

describe('Redis out of reach', () => {
  it('every call is StateUnavailableError within its bound, naming no value', async (ctx) => {
    if (!redis.available) return ctx.skip();
    const port = await freePort();
    // Nobody listens there: ioredis keeps retrying and would hold the commands until it connects.
    const dead = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
    dead.on('error', () => undefined);
    connections.push(dead);
    const state = createSharedFrontState(dead, { prefix: 'x:', logger: silentLogger, seal, timeoutMs: 300 });
    const t0 = Date.now();
    const calls: Promise<unknown>[] = [
      state.pending.get(CHAT, ALICE),
      state.pending.set(CHAT, ALICE, { kind: 'connect-secret', service: 'arbs_live', accessKey: KEY }),
      state.pending.secretExpected(ALICE),
      state.caps.take('lookup', ALICE, KEY),
      Promise.resolve(state.conversations.adapter.read(String(CHAT))),
      state.turns(String(CHAT), async () => undefined),
    ];
    for (const call of calls) {
      const err = await call.then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(StateUnavailableError);
      expect(String((err as Error).message)).not.toContain(KEY);
    }
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});
