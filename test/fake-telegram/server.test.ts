import { afterEach, describe, expect, it } from 'vitest';
import { Bot, GrammyError, HttpError, InlineKeyboard } from 'grammy';
import { run, type RunnerHandle } from '@grammyjs/runner';
import { ManualClock } from '../../src/clock.js';
import { startFakeTelegram, DEFAULT_FAKE_TOKEN, type FakeTelegram } from '../../src/fake-telegram/server.js';

const alice = { id: 1001, first_name: 'Alice', language_code: 'en' };
const boris = { id: 1002, first_name: 'Борис', language_code: 'ru' };

let fake: FakeTelegram | undefined;
let bot: Bot | undefined;
let runner: RunnerHandle | undefined;

afterEach(async () => {
  if (runner?.isRunning()) await runner.stop();
  runner = undefined;
  if (bot?.isRunning()) await bot.stop();
  bot = undefined;
  await fake?.close();
  fake = undefined;
});

async function startFake(clock?: ManualClock): Promise<FakeTelegram> {
  fake = await startFakeTelegram(clock ? { clock } : {});
  return fake;
}

function botFor(f: FakeTelegram, token = f.token): Bot {
  return new Bot(token, { client: { apiRoot: f.apiRoot } });
}

/** Starts long polling and resolves once the bot is polling. */
async function startPolling(b: Bot): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    b.start({ onStart: () => resolve(), timeout: 30 }).catch(reject);
  });
}

async function post(f: FakeTelegram, method: string, init: RequestInit, token = f.token): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${f.apiRoot}/bot${token}/${method}`, { method: 'POST', ...init });
  return { status: res.status, body: await res.json() };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('fake Bot API: grammY long polling end to end', () => {
  it('delivers typed commands, replies, button presses, edits and inline answers', async () => {
    const f = await startFake();
    const b = (bot = botFor(f));
    const seenLanguages: (string | undefined)[] = [];
    b.command('start', async (ctx) => {
      seenLanguages.push(ctx.from?.language_code);
      await ctx.reply(`Hello, <b>${ctx.from?.first_name ?? ''}</b>`, {
        parse_mode: 'HTML',
        reply_markup: new InlineKeyboard().text('Ping', 'ping').text('Other', 'other'),
      });
    });
    b.callbackQuery('ping', async (ctx) => {
      await ctx.answerCallbackQuery({ text: 'pong' });
      await ctx.editMessageText('Pinged <i>once</i>', {
        parse_mode: 'HTML',
        reply_markup: new InlineKeyboard().text('Again', 'ping'),
      });
    });
    b.on('inline_query', async (ctx) => {
      await ctx.answerInlineQuery(
        [{ type: 'article', id: 'r1', title: `Result for ${ctx.inlineQuery.query}`, input_message_content: { message_text: 'x' } }],
        { cache_time: 0 },
      );
    });
    await startPolling(b);

    f.sendText(alice, '/start');
    const hello = await f.waitForMessage((m) => m.chat_id === alice.id && m.text.startsWith('Hello'));
    expect(hello.text).toBe('Hello, <b>Alice</b>');
    expect(hello.parse_mode).toBe('HTML');
    expect(seenLanguages).toEqual(['en']);

    f.pressButton(alice, hello, 'ping');
    const edited = await f.waitForMessage((m) => m.message_id === hello.message_id && m.edited);
    expect(edited.text).toBe('Pinged <i>once</i>');
    expect(edited.history).toEqual(['Hello, <b>Alice</b>']);
    expect(edited.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Again', callback_data: 'ping' }]] });
    await expect.poll(() => f.answers.callback.length).toBe(1);
    expect(f.answers.callback[0]).toMatchObject({ text: 'pong', chat_id: alice.id });

    // The old "Other" button is gone after the edit: pressing it is refused like a stale UI would be.
    expect(() => f.pressButton(alice, hello, 'other')).toThrow(/no button/);

    f.inlineQuery(boris, 'arbs');
    await expect.poll(() => f.answers.inline.length).toBe(1);
    expect(f.answers.inline[0]?.results[0]).toMatchObject({ id: 'r1', title: 'Result for arbs' });

    await b.stop();
    // bot.stop() confirms the last offset, so nothing is left to redeliver.
    expect(f.pendingUpdates()).toEqual([]);
    expect(f.calls('getUpdates').length).toBeGreaterThan(1);
  });

  it('reports a user who blocked the bot and answers 403 to later sends, as Telegram does', async () => {
    const f = await startFake();
    const b = (bot = botFor(f));
    const changes: string[] = [];
    b.on('my_chat_member', (ctx) => {
      changes.push(`${ctx.chat.id}:${ctx.myChatMember.old_chat_member.status}->${ctx.myChatMember.new_chat_member.status}`);
    });
    await startPolling(b);

    f.chatMember(alice, 'kicked');
    await expect.poll(() => changes).toEqual([`${alice.id}:member->kicked`]);
    const err = await rejection(b.api.sendMessage(alice.id, 'still there?'));
    expect(err).toBeInstanceOf(GrammyError);
    expect((err as GrammyError).error_code).toBe(403);
    expect((err as GrammyError).description).toBe('Forbidden: bot was blocked by the user');

    f.chatMember(alice, 'member');
    await expect.poll(() => changes.length).toBe(2);
    expect(changes[1]).toBe(`${alice.id}:kicked->member`);
    await expect(b.api.sendMessage(alice.id, 'welcome back')).resolves.toMatchObject({ text: 'welcome back' });
  });

  it('works with @grammyjs/runner', async () => {
    const f = await startFake();
    const b = (bot = botFor(f));
    b.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    runner = run(b);
    f.sendText(alice, 'one');
    f.sendText(boris, 'two');
    await f.waitForMessage((m) => m.chat_id === boris.id && m.text === 'echo: two');
    await f.waitForMessage((m) => m.chat_id === alice.id && m.text === 'echo: one');
    await runner.stop();
    expect(f.messages().map((m) => m.text).sort()).toEqual(['echo: one', 'echo: two']);
  });

  it('sends commands with their bot_command entity and deletes user messages', async () => {
    const f = await startFake();
    const b = (bot = botFor(f));
    b.command('connect', async (ctx) => {
      await ctx.deleteMessage();
      await ctx.reply(`args=${ctx.match}`);
    });
    await startPolling(b);
    const update = f.sendText(alice, '/connect@bb_test_bot key secret');
    expect(update.message?.entities).toEqual([{ type: 'bot_command', offset: 0, length: 20 }]);
    await f.waitForMessage((m) => m.text === 'args=key secret');
    expect(f.userMessages(alice.id)).toEqual([expect.objectContaining({ text: '/connect@bb_test_bot key secret', deleted: true })]);
  });
});

describe('fake Bot API: errors as grammY sees them', () => {
  it('429 with retry_after, 403, 500 and dropped connections', async () => {
    const f = await startFake();
    const b = botFor(f);

    f.failNext({ method: 'sendMessage', count: 1, code: 429, retryAfter: 7 });
    const limited = await rejection(b.api.sendMessage(alice.id, 'a'));
    expect(limited).toBeInstanceOf(GrammyError);
    expect((limited as GrammyError).error_code).toBe(429);
    expect((limited as GrammyError).parameters.retry_after).toBe(7);
    expect((limited as GrammyError).description).toBe('Too Many Requests: retry after 7');

    f.failNext({ chatId: boris.id, count: 1, code: 403 });
    await expect(b.api.sendMessage(alice.id, 'other chat is fine')).resolves.toBeDefined();
    const blocked = await rejection(b.api.sendMessage(boris.id, 'b'));
    expect((blocked as GrammyError).error_code).toBe(403);

    f.failNext({ count: 1, code: 500 });
    expect(((await rejection(b.api.sendMessage(alice.id, 'c'))) as GrammyError).error_code).toBe(500);

    f.failNext({ method: 'sendMessage', count: 1, code: 'network' });
    expect(await rejection(b.api.sendMessage(alice.id, 'd'))).toBeInstanceOf(HttpError);

    await expect(b.api.sendMessage(alice.id, 'e')).resolves.toMatchObject({ text: 'e' });
    const failed = f.calls('sendMessage').filter((c) => !c.ok);
    expect(failed.map((c) => c.error_code)).toEqual([429, 403, 500, undefined]);
    expect(f.messages(alice.id).map((m) => m.text)).toEqual(['other chat is fine', 'e']);
  });

  it('answers 401 to a wrong token, 404 to an unknown method, and never echoes the token', async () => {
    const f = await startFake();
    const wrong = '123456:WRONG-TOKEN-abcdefghijklmnopq';
    const err = await rejection(botFor(f, wrong).api.getMe());
    expect((err as GrammyError).error_code).toBe(401);
    expect((err as GrammyError).description).toBe('Unauthorized');
    expect(JSON.stringify(err)).not.toContain(DEFAULT_FAKE_TOKEN);

    const unknown = await post(f, 'sendTelepathy', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unknown).toEqual({ status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
    const me = await botFor(f).api.getMe();
    expect(me).toMatchObject({ id: 999, username: 'bb_test_bot', is_bot: true });
  });

  it('validates text length and HTML like the Bot API', async () => {
    const f = await startFake();
    const b = botFor(f);
    const tooLong = await rejection(b.api.sendMessage(alice.id, 'x'.repeat(4097)));
    expect((tooLong as GrammyError).description).toBe('Bad Request: message is too long');
    // The limit counts the parsed text: tags and entities do not count against it.
    await expect(b.api.sendMessage(alice.id, `<b>${'x'.repeat(4090)}</b>&amp;`, { parse_mode: 'HTML' })).resolves.toBeDefined();

    const unbalanced = await rejection(b.api.sendMessage(alice.id, '<b>bold', { parse_mode: 'HTML' }));
    expect((unbalanced as GrammyError).description).toMatch(/^Bad Request: can't parse entities: Can't find end tag/);
    const unknownTag = await rejection(b.api.sendMessage(alice.id, 'odds <2.5 and <div>', { parse_mode: 'HTML' }));
    expect((unknownTag as GrammyError).description).toMatch(/can't parse entities: Unsupported start tag/);
    const crossed = await rejection(b.api.sendMessage(alice.id, '<b><i>x</b></i>', { parse_mode: 'HTML' }));
    expect((crossed as GrammyError).description).toMatch(/Unmatched end tag/);
    // The same text without a parse mode is plain text and fine.
    await expect(b.api.sendMessage(alice.id, '<b>bold')).resolves.toBeDefined();

    const empty = await rejection(b.api.sendMessage(alice.id, '  '));
    expect((empty as GrammyError).description).toBe('Bad Request: message text is empty');
    const badData = await rejection(
      b.api.sendMessage(alice.id, 'x', { reply_markup: new InlineKeyboard().text('b', 'd'.repeat(65)) }),
    );
    expect((badData as GrammyError).description).toBe('Bad Request: BUTTON_DATA_INVALID');
    const badReply = await rejection(b.api.sendMessage(alice.id, 'x', { reply_parameters: { message_id: 999 } }));
    expect((badReply as GrammyError).description).toBe('Bad Request: message to be replied not found');
  });

  it('edits: not modified, unknown message, keyboard dropped when not repeated, deleted messages', async () => {
    const f = await startFake();
    const b = botFor(f);
    const keyboard = new InlineKeyboard().text('A', 'a');
    const sent = await b.api.sendMessage(alice.id, 'v1', { reply_markup: keyboard });

    const same = await rejection(b.api.editMessageText(alice.id, sent.message_id, 'v1', { reply_markup: keyboard }));
    expect((same as GrammyError).description).toMatch(/^Bad Request: message is not modified/);

    await b.api.editMessageText(alice.id, sent.message_id, 'v1');
    expect(f.messages(alice.id)[0]).toMatchObject({ text: 'v1', reply_markup: undefined, edited: true, history: ['v1'] });
    await b.api.editMessageReplyMarkup(alice.id, sent.message_id, { reply_markup: keyboard });
    expect(f.messages(alice.id)[0]?.reply_markup).toEqual({ inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] });

    const missing = await rejection(b.api.editMessageText(alice.id, 4242, 'x'));
    expect((missing as GrammyError).description).toBe('Bad Request: message to edit not found');

    await b.api.deleteMessage(alice.id, sent.message_id);
    expect(f.messages(alice.id)[0]?.deleted).toBe(true);
    const afterDelete = await rejection(b.api.editMessageText(alice.id, sent.message_id, 'v2'));
    expect((afterDelete as GrammyError).description).toBe('Bad Request: message to edit not found');
    const twice = await rejection(b.api.deleteMessage(alice.id, sent.message_id));
    expect((twice as GrammyError).description).toBe('Bad Request: message to delete not found');
  });
});

describe('fake Bot API: bodies, settings and chats', () => {
  it('accepts form-urlencoded, multipart and query-string calls', async () => {
    const f = await startFake();
    const form = new URLSearchParams({
      chat_id: String(alice.id),
      text: 'from a form',
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] }),
    });
    const viaForm = await post(f, 'sendMessage', { body: form });
    expect(viaForm.status).toBe(200);
    const multipart = new FormData();
    multipart.set('chat_id', String(alice.id));
    multipart.set('text', 'from multipart');
    expect((await post(f, 'sendMessage', { body: multipart })).status).toBe(200);
    const viaQuery = await fetch(`${f.apiRoot}/bot${f.token}/sendMessage?chat_id=${alice.id}&text=from%20query`);
    expect(viaQuery.status).toBe(200);
    expect(f.messages(alice.id).map((m) => m.text)).toEqual(['from a form', 'from multipart', 'from query']);
    expect(f.messages(alice.id)[0]?.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] });

    const badJson = await post(f, 'sendMessage', { headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(badJson.status).toBe(400);
    const noChat = await post(f, 'sendMessage', { headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
    expect(noChat.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: chat_id is empty' });
  });

  it('stores commands per language and descriptions', async () => {
    const f = await startFake();
    const b = botFor(f);
    await b.api.setMyCommands([{ command: 'start', description: 'Start' }]);
    await b.api.setMyCommands([{ command: 'start', description: 'Начать' }], { language_code: 'ru' });
    await b.api.setMyDescription('Alerts', { language_code: 'en' });
    await b.api.setMyShortDescription('Оповещения', { language_code: 'ru' });
    expect(f.commands()).toEqual([{ command: 'start', description: 'Start' }]);
    expect(f.commands('ru')).toEqual([{ command: 'start', description: 'Начать' }]);
    expect(await b.api.getMyCommands({ language_code: 'ru' })).toEqual([{ command: 'start', description: 'Начать' }]);
    expect(f.descriptions('en')).toEqual({ description: 'Alerts' });
    expect(f.descriptions('ru')).toEqual({ short_description: 'Оповещения' });
    const bad = await rejection(b.api.setMyCommands([{ command: 'Bad Command', description: 'x' }]));
    expect((bad as GrammyError).description).toBe('Bad Request: BOT_COMMAND_INVALID');
    await expect(b.api.deleteWebhook()).resolves.toBe(true);
    await expect(b.api.sendChatAction(alice.id, 'typing')).resolves.toBe(true);
  });

  it('answers chat facts for groups and channels the bot is in', async () => {
    const f = await startFake();
    const b = botFor(f);
    f.setChat({ id: -1001, type: 'supergroup', title: 'Arb club', botIsAdmin: true, adminIds: [alice.id, boris.id] });
    f.setChat({ id: -1002, type: 'channel', title: 'Feed', botIsAdmin: false });

    expect(await b.api.getChat(-1001)).toMatchObject({ id: -1001, type: 'supergroup', title: 'Arb club' });
    expect((await b.api.getChatMember(-1001, 999)).status).toBe('administrator');
    expect((await b.api.getChatMember(-1001, alice.id)).status).toBe('creator');
    expect((await b.api.getChatMember(-1001, boris.id)).status).toBe('administrator');
    expect((await b.api.getChatMember(-1001, 5)).status).toBe('member');
    const admins = await b.api.getChatAdministrators(-1001);
    expect(admins.map((a) => a.user.id)).toEqual([alice.id, boris.id, 999]);
    expect((await b.api.getChatMember(-1002, 999)).status).toBe('member');

    const notAdmin = await rejection(b.api.sendMessage(-1002, 'post'));
    expect((notAdmin as GrammyError).description).toBe('Bad Request: need administrator rights in the channel chat');
    const unknown = await rejection(b.api.getChat(-5555));
    expect((unknown as GrammyError).description).toBe('Bad Request: chat not found');
    await expect(b.api.sendMessage(-1001, 'to the group')).resolves.toMatchObject({ chat: { id: -1001, type: 'supergroup' } });
  });

  it('records per-chat send times on the injected clock', async () => {
    const clock = new ManualClock();
    const f = await startFake(clock);
    const b = botFor(f);
    const t0 = clock.now();
    await b.api.sendMessage(alice.id, 'a');
    await clock.advance(1500);
    await b.api.sendMessage(boris.id, 'b');
    await b.api.sendMessage(alice.id, 'c');
    expect(f.sendTimes(alice.id)).toEqual([t0, t0 + 1500]);
    expect(f.sendTimes()).toEqual([t0, t0 + 1500, t0 + 1500]);
    expect(f.messages(alice.id).map((m) => m.at)).toEqual([t0, t0 + 1500]);
  });
});

describe('fake Bot API: long polling', () => {
  it('holds a poll until an update arrives, times out empty, and releases held polls on close', async () => {
    const f = await startFake();
    const body = (offset: number, timeout: number) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offset, timeout }),
    });

    const started = Date.now();
    const held = post(f, 'getUpdates', body(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    f.sendText(alice, 'hi');
    const first = (await held).body as { ok: boolean; result: { update_id: number }[] };
    expect(Date.now() - started).toBeLessThan(2000);
    expect(first.result).toHaveLength(1);

    // Not confirmed yet: the same update comes again; confirmed with offset: gone.
    const again = (await post(f, 'getUpdates', body(0, 0))).body as { result: unknown[] };
    expect(again.result).toHaveLength(1);
    const id = first.result[0]?.update_id ?? 0;
    const confirmed = (await post(f, 'getUpdates', body(id + 1, 0))).body as { result: unknown[] };
    expect(confirmed.result).toEqual([]);

    const shortTimeout = Date.now();
    const empty = (await post(f, 'getUpdates', body(id + 1, 0.2))).body as { result: unknown[] };
    expect(empty.result).toEqual([]);
    expect(Date.now() - shortTimeout).toBeGreaterThanOrEqual(150);

    const pending = post(f, 'getUpdates', body(id + 1, 30));
    await new Promise((r) => setTimeout(r, 50));
    const closing = Date.now();
    await f.close();
    expect((await pending).body).toEqual({ ok: true, result: [] });
    expect(Date.now() - closing).toBeLessThan(2000);
  });

  it('ends an older held poll with 409 Conflict when a second one arrives', async () => {
    const f = await startFake();
    const json = { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timeout: 5 }) };
    const older = post(f, 'getUpdates', json);
    await new Promise((r) => setTimeout(r, 50));
    const newer = post(f, 'getUpdates', { ...json, body: JSON.stringify({ timeout: 0 }) });
    expect((await older).body).toMatchObject({ ok: false, error_code: 409 });
    expect((await newer).body).toEqual({ ok: true, result: [] });
  });

  it('honours allowed_updates and drops pending updates on request', async () => {
    const f = await startFake();
    const json = (payload: object) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    f.sendText(alice, 'text');
    f.inlineQuery(alice, 'q');
    const onlyInline = (await post(f, 'getUpdates', json({ allowed_updates: ['inline_query'] }))).body as {
      result: object[];
    };
    expect(onlyInline.result).toHaveLength(1);
    expect(onlyInline.result[0]).toHaveProperty('inline_query');
    await post(f, 'deleteWebhook', json({ drop_pending_updates: true }));
    expect(f.pendingUpdates()).toEqual([]);
  });
});
