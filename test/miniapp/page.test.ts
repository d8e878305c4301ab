/**
 * The Mini App page in headless Chromium (phone-sized) against the development stub of the API:
 * what the page shows and which calls it makes. A missing Chromium fails this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssetProvider } from '../../src/miniapp/build-assets.js';
import { launchChromium, withPage, type Browser } from '../support/miniapp-browser.js';
import { startDevStub, type DevStub } from '../support/miniapp-dev-stub.js';

const initData = `user=${encodeURIComponent(JSON.stringify({ id: 1, language_code: 'en' }))}&auth_date=1&hash=ab`;
let browser: Browser;
let stub: DevStub;
const pageErrors: string[] = [];

function open(screen: string, data = initData): string {
  return `${stub.url}?screen=${screen}#tgWebAppData=${encodeURIComponent(data)}&tgWebAppThemeParams=${encodeURIComponent('{"bg_color":"#ffffff"}')}`;
}

beforeAll(async () => {
  stub = await startDevStub(await buildAssetProvider(), initData);
  browser = await launchChromium();
  browser.context.on('weberror', (e) => pageErrors.push(String(e.error())));
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await stub?.close();
});

describe('Mini App page', () => {
  it('draws the P&L chart and settles an open position, then offers undo', async () => {
    await withPage(browser, 'ledger-settle', async (page) => {
      await page.goto(open('ledger'));
      await page.locator('[data-testid=chart] canvas').waitFor();
      const position = page.locator('[data-position="41"]');
      await position.getByRole('button', { name: 'Over 2.5 won' }).click();
      await page.getByText('Position #41 settled: Over 2.5 won.').waitFor();
      expect(stub.calls).toContainEqual({ method: 'POST', path: 'positions/41/settle', body: { result: { outcome: 0 } } });
      await expect.poll(() => position.count()).toBe(0);
      await page.getByRole('button', { name: 'Undo #41' }).click();
      await page.getByText('Position #41 is open again.').waitFor();
    });
  });

  it('saves a filter with a sport picked through search and shows the coverage', async () => {
    await withPage(browser, 'filters-save', async (page) => {
      await page.goto(open('filters'));
      const form = page.locator('form[data-service="arbs_prematch"]');
      await form.locator('[data-picker=sports] input[type=search]').fill('bask');
      await form.locator('[data-picker=sports]').getByRole('button', { name: 'Select all' }).click();
      await form.locator('input[name="arbs_prematch-minProfit"]').fill('2,5');
      await form.getByText(/Coverage from the token budget: \d+%/).waitFor();
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Saved. The bot uses this filter now.').waitFor();
      const put = stub.calls.find((c) => c.method === 'PUT' && c.path === 'filters/arbs_prematch');
      expect(put?.body).toMatchObject({ filter: { sports: [1, 2, 3], minProfit: 2.5 } });
    });
  });

  it('edits a bookmaker cap inline and saves the row', async () => {
    await withPage(browser, 'books-edit', async (page) => {
      await page.goto(open('books'));
      const row = page.locator('tr[data-book="Pinnacle"]');
      await row.locator('input[name=max]').fill('800');
      await row.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Pinnacle saved.').waitFor();
      expect(stub.calls.find((c) => c.path === 'books/1')?.body).toEqual({ settings: { status: 'ok', max: 800, min: 5, step: 1 } });
    });
  });

  it('says in words that it must be opened from Telegram when initData is missing or refused', async () => {
    await withPage(browser, 'refused', async (page) => {
      await page.goto(`${stub.url}#`);
      await page.getByRole('alert').getByText(/not opened from Telegram/).waitFor();
      await page.goto(open('ledger', initData.replace('hash=ab', 'hash=cd')));
      await page.getByRole('alert').getByText(/not opened from Telegram, or its link has expired/).waitFor();
    });
  });

  it('runs under the strict CSP without a page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
