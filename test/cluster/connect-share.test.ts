/**
 * Two fronts of a cluster under LIMIT_SCOPE_TOKENS=address (issue 24 items 3 and 6): the 2 token
 * requests an hour left to interactive use are the whole bot's, counted in the shared window in
 * Redis, and one user's part of them holds whichever front their /connect reaches. Users whose keys
 * never worked count as one: X's junk /connect on front A and the next on front B take only their
 * part; user Y, whose key works, still connects on front B.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { botOnClient, type BotOnClient } from '../support/bot-on-client.js';
import { redisForTests, type TestRedis } from '../support/redis.js';
import { TestCluster } from './shared-fixtures.js';

const X = { id: 9101, first_name: 'Xavier', language_code: 'en' };
const Y = { id: 9202, first_name: 'Yuki', language_code: 'en' };

let redis: TestRedis;
beforeAll(async () => {
  redis = await redisForTests('connect-share');
});
afterAll(async () => {
  await redis.dispose();
});

describe('one user’s part of the interactive token requests, across fronts', () => {
  let clock: ManualClock;
  let fake: FakeTelegram | undefined;
  let sandbox: Sandbox | undefined;
  let cluster: TestCluster | undefined;
  const fronts: BotOnClient[] = [];

  beforeEach(() => {
    clock = new ManualClock();
  });
  afterEach(async () => {
    for (const f of fronts.splice(0)) await f.close();
    await cluster?.stop();
    await sandbox?.close();
    await fake?.close();
  });

  it('X’s junk /connects on fronts A and B take the newcomers’ part; Y, whose key works, connects on B', async (ctx) => {
    if (!redis.available) return ctx.skip();
    fake = await startFakeTelegram();
    sandbox = await startSandbox({ clock, limits: { scope: 'key', tokenScope: 'address' } });
    cluster = new TestCluster({ url: redis.url, prefix: `${redis.prefix}1:`, clock, sandbox });
    for (let i = 0; i < 2; i++) {
      const proc = await cluster.start({ LIMIT_SCOPE_TOKENS: 'address' });
      fronts.push(await botOnClient({ fake, client: proc.client, clock, env: { ...sandbox.urls, LIMIT_SCOPE_TOKENS: 'address' } }));
    }
    const [a, b] = fronts as [BotOnClient, BotOnClient];
    const lastText = (chatId: number) => fake!.messages(chatId).at(-1)?.text ?? '';

    // Y's key works (connected on B an hour ago).
    await b.say(Y, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    expect(lastText(Y.id)).toContain('connected');
    clock.advance(61 * 60_000);
    const before = sandbox.counters().requests.token ?? 0;
    await a.say(X, '/connect junk-key-1 junk-secret-0123456789');
    expect(lastText(X.id)).toContain('is wrong');
    await b.say(X, '/connect junk-key-2 junk-secret-0123456789');
    expect(lastText(X.id)).toContain('the part kept for keys connected for the first time is used up');
    expect(sandbox.counters().requests.token).toBe(before + 1);
    // Named, a service Y's key has not read is checked (not taken as known: actions/connect.ts), and the check goes through.
    await b.say(Y, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret} arbs_live`);
    expect(lastText(Y.id)).toContain('connected');
    expect(sandbox.counters().requests.token).toBe(before + 2);
    expect(sandbox.counters().status['429']).toBeUndefined();
  });
});
