/**
 * The embedded bot under LIMIT_SCOPE_TOKENS=address (issue 24 item 6): the service counts token
 * requests for the whole bot, and 2 an hour are interactive use's. One user's two junk /connects
 * take only their own part of them (the second is refused before it is sent, and the user told
 * when to try again); another user's /connect still goes through.
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
  it('two junk /connects of one user take their part only; another user’s /connect goes through', async () => {
    await front.say(X, '/connect junk-key-1 junk-secret-0123456789');
    expect(lastText(X.id)).toContain('is wrong');
    expect(sandbox.counters().requests.token).toBe(1);
    await front.say(X, '/connect junk-key-2 junk-secret-0123456789');
    // Refused before it was sent: X is told their part is used, and when to try again (the hour).
    expect(sandbox.counters().requests.token).toBe(1);
    expect(lastText(X.id)).toContain('each user gets a part of them, and you have used yours');
    expect(lastText(X.id)).toContain('try /connect again in 61 min');
    await front.say(Y, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    expect(lastText(Y.id)).toContain('подключён');
    expect(front.store.getUser(Y.id)?.key?.accessKey).toBe(sandbox.demoKey.accessKey);
    expect(sandbox.counters().requests.token).toBe(2);
    expect(sandbox.counters().status['429']).toBeUndefined();
  });
});
