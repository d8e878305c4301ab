/** /start, /help and /connect end to end through grammY: the vault flow, every answer of the key check, bad input. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { ManualClock } from '../../src/clock.js';
import { PendingInputs } from '../../src/bot/pending.js';
import { ALICE, BORIS, CAROL, createHarness, DEMO_KEY, DEMO_SECRET, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('/start and /help', () => {
  it('greets in English, creates the user and names the next step', async () => {
    await h.say(ALICE, '/start');
    const reply = h.last(ALICE.id);
    expect(reply.text).toContain('Betting opportunity alerts');
    expect(reply.text).toContain('/connect');
    expect(reply.parse_mode).toBe('HTML');
    expect(h.store.getUser(ALICE.id)).toMatchObject({ chatId: ALICE.id, lang: 'en', key: null });
  });

  it('guesses Russian from language_code and other languages as English', async () => {
    await h.say(BORIS, '/start');
    expect(h.last(BORIS.id).text).toContain('Оповещения о ставках');
    expect(h.store.getUser(BORIS.id)?.lang).toBe('ru');
    await h.say(CAROL, '/help');
    expect(h.last(CAROL.id).text).toContain('Commands');
  });

  it('/help says that for valuebets min_profit is the minimum overvalue (en, ru)', async () => {
    await h.say(CAROL, '/help');
    expect(h.last(CAROL.id).text).toContain('for valuebets min_profit is the minimum overvalue, same as min_overvalue');
    await h.say(BORIS, '/help');
    expect(h.last(BORIS.id).text).toContain('для валуйных min_profit — минимальный перевес, то же, что min_overvalue');
  });

  it('/help follows progress: connect, then filter, then running', async () => {
    await h.say(ALICE, '/help');
    expect(h.last(ALICE.id).text).toContain('access key pair with /connect');
    await h.connect();
    await h.say(ALICE, '/help');
    expect(h.last(ALICE.id).text).toContain('build a filter with /filter');
    await h.say(ALICE, '/filter arbs_prematch');
    await h.say(ALICE, '/help');
    expect(h.last(ALICE.id).text).toContain('Alerts are on');
  });
});

describe('/connect guided', () => {
  it('asks for the key, then the secret; deletes the secret message; stores it encrypted; masks the key', async () => {
    await h.say(ALICE, '/connect');
    expect(h.last(ALICE.id).text).toContain('Step 1 of 2');
    await h.say(ALICE, DEMO_KEY);
    expect(h.last(ALICE.id).text).toContain('Step 2 of 2');
    expect(h.last(ALICE.id).text).toContain('demo…key');
    expect(h.client.callsOf('checkKey')).toHaveLength(0);

    await h.say(ALICE, DEMO_SECRET);
    const secretMessage = h.fake.userMessages(ALICE.id).find((m) => m.text === DEMO_SECRET);
    expect(secretMessage?.deleted).toBe(true);
    const reply = h.last(ALICE.id).text;
    expect(reply).toContain('Key <code>demo…key</code> connected');
    expect(reply).toContain('I deleted your message with the secret');
    expect(reply).not.toContain(DEMO_KEY);
    expect(reply).not.toContain(DEMO_SECRET);

    const checks = h.client.callsOf('checkKey');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ accessKey: DEMO_KEY, service: 'arbs_prematch', opts: { priority: 'interactive', wait: false } });
    const key = h.store.getUser(ALICE.id)?.key;
    expect(key?.accessKey).toBe(DEMO_KEY);
    expect(key?.secretEnc).not.toContain(DEMO_SECRET);
    expect(h.vault.decrypt(key?.secretEnc ?? '', { userId: ALICE.id, accessKey: DEMO_KEY })).toBe(DEMO_SECRET);
    expect(h.scheduler.refreshed).toContain(ALICE.id);
    // Nothing of the secret in any file or log line.
    expect(await h.dataFiles()).not.toContain(DEMO_SECRET);
    expect(h.logs.join('\n')).not.toContain(DEMO_SECRET);
  });

  it('a bad secret changes nothing and the question stays open', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.say(ALICE, 'ab');
    expect(h.last(ALICE.id).text).toContain('does not look like a secret key');
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === 'ab')?.deleted).toBe(true);
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
    await h.say(ALICE, DEMO_SECRET);
    expect(h.store.getUser(ALICE.id)?.key?.accessKey).toBe(DEMO_KEY);
  });

  it('a bad or over-long access key gets a clear answer', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, '<b>not a key</b>');
    expect(h.last(ALICE.id).text).toContain('does not look like an access key');
    await h.say(ALICE, 'k'.repeat(300));
    expect(h.last(ALICE.id).text).toContain('too long');
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
  });

  it('a command in the middle closes the question politely and runs', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.say(ALICE, '/help');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    // The question was for the secret: the command's message is deleted too, and the answer says
    // that the next message is no longer taken as the secret.
    expect(texts.at(-2)).toContain('stopped waiting for your secret key');
    expect(texts.at(-1)).toContain('Commands');
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === '/help')?.deleted).toBe(true);
    // The next message is not taken as a secret any more.
    await h.say(ALICE, DEMO_SECRET);
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
    expect(h.last(ALICE.id).text).toContain('not sure what you mean');
  });

  it('/cancel stops the flow', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, '/cancel');
    expect(h.last(ALICE.id).text).toContain('Stopped');
    await h.say(ALICE, DEMO_KEY);
    expect(h.last(ALICE.id).text).toContain('not sure what you mean');
    await h.say(ALICE, '/cancel');
    expect(h.last(ALICE.id).text).toContain('nothing to stop');
  });

  it('the question expires after 10 minutes of the clock', async () => {
    await h.say(ALICE, '/connect');
    await h.clock.advance(11 * 60_000);
    await h.say(ALICE, DEMO_KEY);
    expect(h.last(ALICE.id).text).toContain('not sure what you mean');
  });
});

describe('a secret pasted after its question expired', () => {
  it('is deleted within the hour (any single word of 16+ characters), with the reason, and never used', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.clock.advance(11 * 60_000);
    await h.say(ALICE, DEMO_SECRET);
    const late = h.fake.userMessages(ALICE.id).find((m) => m.text === DEMO_SECRET);
    expect(late?.deleted).toBe(true);
    expect(h.last(ALICE.id).text).toContain('I deleted your message: it looked like a secret key');
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
    expect(h.logs.join('\n')).not.toContain(DEMO_SECRET);

    // Another command does not end the watch; short words, sentences and known commands pass.
    await h.say(ALICE, '/help');
    await h.say(ALICE, 'ok thanks');
    await h.say(ALICE, 'short-word');
    await h.say(ALICE, '/notifications_x');
    await h.say(ALICE, 'Zx9-another-secret-77');
    const kept = h.fake.userMessages(ALICE.id).filter((m) => ['ok thanks', 'short-word', '/help'].includes(m.text ?? ''));
    expect(kept.every((m) => !m.deleted)).toBe(true);
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === 'Zx9-another-secret-77')?.deleted).toBe(true);
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === '/notifications_x')?.deleted).toBe(true);
  });

  it('says in Russian too, and asks the user to delete it when Telegram refuses', async () => {
    await h.say(BORIS, '/connect');
    await h.say(BORIS, DEMO_KEY);
    await h.clock.advance(30 * 60_000);
    await h.say(BORIS, DEMO_SECRET);
    expect(h.last(BORIS.id).text).toContain('Я удалил ваше сообщение: оно похоже на секретный ключ');
    h.fake.failNext({ method: 'deleteMessage', count: 1, code: 400, description: "Bad Request: message can't be deleted" });
    await h.say(BORIS, 'second-secret-pasted');
    expect(h.last(BORIS.id).text).toContain('удалить сообщение я не смог');
  });

  it('the watch ends an hour after the question expired, and does not start for an answered or a key question', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.clock.advance(10 * 60_000 + 61 * 60_000);
    await h.say(ALICE, DEMO_SECRET);
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === DEMO_SECRET)?.deleted).not.toBe(true);

    // Only the secret question leaves a watch: an expired access-key question does not.
    await h.say(CAROL, '/connect');
    await h.clock.advance(11 * 60_000);
    await h.say(CAROL, 'a-long-access-key-name');
    expect(h.fake.userMessages(CAROL.id).find((m) => m.text === 'a-long-access-key-name')?.deleted).not.toBe(true);

    // A connected key ends the watch.
    await h.say(BORIS, '/connect');
    await h.say(BORIS, DEMO_KEY);
    await h.clock.advance(11 * 60_000);
    await h.say(BORIS, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    await h.say(BORIS, 'some-long-single-word');
    expect(h.fake.userMessages(BORIS.id).find((m) => m.text === 'some-long-single-word')?.deleted).not.toBe(true);
  });

  it('the marker holds nothing of the question (no key, no secret)', async () => {
    const clock = new ManualClock(0);
    const pending = new PendingInputs(clock);
    await pending.set(1, 1, { kind: 'connect-secret', service: 'arbs_prematch', accessKey: DEMO_KEY });
    await clock.advance(11 * 60_000);
    expect(await pending.lateSecretWatch(1, 1)).toBe(true);
    expect(inspect(pending, { depth: 5 })).not.toContain(DEMO_KEY);
  });
});

describe('/connect in one line', () => {
  it('deletes the message, checks once and answers with the masked key', async () => {
    await h.connect();
    const line = h.fake.userMessages(ALICE.id).find((m) => m.text.startsWith('/connect'));
    expect(line?.deleted).toBe(true);
    expect(h.last(ALICE.id).text).toContain('demo…key');
    expect(h.client.callsOf('checkKey')).toHaveLength(1);
    expect(h.store.getUser(ALICE.id)?.key?.accessKey).toBe(DEMO_KEY);
  });

  it('401: "the pair is wrong" and nothing stored', async () => {
    await h.say(ALICE, `/connect ${DEMO_KEY} wrong-secret-123`);
    expect(h.last(ALICE.id).text).toContain('is wrong');
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
    expect(h.fake.userMessages(ALICE.id)[0]?.deleted).toBe(true);
  });

  it('403 for the named service: the pair is right, no access; the key is stored', async () => {
    h.client.addKey('arbs-only', 'secret-arbs-1', ['arbs_prematch']);
    await h.say(ALICE, '/connect arbs-only secret-arbs-1 valuebets_live');
    const text = h.last(ALICE.id).text;
    expect(text).toContain('is right, but it has no access to Valuebets · live');
    expect(h.client.callsOf('checkKey')[0]?.service).toBe('valuebets_live');
    expect(h.store.getUser(ALICE.id)?.key?.accessKey).toBe('arbs-only');
  });

  it('rate limited: says when to try again, nothing stored', async () => {
    h.client.failNext('checkKey', 'rate_limited', 5 * 60_000);
    await h.connect();
    expect(h.last(ALICE.id).text).toContain('try /connect again in 5 min');
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
  });

  it('timeout: says the service did not answer, nothing stored', async () => {
    h.client.failNext('checkKey', 'timeout');
    await h.connect();
    expect(h.last(ALICE.id).text).toContain('did not answer');
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
  });

  it('a key connected by another user: a stranger without its secret hears "wrong pair", as for a key that does not exist', async () => {
    await h.connect(ALICE);
    await h.say(CAROL, `/connect ${DEMO_KEY} guessed-secret-1`);
    const held = h.last(CAROL.id).text;
    await h.say(CAROL, '/connect no-such-key guessed-secret-1');
    const unknown = h.last(CAROL.id).text;
    expect(held).toContain('The pair for');
    expect(held.replace(/<code>[^<]*<\/code>/, '')).toBe(unknown.replace(/<code>[^<]*<\/code>/, ''));
    expect(held).not.toContain('another chat');
    // The guided form asks for the secret as for any key, instead of refusing at the key step.
    await h.say(CAROL, '/connect');
    await h.say(CAROL, DEMO_KEY);
    expect(h.last(CAROL.id).text).toContain('Step 2 of 2');
    expect(h.store.getUser(CAROL.id)?.key ?? null).toBeNull();
    expect(h.store.getUser(ALICE.id)?.key?.accessKey).toBe(DEMO_KEY);
  });

  it('junk pairs sent by a stranger for a held key do not lock its holder out of /connect', async () => {
    await h.connect(ALICE);
    for (let i = 0; i < 5; i++) await h.say(CAROL, `/connect ${DEMO_KEY} junk-secret-${i}`);
    expect(h.last(CAROL.id).text).toContain('many key checks lately');
    h.client.addKey(DEMO_KEY, 'rotated-secret-999');
    await h.say(ALICE, `/connect ${DEMO_KEY} rotated-secret-999`);
    expect(h.last(ALICE.id).text).toContain('connected');
    expect(h.vault.decrypt(h.store.getUser(ALICE.id)?.key?.secretEnc ?? '', { userId: ALICE.id, accessKey: DEMO_KEY })).toBe('rotated-secret-999');
  });

  it('a verified pair is refused with the reason while the holder\'s secret works', async () => {
    await h.connect(ALICE);
    await h.say(BORIS, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    expect(h.last(BORIS.id).text).toContain('уже подключён в другом чате');
    expect(h.store.getUser(BORIS.id)?.key ?? null).toBeNull();
    expect(h.store.getUser(ALICE.id)?.key?.accessKey).toBe(DEMO_KEY);
  });

  it('a verified pair takes the key over from a holder paused because the service refuses their secret', async () => {
    await h.connect(ALICE);
    await h.say(ALICE, '/filter arbs_prematch');
    h.store.updateUser(ALICE.id, (d) => {
      const f = d.filters.arbs_prematch;
      if (f) Object.assign(f, { paused: true, pausedReason: 'auth' });
    });
    // The key's owner rotated the secret and gave the new one to Boris.
    h.client.addKey(DEMO_KEY, 'rotated-secret-999');
    await h.say(BORIS, `/connect ${DEMO_KEY} rotated-secret-999`);
    expect(h.last(BORIS.id).text).toContain('подключён');
    expect(h.store.getUser(BORIS.id)?.key?.accessKey).toBe(DEMO_KEY);
    expect(h.vault.decrypt(h.store.getUser(BORIS.id)?.key?.secretEnc ?? '', { userId: BORIS.id, accessKey: DEMO_KEY })).toBe('rotated-secret-999');
    expect(h.store.getUser(ALICE.id)?.key ?? null).toBeNull();
    expect(h.last(ALICE.id).text).toContain('is now connected in another chat');
    expect(h.client.callsOf('forgetKey').map((c) => c.accessKey)).toContain(DEMO_KEY);
    expect(h.scheduler.refreshed).toContain(ALICE.id);
  });

  it('an unknown service or extra words: clear answer, message deleted anyway', async () => {
    await h.say(ALICE, `/connect ${DEMO_KEY} ${DEMO_SECRET} <i>pk</i>`);
    const text = h.last(ALICE.id).text;
    expect(text).toContain('“&lt;i&gt;pk&lt;/i&gt;” is not a service');
    expect(h.fake.userMessages(ALICE.id)[0]?.deleted).toBe(true);
    await h.say(ALICE, `/connect ${DEMO_KEY} ${DEMO_SECRET} arbs_live extra`);
    expect(h.last(ALICE.id).text).toContain('/connect &lt;access_key&gt;');
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
  });

  it('when Telegram refuses to delete the message, the user is told to delete it', async () => {
    h.fake.failNext({ method: 'deleteMessage', count: 1, code: 400, description: "Bad Request: message can't be deleted" });
    await h.connect();
    expect(h.last(ALICE.id).text).toContain('could not delete your message');
    expect(h.logs.join('\n')).not.toContain(DEMO_SECRET);
  });

  it('a new secret for the same key replaces the stored one and drops cached tokens', async () => {
    await h.connect();
    h.client.addKey(DEMO_KEY, 'rotated-secret-999');
    await h.say(ALICE, `/connect ${DEMO_KEY} rotated-secret-999`);
    expect(h.vault.decrypt(h.store.getUser(ALICE.id)?.key?.secretEnc ?? '', { userId: ALICE.id, accessKey: DEMO_KEY })).toBe('rotated-secret-999');
    expect(h.client.callsOf('forgetKey').map((c) => c.accessKey)).toEqual([DEMO_KEY]);
  });

  it('a different key moves the filters over with one write each', async () => {
    await h.connect();
    await h.say(ALICE, '/filter arbs_live min_profit=2');
    h.client.addKey('second-key', 'second-secret-1');
    await h.say(ALICE, '/connect second-key second-secret-1');
    expect(h.last(ALICE.id).text).toContain('instead of your old key');
    const writes = h.client.callsOf('writeFilter');
    expect(writes.map((w) => [w.accessKey, w.service])).toEqual([
      [DEMO_KEY, 'arbs_live'],
      ['second-key', 'arbs_live'],
    ]);
    expect(h.client.callsOf('forgetKey').map((c) => c.accessKey)).toContain(DEMO_KEY);
  });
});

describe('/connect and other flows', () => {
  it('/connect with a secret typed during the filter builder closes the builder first', async () => {
    await h.connect();
    await h.say(ALICE, '/filter');
    h.client.addKey('next-key', 'next-secret-1');
    await h.say(ALICE, '/connect next-key next-secret-1');
    expect(h.fake.userMessages(ALICE.id).at(-1)?.deleted).toBe(true);
    const texts = h.sent(ALICE.id).map((m) => m.text);
    expect(texts.at(-2)).toContain('I closed the step');
    expect(texts.at(-1)).toContain('Key <code>next…key</code> connected instead of your old key');
    // The builder is gone: a service name is not taken by it any more.
    await h.say(ALICE, 'arbs_live');
    expect(h.last(ALICE.id).text).toContain('not sure what you mean');
  });

  it('/start connect (from the inline button) asks for the key', async () => {
    await h.say(ALICE, '/start connect');
    expect(h.last(ALICE.id).text).toContain('Step 1 of 2');
  });
});
