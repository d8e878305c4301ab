/**
 * The embedded bot under LIMIT_SCOPE_TOKENS=address (issue 24 item 6): the service counts token
 * requests for the whole bot, and 2 an hour are interactive use's. Users whose keys never worked
 * share one user's part of them: fresh accounts' junk /connects use up only that part (the next is
 * refused before it is sent, and the user told when to try again), and a user whose key works can
 * still connect.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { configFor } from '../service/helpers.js';
import { botOnClient, type BotOnClient } from '../support/bot-on-client.js';

const X = { id: 9101, first_name: 'Xavier', language_code: 'en' };
const Y = { id: 9202, first_name: 'Юлия', language_code: 'ru' };
const Z = { id: 9303, first_name: 'Zoe', language_code: 'en' };

let fake: FakeTelegram;
let sandbox: Sandbox;
let client: ServiceClientWithLimits;
let front: BotOnClient;
let clock: ManualClock;

beforeEach(async () => {
  clock = new ManualClock();
  fake = await startFakeTelegram();
  sandbox = await startSandbox({ clock, limits: { scope: 'key', tokenScope: 'address' } });
  client = createServiceClient({ config: configFor(sandbox.origin, { LIMIT_SCOPE_TOKENS: 'address' }), logger: silentLogger, clock, random: () => 0.5 });
  front = await botOnClient({ fake, client, clock, env: { ...sandbox.urls, LIMIT_SCOPE_TOKENS: 'address' } });
});
afterEach(async () => {
  await front.close();
  await client.close();
  await sandbox.close();
  await fake.close();
});

const lastText = (chatId: number) => fake.messages(chatId).at(-1)?.text ?? '';

describe('LIMIT_SCOPE_TOKENS=address in one process', () => {
  it('users whose keys never worked share one part: two fresh accounts with junk pairs cannot refuse the /connect of a user whose key works (audit 3, H1)', async () => {
    // Z's key works (connected an hour ago).
    await front.say(Z, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    expect(front.store.getUser(Z.id)?.key?.accessKey).toBe(sandbox.demoKey.accessKey);
    clock.advance(61 * 60_000);
    const before = sandbox.counters().requests.token ?? 0;
    // Two fresh accounts try junk pairs: the first is checked, the rest are refused before they are sent.
    await front.say(X, '/connect junk-key-1 junk-secret-0123456789');
    expect(lastText(X.id)).toContain('is wrong');
    await front.say(X, '/connect junk-key-2 junk-secret-0123456789');
    expect(lastText(X.id)).toContain('the part kept for keys connected for the first time is used up');
    expect(lastText(X.id)).toContain('try /connect again in 61 min');
    await front.say(Y, '/connect junk-key-3 junk-secret-0123456789');
    expect(lastText(Y.id)).toContain('отведённая ключам, которые подключают впервые, пока исчерпана');
    expect(sandbox.counters().requests.token).toBe(before + 1);
    // Z connects a pair again, naming a service its key has not read (so it is checked, not taken as
    // known: actions/connect.ts): the check goes through (its own part, not the newcomers').
    await front.say(Z, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret} arbs_live`);
    expect(lastText(Z.id)).toContain('connected');
    expect(sandbox.counters().requests.token).toBe(before + 2);
    expect(front.store.getUser(Z.id)?.key?.accessKey).toBe(sandbox.demoKey.accessKey);
    expect(sandbox.counters().status['429']).toBeUndefined();
  });
});
