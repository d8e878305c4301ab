/**
 * The Mini App in the chat: with MINI_APP_URL set, a private chat's first update sets its menu
 * button (in the user's language) and /app answers with a web_app button; without it, /app says
 * the app is off and nothing mentions it. The fake Telegram refuses what Telegram refuses:
 * web_app buttons outside private chats, and non-https Web App URLs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { checkKeyboard } from '../../src/fake-telegram/validate.js';
import { miniAppRow } from '../../src/bot/features/mini-app.js';
import { translator } from '../../src/locales/i18n.js';
import { silentLogger } from '../../src/logger.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { botOnClient, type BotOnClient } from '../support/bot-on-client.js';
import { configFor } from '../service/helpers.js';

const URL = 'https://desk.example.com/app/';
const ANN = { id: 4101, first_name: 'Ann', language_code: 'ru' };
let fake: FakeTelegram;
let client: ServiceClientWithLimits;
let front: BotOnClient;

async function start(env: Record<string, string>): Promise<void> {
  const clock = new ManualClock();
  fake = await startFakeTelegram();
  client = createServiceClient({ config: configFor('http://127.0.0.1:9'), logger: silentLogger, clock, random: () => 0.5 });
  front = await botOnClient({ fake, client, clock, env });
}

afterEach(async () => {
  await front.close();
  await client.close();
  await fake.close();
});

const api = async (method: string, body: unknown) => (await fetch(`${fake.apiRoot}/bot${fake.token}/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<{ ok: boolean; result?: unknown; description?: string }>;

describe('the Mini App in the chat', () => {
  it('sets the menu button in the user language and /app gives a web_app button', async () => {
    await start({ MINI_APP_URL: URL, HTTP_PORT: '8080' });
    await front.say(ANN, '/app');
    expect(await api('getChatMenuButton', { chat_id: ANN.id })).toEqual({ ok: true, result: { type: 'web_app', text: '📊 Панель', web_app: { url: URL } } });
    const last = fake.messages(ANN.id).at(-1)!;
    expect((last.reply_markup as { inline_keyboard: unknown[][] }).inline_keyboard[0]?.[0]).toEqual({ text: '📊 Открыть панель', web_app: { url: URL } });
  });

  it('without MINI_APP_URL: /app says it is off, and no menu button is set', async () => {
    await start({});
    await front.say(ANN, '/app');
    expect(fake.messages(ANN.id).at(-1)!.text).toContain('MINI_APP_URL');
    expect(await api('getChatMenuButton', { chat_id: ANN.id })).toEqual({ ok: true, result: { type: 'commands' } });
  });

  it('/filters ends with ⚙️ opening the filters screen; without MINI_APP_URL no button mentions it', async () => {
    await start({ MINI_APP_URL: URL, HTTP_PORT: '8080' });
    await front.say(ANN, '/filters');
    const rows = (fake.messages(ANN.id).at(-1)!.reply_markup as { inline_keyboard: unknown[][] }).inline_keyboard;
    expect(rows.at(-1)).toEqual([{ text: '⚙️ Все фильтры на одном экране', web_app: { url: `${URL}?screen=filters` } }]);
    await front.close();
    await client.close();
    await fake.close();
    await start({});
    await front.say(ANN, '/filters');
    expect(JSON.stringify(fake.messages(ANN.id).at(-1)!.reply_markup ?? null)).not.toMatch(/web_app|screen=/);
  });

  it('📊 under /pnl and 📚 under /books open their screens; a group gets a plain link', () => {
    const t = translator('en');
    expect(miniAppRow(URL, { t, chat: { id: 1, type: 'private', first_name: 'A' } }, 'ledger')).toEqual([[{ text: '📊 The ledger on one screen', web_app: { url: `${URL}?screen=ledger` } }]]);
    expect(miniAppRow(URL, { t, chat: { id: -5, type: 'group', title: 'G' } }, 'books')).toEqual([[{ text: '📚 The bookmakers in one table', url: `${URL}?screen=books` }]]);
    expect(miniAppRow(undefined, { t, chat: { id: 1, type: 'private', first_name: 'A' } }, 'books')).toEqual([]);
  });

  it('the fake Telegram refuses web_app buttons in a group and a non-https Web App URL', async () => {
    await start({});
    const markup = { inline_keyboard: [[{ text: 'open', web_app: { url: URL } }]] };
    expect(() => checkKeyboard(markup, false)).toThrow('BUTTON_TYPE_INVALID');
    expect(() => checkKeyboard(markup, true)).not.toThrow();
    const http = { inline_keyboard: [[{ text: 'open', web_app: { url: 'http://desk.example.com/' } }]] };
    expect(await api('sendMessage', { chat_id: ANN.id, text: 'x', reply_markup: http })).toMatchObject({ ok: false, description: 'Bad Request: BUTTON_URL_INVALID' });
    expect((await api('setChatMenuButton', { chat_id: ANN.id, menu_button: { type: 'web_app', text: 'x', web_app: { url: 'http://a/' } } })).ok).toBe(false);
  });
});
