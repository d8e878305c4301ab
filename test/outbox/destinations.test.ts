/**
 * Alert destinations stay true: periodic re-checks of the bot's and the user's rights, checks
 * after a refused send, supergroup migrations, and the fall-back to the private chat with a note.
 */
import { describe, expect, it, vi } from 'vitest';
import { Api } from 'grammy';
import { DestinationWatch, type DestinationWatchOptions } from '../../src/outbox/destinations.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { silentLogger } from '../../src/logger.js';
import { ALICE, BORIS, createHarness, type Harness } from '../bot/harness.js';
import { stopAfterEach } from '../support/teardown.js';

const GROUP = -1003001;
const MINUTE = 60_000;

const stopAfter = stopAfterEach();
let h: Harness;

/** ALICE (en) and BORIS (ru) both send alerts to GROUP, where the bot and both of them are admins. */
async function setup(options: Partial<DestinationWatchOptions> = {}) {
  h = stopAfter(await createHarness());
  h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Signals', botIsAdmin: true, adminIds: [ALICE.id, BORIS.id] });
  for (const user of [ALICE, BORIS]) {
    await h.connect(user);
    await h.say(user, `/settings alerts ${GROUP}`);
    expect(h.store.getUser(user.id)?.alertChatId).toBe(GROUP);
  }
  const told: { chatId: number; text: string }[] = [];
  const watch = stopAfter(new DestinationWatch({
    api: new Api(h.fake.token, { apiRoot: h.fake.apiRoot }),
    botId: () => h.fake.botUser.id,
    store: h.store,
    scheduler: h.scheduler,
    logger: silentLogger,
    clock: h.clock,
    tell: (chatId, text) => told.push({ chatId, text }),
    checkEveryMs: 30 * MINUTE,
    tickMs: MINUTE,
    ...options,
  }));
  return { watch, told };
}

/** Moves the clock minute by minute, letting each tick's HTTP round trips finish. */
async function minutes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await h.clock.advance(MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

const alertChat = (id: number) => h.store.getUser(id)?.alertChatId;

describe('periodic re-checks of an alert destination', () => {
  it('a user who is no longer an admin gets alerts in the private chat again, and is told (the other admin keeps the group)', async () => {
    const { watch, told } = await setup();
    watch.start();
    await minutes(31);
    // Checked once within the period, nothing changed.
    expect(h.fake.calls('getChatMember').length).toBeGreaterThan(0);
    expect(alertChat(ALICE.id)).toBe(GROUP);
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Signals', botIsAdmin: true, adminIds: [BORIS.id] });
    const refreshed = h.scheduler.refreshed.length;
    await minutes(31);
    await vi.waitFor(() => expect(alertChat(ALICE.id)).toBeNull());
    expect(alertChat(BORIS.id)).toBe(GROUP);
    expect(h.scheduler.refreshed.slice(refreshed)).toEqual([ALICE.id]);
    expect(told).toEqual([{ chatId: ALICE.id, text: expect.stringContaining('You are no longer an admin in “Signals”') }]);
    expect(told[0]?.text).toContain('/settings alerts');
  });

  it('the bot demoted: every user of the chat falls back, each told in their language', async () => {
    const { watch, told } = await setup();
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Signals', botIsAdmin: false, adminIds: [ALICE.id, BORIS.id] });
    expect(await watch.check(GROUP)).toBe('lost');
    expect([alertChat(ALICE.id), alertChat(BORIS.id)]).toEqual([null, null]);
    expect(told.map((t) => t.chatId)).toEqual([ALICE.id, BORIS.id]);
    expect(told[0]?.text).toContain('I am no longer an admin in “Signals”');
    expect(told[1]?.text).toContain('Я больше не администратор в «Signals»');
  });

  it('a deleted chat: alerts fall back with a note; a failing check (5xx, network) changes nothing', async () => {
    const { watch, told } = await setup();
    h.fake.failNext({ method: 'getChat', chatId: GROUP, count: 1, code: 500 });
    expect(await watch.check(GROUP)).toBe('unknown');
    h.fake.failNext({ method: 'getChat', chatId: GROUP, count: 1, code: 'network' });
    expect(await watch.check(GROUP)).toBe('unknown');
    expect(alertChat(ALICE.id)).toBe(GROUP);
    expect(told).toEqual([]);
    h.fake.failNext({ method: 'getChat', chatId: GROUP, count: 1, code: 400, description: 'Bad Request: chat not found' });
    expect(await watch.check(GROUP)).toBe('lost');
    expect(alertChat(ALICE.id)).toBeNull();
    expect(told[0]?.text).toContain('The chat “-1003001” is gone');
  });

  it('follows a group upgraded to a supergroup', async () => {
    const { watch, told } = await setup();
    h.fake.migrateChat(GROUP, -1009999, ALICE);
    expect(await watch.check(GROUP)).toBe('migrated');
    expect([alertChat(ALICE.id), alertChat(BORIS.id)]).toEqual([-1009999, -1009999]);
    expect(told).toEqual([]);
    expect(await watch.check(-1009999)).toBe('ok');
  });
});

describe('a refused send checks the destination', () => {
  function wire(w: DestinationWatch) {
    const outbox = stopAfter(new Outbox({
      api: new Api(h.fake.token, { apiRoot: h.fake.apiRoot }),
      logger: silentLogger,
      clock: h.clock,
      onMigrated: (from, to) => w.migrated(from, to),
      onChatUnavailable: (chatId) => w.suspect(chatId),
    }));
    outbox.start();
    return outbox;
  }

  it('a 400 about rights (the bot restricted) falls back at once, without waiting for the timer', async () => {
    const { watch, told } = await setup();
    const box = wire(watch);
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Signals', botIsAdmin: false, adminIds: [ALICE.id, BORIS.id] });
    h.fake.failNext({ method: 'sendMessage', chatId: GROUP, count: 1, code: 400, description: 'Bad Request: not enough rights to send text messages to the chat' });
    expect(await box.send(GROUP, 'an alert')).toBeUndefined();
    await vi.waitFor(() => expect(alertChat(ALICE.id)).toBeNull());
    expect(told.map((t) => t.chatId)).toEqual([ALICE.id, BORIS.id]);
  });

  it('a send to a group that became a supergroup is resent there, and the destination moves', async () => {
    const { watch } = await setup();
    const box = wire(watch);
    h.fake.migrateChat(GROUP, -1008888, ALICE);
    const id = await box.send(GROUP, 'an alert');
    expect(id).toBeDefined();
    expect(h.fake.messages(-1008888).map((m) => m.text)).toEqual(['an alert']);
    expect(alertChat(ALICE.id)).toBe(-1008888);
    expect(alertChat(BORIS.id)).toBe(-1008888);
  });
});

describe('membership updates from people not on the allow-list', () => {
  it('the bot removed from, or demoted in, an alert group by someone not allowed still moves the alerts, with a note', async () => {
    h = stopAfter(await createHarness({ allowed: [ALICE.id] }));
    for (const id of [GROUP, -1004002]) {
      h.fake.setChat({ id, type: 'supergroup', title: `Group ${id}`, botIsAdmin: true, adminIds: [ALICE.id] });
    }
    await h.connect();
    await h.say(ALICE, `/settings alerts ${GROUP}`);
    expect(alertChat(ALICE.id)).toBe(GROUP);
    await h.handle(h.fake.chatMember(BORIS, 'kicked', { id: GROUP, type: 'supergroup', title: 'Signals' }));
    expect(alertChat(ALICE.id)).toBeNull();
    expect(h.last(ALICE.id).text).toContain('I was removed from “Signals”');

    await h.say(ALICE, '/settings alerts -1004002');
    expect(alertChat(ALICE.id)).toBe(-1004002);
    await h.handle(h.fake.chatMember(BORIS, 'member', { id: -1004002, type: 'supergroup', title: 'Room' }));
    expect(alertChat(ALICE.id)).toBeNull();
    expect(h.last(ALICE.id).text).toContain('I am no longer an admin in “Room”');
  });

  it('follows the upgrade service message, whoever upgraded the group', async () => {
    h = stopAfter(await createHarness({ allowed: [ALICE.id] }));
    h.fake.setChat({ id: -4005, type: 'group', title: 'Old group', botIsAdmin: true, adminIds: [ALICE.id] });
    await h.connect();
    await h.say(ALICE, '/settings alerts -4005');
    expect(alertChat(ALICE.id)).toBe(-4005);
    h.fake.migrateChat(-4005, -1004005, BORIS);
    for (const update of h.fake.pendingUpdates().filter((u) => u.message && 'migrate_to_chat_id' in u.message)) await h.handle(update);
    expect(alertChat(ALICE.id)).toBe(-1004005);
  });
});
