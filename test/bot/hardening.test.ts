/**
 * The holes of issue 10 that a user can reach through the bot, each reproduced: a secret
 * replaced, quoted or left in a chat; one user spending a budget others need; flow buttons
 * pressed by someone else; typed words reaching Object.prototype; dot-only ids; a /filters list
 * past 4,096 characters; a button without its message answered twice; "1 opportunities".
 */
import { GrammyError } from 'grammy';
import type { Update } from 'grammy/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeAlertAction, type AlertAction } from '../../src/alerts/callbacks.js';
import { CAP_RULES } from '../../src/bot/caps.js';
import { quietly } from '../../src/bot/ui/quietly.js';
import { MESSAGE_MAX, plainLength } from '../../src/bot/ui/plain.js';
import { translator } from '../../src/locales/i18n.js';
import { captureLogs } from '../support/logs.js';
import { fixtureDictionaries, makeItem } from './fakes.js';
import { ALICE, BORIS, CAROL, createHarness, DEMO_KEY, DEMO_SECRET, recordGroupAlert, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const data = (action: AlertAction): string => {
  const encoded = encodeAlertAction(action);
  if (!encoded) throw new Error('not encodable');
  return encoded;
};

/** Every text the bot sent or toasted anywhere, and every log line. */
function everything(): string {
  const sent = h.fake.messages().flatMap((m) => [m.text, ...m.history]);
  const toasts = h.fake.answers.callback.map((a) => a.text ?? '');
  const inline = h.fake.answers.inline.map((a) => JSON.stringify(a));
  return [...sent, ...toasts, ...inline, ...h.logs].join('\n');
}

/** Telegram refusals the bot provoked (a deliberate delete of a message already gone is not one). */
const refusals = () => h.fake.calls().filter((c) => !c.ok);

describe('a secret is never replaced, quoted or left behind', () => {
  it('the alert\'s "Other amount" button while the secret is expected: refused, the secret still taken as the secret', async () => {
    await h.connect();
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const d = data({ type: 'stakes', service: 'arbs_prematch', itemId: 'a1' });
    const alert = await h.plant(ALICE.id, 'alert', [['Stakes', d]]);
    const otherSecret = 'other-secret-9876543210';
    h.client.addKey('key-two', otherSecret);
    await h.say(ALICE, '/connect');
    await h.say(ALICE, 'key-two');
    await h.press(ALICE, alert, d);
    expect(h.callbackText()).toContain('waiting for your secret key');
    await h.say(ALICE, otherSecret);
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text === otherSecret)?.deleted).toBe(true);
    expect(h.last(ALICE.id).text).toContain('connected instead of your old key');
    expect(everything()).not.toContain(otherSecret);
    expect(everything()).not.toContain('is not a number');
  });

  it('"Edit" on an old /filters message while the secret is expected: refused, so the secret never enters the builder', async () => {
    await h.connect();
    await h.say(ALICE, '/filter arbs_prematch');
    await h.say(ALICE, '/filters');
    const list = h.last(ALICE.id);
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.press(ALICE, list, h.button(list, 'Edit'));
    expect(h.callbackText()).toContain('waiting for your secret key');
    await h.say(ALICE, DEMO_SECRET);
    expect(h.fake.userMessages(ALICE.id).filter((m) => m.text === DEMO_SECRET).every((m) => m.deleted)).toBe(true);
    expect(h.last(ALICE.id).text).toContain('connected');
    // No filter builder ran: no prompt of it was sent.
    expect(h.sent(ALICE.id).some((m) => m.text.includes('Sports for'))).toBe(false);
    expect(await h.dataFiles()).not.toContain(DEMO_SECRET);
  });

  it('a command while the secret is expected is deleted too, and the closed question is named', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    await h.say(ALICE, `/item ${DEMO_SECRET}`);
    expect(h.fake.userMessages(ALICE.id).find((m) => m.text.startsWith('/item'))?.deleted).toBe(true);
    expect(h.sent(ALICE.id).some((m) => m.text.includes('stopped waiting for your secret key'))).toBe(true);
    expect(everything()).not.toContain(DEMO_SECRET);
  });

  it('an edited message while the secret is expected is deleted and answered', async () => {
    await h.say(ALICE, '/connect');
    await h.say(ALICE, DEMO_KEY);
    const update = h.fake.sendText(ALICE, 'hello');
    const edited: Update = { update_id: update.update_id, edited_message: { ...update.message!, text: DEMO_SECRET, edit_date: 1 } };
    await h.handle(edited);
    expect(h.fake.calls('deleteMessage').at(-1)?.payload.message_id).toBe(update.message?.message_id);
    expect(h.last(ALICE.id).text).toContain('deleted your edited message');
    expect(everything()).not.toContain(DEMO_SECRET);
  });

  it('/connect with a secret in a group, a channel, an edit or a caption is deleted; the group is told to use the private chat', async () => {
    const group = { id: -5001, type: 'supergroup' as const, title: 'Room' };
    h.fake.setChat({ id: -5001, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, `/connect ${DEMO_KEY} ${DEMO_SECRET}`, group);
    expect(h.fake.userMessages(-5001)[0]?.deleted).toBe(true);
    expect(h.last(-5001).text).toContain('I deleted a message with a secret key here');
    expect(h.last(-5001).text).toContain('@bb_test_bot');
    // Nothing was checked or stored from a group.
    expect(h.client.callsOf('checkKey')).toHaveLength(0);
    expect(h.store.getUser(ALICE.id)).toBeUndefined();

    const channel = { id: -5002, type: 'channel' as const, title: 'News' };
    h.fake.setChat({ id: -5002, type: 'channel', title: 'News', botIsAdmin: true, adminIds: [ALICE.id] });
    const post = h.fake.sendText(ALICE, `/connect ${DEMO_KEY} ${DEMO_SECRET}`, channel);
    await h.handle(post);
    expect(h.fake.userMessages(-5002)[0]?.deleted).toBe(true);

    const plain = h.fake.sendText(ALICE, 'nothing here', group);
    await h.handle(plain);
    await h.handle({ update_id: plain.update_id + 1000, edited_message: { ...plain.message!, text: `/connect ${DEMO_KEY} ${DEMO_SECRET}`, edit_date: 2 } });
    expect(h.fake.userMessages(-5001).find((m) => m.message_id === plain.message?.message_id)?.deleted).toBe(true);

    // A private chat's edited /connect line is deleted too (the /connect handler sees only new messages).
    const mine = h.fake.sendText(ALICE, 'hi');
    await h.handle({ update_id: mine.update_id + 2000, edited_message: { ...mine.message!, text: `/connect ${DEMO_KEY} ${DEMO_SECRET}`, edit_date: 3 } });
    expect(h.fake.userMessages(ALICE.id).find((m) => m.message_id === mine.message?.message_id)?.deleted).toBe(true);
    // Addressed to another bot, or as a photo's caption: not /connect's, deleted all the same.
    await h.say(ALICE, `/connect@other_bot ${DEMO_KEY} ${DEMO_SECRET}`);
    expect(h.fake.userMessages(ALICE.id).at(-1)?.deleted).toBe(true);
    const photo = h.fake.sendText(ALICE, 'x');
    const { text: _text, ...rest } = photo.message!;
    await h.handle({ update_id: photo.update_id, message: { ...rest, photo: [{ file_id: 'f', file_unique_id: 'u', width: 1, height: 1 }], caption: `/connect ${DEMO_KEY} ${DEMO_SECRET}` } });
    expect(h.fake.userMessages(ALICE.id).at(-1)?.deleted).toBe(true);
    expect(everything()).not.toContain(DEMO_SECRET);
  });

  it('a reply never quotes more than a few characters of what was typed', async () => {
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    await h.connect();
    const d = data({ type: 'stakes', service: 'arbs_prematch', itemId: 'a1' });
    const alert = await h.plant(ALICE.id, 'alert', [['Stakes', d]]);
    await h.press(ALICE, alert, d);
    const pasted = 'Zx9-looks-like-a-secret-42';
    await h.say(ALICE, pasted);
    expect(h.last(ALICE.id).text).toContain('is not an amount');
    for (const text of [`/settings tz ${pasted}`, `/settings lang ${pasted}`, `/pause ${pasted}`, `/item ${pasted}`, `/filter ${pasted}`, `/settings ${pasted} 1`]) {
      await h.say(ALICE, text);
    }
    const replies = h.sent(ALICE.id).map((m) => m.text).join('\n');
    expect(replies).not.toContain(pasted);
    expect(replies).not.toContain(pasted.slice(0, 6));
  });
});

describe('per-user and per-key caps', () => {
  it('key checks: a user\'s cap stops made-up keys before the service is asked, with the wait in words; it frees up with time', async () => {
    const cap = CAP_RULES.connect.perUser;
    for (let i = 0; i < cap + 2; i++) await h.say(ALICE, `/connect made-up-${i} secret-${i}-xyz`);
    expect(h.client.callsOf('checkKey')).toHaveLength(cap);
    expect(h.last(ALICE.id).text).toContain('many key checks lately');
    expect(h.last(ALICE.id).text).toMatch(/try \/connect again in 60 minutes/);
    // The secret of each refused line was deleted all the same.
    expect(h.fake.userMessages(ALICE.id).every((m) => m.deleted)).toBe(true);
    // Another user is not held by Alice's cap.
    await h.connect(BORIS);
    await h.clock.advance(59 * 60_000);
    await h.say(ALICE, '/connect made-up-x secret-x-xyz');
    expect(h.last(ALICE.id).text).toMatch(/again in 1 minute\./);
    await h.clock.advance(60_000);
    await h.say(ALICE, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    expect(h.last(ALICE.id).text).toContain('connected');
  });

  it('one key tried by several users is capped for all of them, in each one\'s language', async () => {
    const cap = CAP_RULES.connect.perKey;
    const users = [ALICE, CAROL, { id: 404, first_name: 'Dan', language_code: 'en' }];
    for (let i = 0; i < cap; i++) await h.say(users[i % users.length]!, `/connect shared-key guess-${i}-xyz`);
    await h.say(BORIS, '/connect shared-key guess-b-xyz');
    expect(h.client.callsOf('checkKey')).toHaveLength(cap);
    expect(h.last(BORIS.id).text).toContain('Слишком много проверок ключей');
    expect(h.last(BORIS.id).text).toMatch(/через 60 минут/);
  });

  it('lookups, inline searches and filter writes are capped per user', async () => {
    await h.connect();
    h.client.items = [makeItem({ id: 'x1' })];
    for (let i = 0; i < CAP_RULES.lookup.perUser; i++) await h.say(ALICE, '/item x1 arbs_prematch');
    await h.say(ALICE, '/item x1 arbs_prematch');
    expect(h.client.callsOf('readItem')).toHaveLength(CAP_RULES.lookup.perUser);
    expect(h.last(ALICE.id).text).toMatch(/I could not look now: you made many lookups.*The limit frees in 1 minute\./);
    // The alert's "all items" button counts as a lookup too.
    const ev = data({ type: 'event', service: 'arbs_prematch', eventId: 'e-x1' });
    const alert = await h.plant(ALICE.id, 'alert', [['All', ev]]);
    await h.press(ALICE, alert, ev);
    expect(h.client.callsOf('readEventItems')).toHaveLength(0);
    expect(h.last(ALICE.id).text).toContain('you made many lookups');

    for (let i = 0; i < CAP_RULES.inline.perUser; i++) await h.handle(h.fake.inlineQuery(ALICE, 'x'));
    await h.handle(h.fake.inlineQuery(ALICE, 'x'));
    expect(JSON.stringify(h.fake.answers.inline.at(-1)?.button)).toContain('Too many searches');

    for (let i = 0; i < CAP_RULES.filter.perUser; i++) await h.say(ALICE, `/filter arbs_prematch min_profit=${i}`);
    await h.say(ALICE, '/filter arbs_prematch min_profit=1');
    expect(h.client.callsOf('writeFilter')).toHaveLength(CAP_RULES.filter.perUser);
    expect(h.last(ALICE.id).text).toContain('Too many filter saves');
    expect(refusals()).toEqual([]);
  });
});

describe('buttons, groups and typed words', () => {
  it('flow buttons act only in the presser\'s private chat; a forged one in a group is refused', async () => {
    await h.connect();
    await h.say(ALICE, '/filter arbs_prematch');
    h.fake.setChat({ id: -6001, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id] });
    for (const d of ['f:p:0', 'f:e:0', 'f:dy:0', 'fg:y:zzzz', 'cv:v:0']) {
      const forged = await h.plant(-6001, 'forged', [['x', d]]);
      await h.press(BORIS, forged, d);
      expect(h.callbackText()).toBe('Эти кнопки принадлежат другому пользователю.');
      await h.press(ALICE, forged, d);
      expect(h.callbackText()).toBe('These buttons belong to someone else.');
    }
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.paused).toBe(false);
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
  });

  it('"Other amount" under an alert in a group asks in the private chat, where the answer is read', async () => {
    await h.connect();
    h.fake.setChat({ id: -2001, type: 'supergroup', title: 'Team', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/settings alerts -2001');
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);
    const d = data({ type: 'stakes', service: 'arbs_prematch', itemId: 'a1' });
    const alert = await h.plant(-2001, 'alert', [['Stakes', d]]);
    recordGroupAlert(h.store, ALICE.id, 'a1', 'e-a1', alert);
    const groupCount = h.sent(-2001).length;
    await h.press(ALICE, alert, d);
    expect(h.callbackText()).toBe('I asked for the amount in our private chat.');
    expect(h.sent(-2001)).toHaveLength(groupCount);
    expect(h.last(ALICE.id).text).toContain('Send the amount to split');
    await h.say(ALICE, '250');
    expect(h.last(ALICE.id).text).toContain('Stakes for 250');
  });

  it('typed words never reach Object.prototype', async () => {
    await h.say(ALICE, '/start');
    for (const text of ['/settings lang constructor', '/settings __proto__ x', '/settings constructor x', '/settings lang toString', '/settings lang __proto__', '/pause constructor']) {
      await h.say(ALICE, text);
      expect(h.last(ALICE.id).text, text).not.toContain('Something went wrong');
    }
    expect(h.last(ALICE.id).text).not.toContain('Something went wrong');
    expect(h.store.getUser(ALICE.id)?.lang).toBe('en');
    // The settings menu with a forged field button.
    await h.say(ALICE, '/settings');
    const menu = h.last(ALICE.id);
    const forged = await h.plant(ALICE.id, 'menu', [['x', 'cv:f:constructor']]);
    await h.press(ALICE, menu, h.button(menu, 'Language'));
    await h.say(ALICE, '/cancel');
    await h.press(ALICE, forged, 'cv:f:constructor');
    expect(h.logs.join('\n')).not.toContain('update failed');
  });

  it('forged flow data pressed on the current prompt is no answer: refused as stale, the question stays open', async () => {
    await h.say(ALICE, '/start');
    await h.say(ALICE, '/settings');
    const menu = h.last(ALICE.id);
    for (const d of ['cv:f:constructor', 'cv:t:1e9', 'cv:v:-1', 'cv:zzz']) {
      // A client can send any data as a press on a real message: the menu's own, rewritten.
      const press = h.fake.pressButton(ALICE, menu, h.button(menu, 'Language'));
      await h.handle({ ...press, callback_query: { ...press.callback_query!, data: d } });
      expect(h.callbackText(), d).toBe('This button is no longer active.');
    }
    await h.press(ALICE, menu, h.button(menu, 'Language'));
    expect(h.last(ALICE.id).text).toBe('Which language?');
    expect(h.logs.join('\n')).not.toContain('update failed');
  });

  it('keys and ids of dots only are refused before anything is sent', async () => {
    await h.say(ALICE, '/connect .. some-secret-xyz');
    expect(h.last(ALICE.id).text).toContain('does not look like an access key');
    await h.say(ALICE, '/connect');
    await h.say(ALICE, '...');
    expect(h.last(ALICE.id).text).toContain('does not look like an access key');
    await h.say(ALICE, '/cancel');
    await h.connect();
    await h.say(ALICE, '/item .. arbs_prematch');
    await h.say(ALICE, '/event . arbs_prematch');
    expect(h.client.callsOf('checkKey')).toHaveLength(1);
    expect(h.client.callsOf('readItem')).toHaveLength(0);
    expect(h.client.callsOf('readEventItems')).toHaveLength(0);
  });

  it('/filters stays within one message whatever the dictionaries\' names hold', async () => {
    await h.connect();
    const long = (i: number) => `${'Ω'.repeat(300)} ${i}`;
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    h.client.cachedDictionaries = (lang) => ({
      ...fixtureDictionaries(lang),
      sports: Object.fromEntries(ids.map((i) => [String(i), long(i)])),
      bookmakers: Object.fromEntries(ids.map((i) => [String(i), `<b>${long(i)}</b>`])),
    });
    for (const s of ['arbs_prematch', 'arbs_live', 'middles_prematch', 'middles_live', 'valuebets_prematch', 'valuebets_live']) {
      await h.say(ALICE, `/filter ${s} sports=${ids.join(',')} bookmakers=${ids.join(',')}`);
    }
    await h.say(ALICE, '/filters');
    const list = h.last(ALICE.id);
    expect(list.text).toContain('Your filters');
    expect(plainLength(list.text)).toBeLessThanOrEqual(MESSAGE_MAX);
    expect(h.labels(list)).toHaveLength(18);
    expect(refusals()).toEqual([]);
  });

  it('a pause button without its message is answered once, and the change is made', async () => {
    await h.connect();
    await h.say(ALICE, '/filter arbs_prematch');
    await h.say(ALICE, '/filters');
    const list = h.last(ALICE.id);
    const press = h.fake.pressButton(ALICE, list, h.button(list, '⏸'));
    const { message: _message, ...query } = press.callback_query!;
    await h.handle({ update_id: press.update_id, callback_query: { ...query, chat_instance: '1' } });
    expect(h.fake.calls('answerCallbackQuery')).toHaveLength(1);
    expect(refusals()).toEqual([]);
    // From its own chat the same press works and is answered once.
    await h.press(ALICE, list, h.button(list, '⏸'));
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.paused).toBe(true);
    expect(h.fake.calls('answerCallbackQuery')).toHaveLength(2);
  });

  it('a failure after a press was answered is told in the chat, not by a second answer', async () => {
    await h.connect();
    h.client.readEventItems = async () => {
      throw new Error('boom');
    };
    const ev = data({ type: 'event', service: 'arbs_prematch', eventId: 'ev1' });
    const alert = await h.plant(ALICE.id, 'alert', [['All', ev]]);
    await h.press(ALICE, alert, ev);
    expect(h.fake.calls('answerCallbackQuery')).toHaveLength(1);
    expect(h.last(ALICE.id).text).toContain('Something went wrong');
    expect(refusals()).toEqual([]);
  });

  it('quietly() catches a call that throws before it returns a promise', async () => {
    const logs = captureLogs();
    const throwsAtOnce = (): Promise<unknown> => {
      throw new Error('Missing information for API call to editMessageText');
    };
    expect(await quietly(logs.logger, 'editing', throwsAtOnce)).toBe(false);
    expect(await quietly(logs.logger, 'editing', async () => 1)).toBe(true);
    expect(logs.lines).toEqual([]);
  });

  it('quietly() passes the harmless failures without a word and logs any other, with its message', async () => {
    const logs = captureLogs();
    const refused = (code: number, description: string) => async () => {
      throw new GrammyError("Call to 'editMessageText' failed!", { ok: false, error_code: code, description }, 'editMessageText', {});
    };
    for (const description of ['Bad Request: message is not modified: specified new message content and reply markup are exactly the same', 'Bad Request: message to edit not found', "Bad Request: message can't be edited", 'Bad Request: query is too old and response timeout expired or query ID is invalid']) {
      expect(await quietly(logs.logger, 'editing a prompt', refused(400, description))).toBe(false);
    }
    expect(logs.lines).toEqual([]);
    // What an operator would want to know: the bot lost its rights, or the network is down.
    expect(await quietly(logs.logger, 'editing a prompt', refused(403, 'Forbidden: bot was kicked from the group chat'))).toBe(false);
    expect(await quietly(logs.logger, 'showing "typing"', async () => { throw new Error('connect ECONNREFUSED 127.0.0.1:9'); })).toBe(false);
    const records = logs.records();
    expect(records.map((r) => [r.level, r.msg, r.error])).toEqual([
      [20, 'editing a prompt failed; going on without it', "Call to 'editMessageText' failed! (403: Forbidden: bot was kicked from the group chat)"],
      [20, 'showing "typing" failed; going on without it', 'connect ECONNREFUSED 127.0.0.1:9'],
    ]);
  });

  it('counts use the plural rules of each language', async () => {
    const en = translator('en');
    const ru = translator('ru');
    expect(en('event_items', { id: 'e', n: 1 })).toContain('1 opportunity.');
    expect(en('event_items', { id: 'e', n: 3 })).toContain('3 opportunities.');
    expect(ru('event_items', { id: 'e', n: 1 })).toContain('1 возможность.');
    expect(ru('event_items', { id: 'e', n: 3 })).toContain('3 возможности.');
    expect(ru('event_items', { id: 'e', n: 5 })).toContain('5 возможностей.');
    expect(ru('event_items', { id: 'e', n: 21 })).toContain('21 возможность.');
    expect(ru('wait_min', { n: 12 })).toBe('12 минут');
    expect(en('wait_s', { n: 1 })).toBe('1 second');
    await h.connect();
    h.client.items = [makeItem({ id: 'only', eventId: 'ev1' })];
    await h.say(ALICE, '/event ev1 arbs_prematch');
    expect(h.sent(ALICE.id).some((m) => m.text.includes('1 opportunity.'))).toBe(true);
  });
});
