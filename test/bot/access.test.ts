/** The allow-list, the admin's /stats, blocking and unblocking, groups, and /forget. */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultFilter } from '../../src/service/filter-model.js';
import { entry } from '../store/fixtures.js';
import { ALICE, BORIS, CAROL, createHarness, DEMO_KEY, DEMO_SECRET, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('ALLOWED_USER_IDS and ADMIN_USER_IDS', () => {
  it('refuses others politely in their language, for messages, buttons and inline queries', async () => {
    h = await createHarness({ allowed: [ALICE.id], admins: [CAROL.id] });
    await h.say(BORIS, '/start');
    expect(h.last(BORIS.id).text).toContain('это частный бот');
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
    await h.say({ ...BORIS, id: 404, language_code: 'en' }, '/connect a b');
    expect(h.last(404).text).toContain('this bot is private');

    const message = await h.plant(BORIS.id, 'x', [['x', 'f:p:0']]);
    await h.press(BORIS, message, 'f:p:0');
    expect(h.callbackText()).toContain('частный бот');
    await h.handle(h.fake.inlineQuery(BORIS, 'x'));
    expect(h.fake.answers.inline.at(-1)?.results).toEqual([]);

    await h.say(ALICE, '/start');
    expect(h.last(ALICE.id).text).toContain('Betting opportunity alerts');
    // Admins are always allowed.
    await h.say(CAROL, '/start');
    expect(h.last(CAROL.id).text).toContain('Betting opportunity alerts');
  });

  it('someone taken off the list may still /pause and /forget what is stored, and nothing else', async () => {
    // Alice's data from before she was taken off the list.
    h = await createHarness({ allowed: [BORIS.id] });
    h.store.updateUser(
      ALICE.id,
      (u) => {
        u.key = { accessKey: DEMO_KEY, secretEnc: h.vault.encrypt(DEMO_SECRET), connectedAt: 0 };
        u.filters.arbs_prematch = { settings: defaultFilter(), paused: false, pausedReason: null, savedAt: 0 };
      },
      { chatId: ALICE.id, lang: 'en' },
    );
    await h.say(ALICE, '/filters');
    expect(h.last(ALICE.id).text).toContain('this bot is private');
    await h.say(ALICE, '/pause');
    expect(h.last(ALICE.id).text).toContain('Paused');
    expect(h.store.getUser(ALICE.id)?.filters.arbs_prematch?.paused).toBe(true);
    await h.say(ALICE, '/forget');
    const ask = h.last(ALICE.id);
    await h.press(ALICE, ask, h.button(ask, 'Yes, delete everything'));
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
    // Once forgotten, nothing passes any more.
    await h.say(ALICE, '/pause');
    expect(h.last(ALICE.id).text).toContain('this bot is private');
  });

  it('/stats for admins only', async () => {
    h = await createHarness({ admins: [CAROL.id], stats: () => ({ reads_per_minute: 12.5, alerts_per_minute: 3, errors: 1 }) });
    await h.connect();
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/filter arbs_prematch');
    await h.say(ALICE, '/pause arbs_live');
    await h.say(ALICE, '/stats');
    expect(h.last(ALICE.id).text).toContain('do not know that command');
    await h.say(CAROL, '/stats');
    const text = h.last(CAROL.id).text;
    expect(text).toContain('users: <b>1</b>');
    expect(text).toContain('users_with_key: <b>1</b>');
    expect(text).toContain('subscriptions_active: <b>1</b>');
    expect(text).toContain('subscriptions_paused: <b>1</b>');
    expect(text).toContain('reads_per_minute: <b>12.5</b>');
    expect(text).toContain('errors: <b>1</b>');
  });
});

describe('my_chat_member', () => {
  it('a user who blocks the bot is marked blocked (scheduler told) and unmarked on return', async () => {
    h = await createHarness();
    await h.connect();
    const before = h.scheduler.refreshed.length;
    await h.handle(h.fake.chatMember(ALICE, 'kicked'));
    expect(h.store.getUser(ALICE.id)?.blocked).toBe(true);
    expect(h.scheduler.refreshed.length).toBe(before + 1);
    await h.handle(h.fake.chatMember(ALICE, 'member'));
    expect(h.store.getUser(ALICE.id)?.blocked).toBe(false);
    // Unknown users leave no record.
    await h.handle(h.fake.chatMember(BORIS, 'kicked'));
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
  });

  it('a blocked user who writes again is unblocked even without a my_chat_member update', async () => {
    h = await createHarness();
    await h.connect();
    h.store.updateUser(ALICE.id, (u) => {
      u.blocked = true;
    });
    const before = h.scheduler.refreshed.length;
    await h.say(ALICE, '/status');
    expect(h.store.getUser(ALICE.id)?.blocked).toBe(false);
    expect(h.scheduler.refreshed.length).toBeGreaterThan(before);
  });

  it('the bot removed from an alert group: alerts go back to the private chat, with a note', async () => {
    h = await createHarness();
    h.fake.setChat({ id: -3001, type: 'supergroup', title: 'Signals', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.connect();
    await h.say(ALICE, '/settings alerts -3001');
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBe(-3001);
    await h.handle(h.fake.chatMember(ALICE, 'left', { id: -3001, type: 'supergroup', title: 'Signals' }));
    expect(h.store.getUser(ALICE.id)?.alertChatId).toBeNull();
    expect(h.last(ALICE.id).text).toContain('I was removed from “Signals”');
  });
});

describe('groups', () => {
  it('commands in a group point to the private chat; other chatter is ignored', async () => {
    h = await createHarness();
    const group = { id: -4001, type: 'supergroup' as const, title: 'Room' };
    h.fake.setChat({ id: -4001, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.say(ALICE, '/filter@bb_test_bot', group);
    expect(h.last(-4001).text).toContain('private chat: @bb_test_bot');
    const count = h.sent(-4001).length;
    await h.say(ALICE, 'just talking', group);
    await h.say(ALICE, '/start@other_bot', group);
    expect(h.sent(-4001)).toHaveLength(count);
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
  });
});

describe('/forget', () => {
  it('asks, then deletes the key, filters, alert state and the tokens; the secret is gone from DATA_DIR', async () => {
    h = await createHarness();
    await h.connect();
    await h.say(ALICE, '/filter arbs_live');
    h.store.alerts.set(`${ALICE.id}:arbs_live`, 'i1', entry({ eventId: 'e1', chatId: ALICE.id, messageId: 9 }));
    const blob = h.store.getUser(ALICE.id)?.key?.secretEnc ?? '';
    expect(await h.dataFiles()).toContain(blob);

    await h.say(ALICE, '/forget');
    const ask = h.last(ALICE.id);
    expect(ask.text).toContain('cannot be undone');
    expect(h.store.getUser(ALICE.id)).toBeDefined();
    await h.press(ALICE, ask, h.button(ask, 'Yes, delete everything'));
    expect(h.store.getUser(ALICE.id)).toBeUndefined();
    expect(h.store.findUserByAccessKey(DEMO_KEY)).toBeUndefined();
    expect(h.store.alerts.entries(`${ALICE.id}:arbs_live`)).toEqual([]);
    expect(h.client.callsOf('forgetKey').map((c) => c.accessKey)).toContain(DEMO_KEY);
    expect(h.scheduler.refreshed.at(-1)).toBe(ALICE.id);
    expect(h.fake.messages(ALICE.id).find((m) => m.message_id === ask.message_id)?.text).toContain('everything I stored about you is deleted');
    const files = await h.dataFiles();
    expect(files).not.toContain(blob);
    expect(files).not.toContain(DEMO_KEY);
    expect(files).not.toContain(DEMO_SECRET);
    // The key is free for someone else now.
    await h.say(BORIS, `/connect ${DEMO_KEY} ${DEMO_SECRET}`);
    expect(h.store.getUser(BORIS.id)?.key?.accessKey).toBe(DEMO_KEY);
  });

  it('"No" keeps everything; an expired confirmation deletes nothing', async () => {
    h = await createHarness();
    await h.connect();
    await h.say(ALICE, '/forget');
    const ask = h.last(ALICE.id);
    await h.press(ALICE, ask, h.button(ask, 'No'));
    expect(h.store.getUser(ALICE.id)?.key).not.toBeNull();
    expect(h.fake.messages(ALICE.id).find((m) => m.message_id === ask.message_id)?.text).toContain('Nothing was deleted');

    await h.say(ALICE, '/forget');
    const again = h.last(ALICE.id);
    await h.clock.advance(11 * 60_000);
    await h.press(ALICE, again, h.button(again, 'Yes'));
    expect(h.callbackText()).toContain('has expired');
    expect(h.store.getUser(ALICE.id)).toBeDefined();
  });

  it('with nothing stored says so', async () => {
    h = await createHarness();
    await h.say(BORIS, '/forget');
    expect(h.last(BORIS.id).text).toContain('ничего о вас не храню');
  });
});

describe('robustness', () => {
  it('an error in a feature is logged and answered, never a crash', async () => {
    h = await createHarness();
    await h.connect();
    await h.say(ALICE, '/filter arbs_live');
    h.scheduler.coverage = () => {
      throw new Error('planner exploded');
    };
    await h.say(ALICE, '/status');
    expect(h.last(ALICE.id).text).toContain('Something went wrong on my side');
    expect(h.logs.some((l) => l.includes('update failed') && l.includes('planner exploded'))).toBe(true);
    // The bot goes on.
    await h.say(ALICE, '/help');
    expect(h.last(ALICE.id).text).toContain('Commands');
  });

  it("Telegram's 429 is retried after retry_after, outside and inside conversations", async () => {
    h = await createHarness();
    await h.connect();
    h.fake.failNext({ method: 'sendMessage', count: 1, code: 429, retryAfter: 1 });
    await h.say(ALICE, '/help');
    expect(h.last(ALICE.id).text).toContain('Commands');

    await h.say(ALICE, '/filter');
    h.fake.failNext({ method: 'sendMessage', count: 1, code: 429, retryAfter: 1 });
    const prompt = h.last(ALICE.id);
    await h.press(ALICE, prompt, h.button(prompt, 'Arbs · live'));
    expect(h.last(ALICE.id).text).toContain('Arbs · live: sports');
    expect(h.fake.calls('sendMessage').filter((c) => !c.ok && c.error_code === 429)).toHaveLength(2);
  });
});
