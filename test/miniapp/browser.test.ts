/**
 * The Mini App in headless Chromium against the real bot (startApp on a local embedded store, the
 * fake Telegram, the sandbox service), opened with initData signed by the bot's token: what the
 * page does reaches the chat, and initData that is forged, expired or for another user is refused
 * in words. A missing Chromium fails this file (.ci/run installs it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { en } from '../../src/locales/en.js';
import { startFakeTelegram, type FakeTelegram } from '../../src/fake-telegram/server.js';
import { settleLegs } from '../../src/ledger/edits.js';
import { makeLeg, positionSchema } from '../../src/ledger/model.js';
import { defaultFilter } from '../../src/service/filter-model.js';
import { silentLogger } from '../../src/logger.js';
import { buildAssetProvider } from '../../src/miniapp/build-assets.js';
import { signInitData } from '../../src/miniapp/init-data.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/store.js';
import { launchOrReason, withPage, type Browser } from '../support/miniapp-browser.js';
import { freePort } from '../support/ports.js';

const ME = 7301;
const OTHER = 7302;
let sandbox: Sandbox;
let telegram: FakeTelegram;
let app: App;
let dataDir: string;
let base: string;
let browser: Browser | Error;
const pageErrors: string[] = [];

const initData = (userId: number, atMs = Date.now(), token = telegram.token) =>
  signInitData({ auth_date: String(Math.floor(atMs / 1000)), query_id: 'q', user: JSON.stringify({ id: userId, first_name: 'Ann', language_code: 'en' }) }, token);
/** Sends `text` in the private chat; resolves with the bot's first later answer containing `expect`. */
async function say(text: string, expectText: string): Promise<string> {
  const before = telegram.messages(ME).length;
  telegram.sendText({ id: ME, first_name: 'Ann' }, text);
  let found = '';
  await expect.poll(() => (found = telegram.messages(ME).slice(before).map((m) => m.text).find((m) => m.includes(expectText)) ?? ''), { timeout: 10_000 }).not.toBe('');
  return found;
}
/**
 * Each ledger card's box, and where each of its labels' and figures' text is drawn (an element's own
 * box stays inside its card however long its text is). Evaluated in the page.
 */
const MEASURE_CARDS = `[...document.querySelectorAll('.card')].map((card) => {
  const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
  const drawn = (el) => { const range = document.createRange(); range.selectNodeContents(el); return box(range.getBoundingClientRect()); };
  return { card: box(card.getBoundingClientRect()), parts: [...card.querySelectorAll('span, b')].map(drawn) };
})`;
const boxSchema = z.object({ left: z.number(), right: z.number(), top: z.number(), bottom: z.number() });
const cardBoxes = z.array(z.object({ card: boxSchema, parts: z.array(boxSchema) }));
const open = (data: string, screen = 'ledger') => `${base}?screen=${screen}#tgWebAppData=${encodeURIComponent(data)}&tgWebAppThemeParams=${encodeURIComponent('{"bg_color":"#ffffff"}')}`;

beforeAll(async () => {
  sandbox = await startSandbox({});
  telegram = await startFakeTelegram({});
  dataDir = await mkdtemp(join(tmpdir(), 'miniapp-browser-'));
  // The user and one open arb, written to the store the bot then opens.
  const store = await openStore({ dataDir, logger: silentLogger });
  store.updateUser(ME, (u) => void (u.filters.arbs_prematch = { settings: defaultFilter(), paused: false, pausedReason: null, savedAt: Date.now() }), { chatId: ME, lang: 'en' });
  await store.ledger.put(ME, positionSchema.parse({
    id: '1', kind: 'arbs', service: 'prematch', itemId: 'i1', eventId: 'e1', sport: 'Football', event: 'Arsenal vs Chelsea', placedAt: Date.now() - 3_600_000, currency: 'EUR',
    legs: [makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'P1', odds: 2.1, stake: 100 }), makeLeg({ outcome: 1, bookmaker: 'Bet365', market: 'X2', odds: 2.1, stake: 100 })],
  }));
  // A large arb settled long ago: sums as wide as a busy bettor's, for the 360 px layout.
  const big = positionSchema.parse({
    id: '2', kind: 'arbs', service: 'prematch', itemId: 'i2', eventId: 'e2', sport: 'Tennis', event: 'Sinner vs Alcaraz', placedAt: Date.now() - 30 * 86_400_000, currency: 'EUR',
    legs: [makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'W1', odds: 2.12, stake: 25_000.5 }), makeLeg({ outcome: 1, bookmaker: 'Bet365', market: 'W2', odds: 2.09, stake: 25_400.25 })],
  });
  await store.ledger.put(ME, settleLegs(big, [{ result: 'won' }, { result: 'lost' }], Date.now() - 29 * 86_400_000)!);
  await store.ledger.updateSettings(ME, { nextId: 3, currency: 'EUR' });
  await store.close();
  const port = await freePort();
  const config = loadConfig({ ...sandbox.urls, BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot, DATA_DIR: dataDir, HTTP_PORT: String(port), MINI_APP_URL: `http://127.0.0.1:${port}/app/` });
  app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger: silentLogger, miniAppAssets: await buildAssetProvider() });
  base = `http://127.0.0.1:${app.healthPort}/app/`;
  browser = await launchOrReason();
  if (!(browser instanceof Error)) browser.context.on('weberror', (e) => pageErrors.push(String(e.error())));
}, 40_000);

afterAll(async () => {
  if (browser && !(browser instanceof Error)) await browser.close();
  await app?.stop(1_000);
  await telegram?.close();
  await sandbox?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the Mini App against the real bot', () => {
  it('settles an open position from the ledger, draws the P&L chart, and /open in the chat agrees', async () => {
    await withPage(browser, 'real-ledger-settle', async (page) => {
      await page.goto(open(initData(ME)));
      const position = page.locator('[data-position="1"]');
      await position.getByRole('button', { name: 'P1 won' }).click();
      await page.getByText('Position #1 settled: P1 won.').waitFor();
      await page.locator('[data-testid=chart] canvas').waitFor();
      await page.getByText('No open positions.').waitFor();
      // The undo the chat would offer, from the page: the position is open again.
      await page.getByRole('button', { name: 'Undo #1' }).click();
      await page.getByText('Position #1 is open again.').waitFor();
      await page.locator('[data-position="1"]').getByRole('button', { name: 'P1 won' }).click();
      await page.getByText('No open positions.').waitFor();
    });
    const before = telegram.messages(ME).length;
    telegram.sendText({ id: ME, first_name: 'Ann' }, '/open');
    await expect.poll(() => telegram.messages(ME).slice(before).map((m) => m.text).join('\n'), { timeout: 10_000 }).toContain('No unsettled positions');
  });

  it("fits the ledger's figures on a 360 px phone: none runs out of its card or into another", async () => {
    await withPage(browser, 'real-ledger-cards', async (page) => {
      await page.goto(open(initData(ME)));
      // The arb settled above: the arbs' expected and realised sums are shown.
      await page.getByTestId('arbs-card').waitFor();
      const boxes = cardBoxes.parse(await page.evaluate(MEASURE_CARDS));
      expect(boxes.length).toBe(7);
      for (const { card, parts } of boxes) {
        for (const p of parts) expect(p.left >= card.left - 0.5 && p.right <= card.right + 0.5, JSON.stringify({ card, p })).toBe(true);
        // Two of a card's labels and figures on one line keep a space between them (a label ran into its sum).
        for (const [i, a] of parts.entries()) {
          for (const b of parts.slice(i + 1)) {
            const oneLine = a.top < b.bottom && b.top < a.bottom;
            if (oneLine) expect(Math.max(b.left - a.right, a.left - b.right), JSON.stringify({ a, b })).toBeGreaterThanOrEqual(6);
          }
        }
      }
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    });
  });

  it('sends the CSV to the chat with the bot, and offers a download only where the client can save one', async () => {
    const before = telegram.messages(ME).length;
    await withPage(browser, 'real-ledger-csv', async (page) => {
      await page.goto(`${open(initData(ME))}&tgWebAppPlatform=android`);
      await page.getByRole('button', { name: 'Send CSV to the chat' }).click();
      await page.getByText('Sent to your chat with the bot: 1 file(s), 4 legs.').waitFor();
      expect(await page.getByRole('button', { name: 'Download CSV' }).count()).toBe(0);
      await page.goto(open(initData(ME)));
      await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    });
    const file = telegram.messages(ME).slice(before).find((m) => m.media?.kind === 'document');
    expect(file?.media?.fileName).toBe('ledger-start-today.csv');
    expect(Buffer.from(file!.media!.bytes).toString('utf8')).toContain('Arsenal vs Chelsea');
  });

  it('saves a filter from the form, and /filters in the chat agrees', async () => {
    await say('/connect ' + sandbox.demoKey.accessKey + ' ' + sandbox.demoKey.secret, 'connected');
    await withPage(browser, 'real-filters-save', async (page) => {
      await page.goto(open(initData(ME), 'filters'));
      const form = page.locator('form[data-service="arbs_prematch"]');
      await form.locator('input[name="arbs_prematch-minProfit"]').fill('2,5');
      await form.locator('input[name="arbs_prematch-maxOdds"]').fill('4.2');
      await form.getByText(/Coverage from the token budget|Coverage: no figure/).waitFor();
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Saved. The bot uses this filter now.').waitFor();
    });
    const text = await say('/filters', '4.2');
    expect(text).toContain('2.5');
  });

  it('leaves a market group out and sets a per-sport minimum in the form, and /filters in the chat agrees; and the reverse', async () => {
    await withPage(browser, 'real-filters-markets', async (page) => {
      await page.goto(open(initData(ME), 'filters'));
      const form = page.locator('form[data-service="arbs_prematch"]');
      // Coverage follows these edits before the save: the page asks for it with the groups and minimums as edited.
      const coverageAsked = page.waitForRequest((r) => r.url().endsWith('/api/filters/coverage') && /"marketsOff":\["odd_even"\].*"6":3\.5/.test(r.postData() ?? ''));
      await form.locator('label.chip', { hasText: en.mg_odd_even }).click();
      await expect.poll(() => form.locator(`input[name="arbs_prematch-market-odd_even"]`).isChecked()).toBe(false);
      await form.locator('select[name="arbs_prematch-add-sport"]').selectOption({ label: 'Tennis' });
      await form.locator('input[name="arbs_prematch-minProfit-6"]').fill('3,5');
      await coverageAsked;
      await form.getByText(/Coverage from the token budget|Coverage: no figure/).waitFor();
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Saved. The bot uses this filter now.').waitFor();
    });
    const text = await say('/filters', 'Markets left out');
    expect(text).toContain(`Markets left out: ${en.mg_odd_even}`);
    expect(text).toContain('Least profit by sport: Tennis 3.5 %');

    // The reverse: set in the chat, shown by the form.
    await say('/filter arbs_prematch markets=-corners,-cards min_profit.tennis=any min_profit.football=1.5', 'Football 1.5 %');
    await withPage(browser, 'real-filters-markets-reverse', async (page) => {
      await page.goto(open(initData(ME), 'filters'));
      const form = page.locator('form[data-service="arbs_prematch"]');
      await form.locator('input[name="arbs_prematch-minProfit-1"]').waitFor();
      expect(await form.locator('input[name="arbs_prematch-minProfit-1"]').inputValue()).toBe('1.5');
      expect(await form.locator('input[name="arbs_prematch-minProfit-6"]').count()).toBe(0);
      const on = async (g: string) => form.locator(`input[name="arbs_prematch-market-${g}"]`).isChecked();
      expect([await on('corners'), await on('cards'), await on('odd_even'), await on('totals')]).toEqual([false, false, true, true]);
      await form.getByText('7 of 9 selected').waitFor();
    });
  });

  it('edits a bookmaker cap in the table, and /books in the chat agrees', async () => {
    await withPage(browser, 'real-books-edit', async (page) => {
      await page.goto(open(initData(ME), 'books'));
      const row = page.locator('tr[data-book="Betfair Exchange"]');
      await row.locator('input[name=max]').fill('80');
      await row.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Betfair Exchange saved.').waitFor();
    });
    const text = await say('/books', 'Betfair Exchange');
    expect(text).toMatch(/Betfair Exchange[^\n]*80/);
  });

  it("caps a bookmaker's max stake in the table, and the next alert's stake there keeps within it", async () => {
    const CAP = 15;
    // Pinnacle in the filter puts it in the table (the bookmakers the user meets).
    await say('/filter arbs_prematch reset bookmakers=pinnacle,bet365,betano min_profit=1', 'Pinnacle');
    await withPage(browser, 'real-books-cap-alert', async (page) => {
      await page.goto(open(initData(ME), 'books'));
      const row = page.locator('tr[data-book="Pinnacle"]');
      await row.locator('input[name=max]').fill(String(CAP));
      await row.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Pinnacle saved.').waitFor();
    });
    // A read after the save has passed (so the first read's summary cannot take the new arb), then a
    // 4 % arb appears with Pinnacle on its first leg: on a bankroll of 100 uncapped, its stake there would be about half.
    const saved = Date.now();
    await expect.poll(() => sandbox.counters().readLog.some((r) => r.at > saved), { timeout: 15_000 }).toBe(true);
    const item = sandbox.world.inject('arbs_prematch', { profit: 4, bookmakers: [7, 39, 85] });
    const sent = () => telegram.calls('sendMessage').map((c) => c.payload).find((p) => p.chat_id === ME && String(p.text).includes(item.id));
    await expect.poll(sent, { timeout: 20_000 }).toBeDefined();
    const text = String(sent()!.text).replace(/<[^>]+>/g, '');
    const stakes = text.slice(text.indexOf('💰'));
    const stake = Number(/^1\) Pinnacle ([\d.]+)/m.exec(stakes)?.[1]);
    expect(stake, text).toBeGreaterThan(0);
    expect(stake, text).toBeLessThanOrEqual(CAP);
  });

  it('refuses forged and expired initData with the server\'s words on the page', async () => {
    const cases = [
      { name: 'forged', data: initData(ME, Date.now(), '1:not-the-bot-token'), words: en.miniapp_err_unauthorized },
      { name: 'expired', data: initData(ME, Date.now() - 2 * 3600_000), words: en.miniapp_err_expired },
    ];
    for (const c of cases) {
      await withPage(browser, `real-refused-${c.name}`, async (page) => {
        await page.goto(open(c.data));
        await page.getByRole('alert').getByText(c.words).waitFor();
      });
    }
  });

  it("opens another user's own desk from their initData, never this user's positions", async () => {
    await withPage(browser, 'real-other-user', async (page) => {
      await page.goto(open(initData(OTHER)));
      await page.getByText('No open positions.').waitFor();
      expect(await page.locator('[data-position]').count()).toBe(0);
    });
  });

  it('ran every page above under the server\'s CSP without a script error', () => {
    if (browser instanceof Error) throw browser;
    expect(pageErrors).toEqual([]);
  });
});
