/**
 * The playground's Mini App (issue 34 item 5): the link it prints at start and again for `/app`
 * opens the page on the bot's own HTTP port, signed for the playground's user with the fake bot
 * token, so the page's API answers; the same link with its initData changed is refused.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlayground, type Playground } from '../../src/playground/playground.js';
import { launchOrReason, withPage, type Browser } from '../support/miniapp-browser.js';

const LINK = /(http:\/\/127\.0\.0\.1:\d+\/app\/\S*#tgWebAppData=\S+)/g;

describe('the playground prints a signed Mini App link', () => {
  let playground: Playground;
  let browser: Browser | Error;
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (chunk: Buffer) => void (screen += chunk.toString()));
  const links = () => [...screen.matchAll(LINK)].map((m) => m[1]!);
  const initDataOf = (link: string) => new URLSearchParams(new URL(link).hash.slice(1)).get('tgWebAppData') ?? '';
  const api = (link: string, path: string, initData = initDataOf(link)) => fetch(new URL(`api/${path}`, link.split('#')[0]), { headers: { authorization: `tma ${initData}` } });

  beforeAll(async () => {
    playground = await startPlayground({ input, output });
    browser = await launchOrReason();
  }, 40_000);
  afterAll(async () => {
    if (browser && !(browser instanceof Error)) await browser.close();
    await playground?.stop();
  });

  it('at start: the page loads, its API answers the playground user, a tampered initData gets 401', async () => {
    const [link] = links();
    expect(link).toBeDefined();
    const page = await fetch(link!.split('#')[0]!);
    expect(page.status).toBe(200);
    // The page carries its script inline (src/miniapp/build-assets.ts), under a CSP naming it by hash.
    expect(await page.text()).toMatch(/<script>[\s\S]+<\/script>/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
    const me = await api(link!, 'me');
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userId: number }).userId).toBe(1001);
    // Another user's id in the same signed data, and a hash of the right length but wrong.
    const data = initDataOf(link!);
    expect((await api(link!, 'me', data.replace('%22id%22%3A1001', '%22id%22%3A1002'))).status).toBe(401);
    expect((await api(link!, 'me', data.replace(/hash=[0-9a-f]{4}/, 'hash=0000'))).status).toBe(401);
  });

  it('/app prints it again, freshly signed, and the page opens it in Chromium', async () => {
    const before = links();
    await new Promise((r) => setTimeout(r, 1_100));
    input.write('/app\n');
    await expect.poll(() => links().length, { timeout: 10_000 }).toBe(before.length + 1);
    const fresh = links().at(-1)!;
    const authDate = (link: string) => Number(new URLSearchParams(initDataOf(link)).get('auth_date'));
    expect(authDate(fresh)).toBeGreaterThan(authDate(before[0]!));
    expect(initDataOf(fresh)).not.toBe(initDataOf(before[0]!));
    expect((await api(fresh, 'filters')).status).toBe(200);
    // It is the bot's own answer's button (in Telegram it opens the page already signed), printed with its link.
    expect(screen).toMatch(/The desk: your ledger, filters and bookmakers on one screen\.\n {2}\[📊 Open the desk\] http/);
    // So are the buttons under /books, /filters and /pnl: each opens its screen.
    input.write('/books\n');
    await expect.poll(() => links().length, { timeout: 10_000 }).toBe(before.length + 2);
    const books = links().at(-1)!;
    expect(screen).toContain(`[📚 The bookmakers in one table] ${books}`);
    expect(books).toContain('/app/?screen=books#tgWebAppData=');
    await withPage(browser, 'playground-link', async (page) => {
      await page.goto(books);
      await page.getByRole('tab', { name: 'Bookmakers', selected: true }).waitFor();
      await page.getByText('Betfair Exchange').waitFor();
    });
  });
});
