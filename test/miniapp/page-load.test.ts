/**
 * How the Mini App page loads, in headless Chromium against the bot's real routes and API (embedded
 * store): one HTML with its script and style inline under a CSP that names them by hash, the boot
 * call started from <head> before the bundle runs, the page revalidated (304) on a second open,
 * and the ledger kept on the device shown at once on a second open — only to the user it belongs
 * to, and wiped when the server refuses the launch.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';
import { makeLeg, positionSchema } from '../../src/ledger/model.js';
import { silentLogger } from '../../src/logger.js';
import { createMiniAppApi, type MiniAppApi } from '../../src/miniapp/api.js';
import { assetsFromFiles } from '../../src/miniapp/asset-provider.js';
import { buildAssetProvider, writeAssets } from '../../src/miniapp/build-assets.js';
import { signInitData } from '../../src/miniapp/init-data.js';
import { inlineBlocks } from '../../src/miniapp/page-csp.js';
import { createMiniAppRoutes, PAGE_MAX_AGE_SECONDS } from '../../src/miniapp/server.js';
import { settle } from '../../src/ledger/actions.js';
import { openStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/port.js';
import { launchOrReason, withPage, type Browser } from '../support/miniapp-browser.js';
import { testReports } from '../support/miniapp-reports.js';

const TOKEN = '999:page-load-token';
const ME = 701;
const OTHER = 702;
const KEPT = 'desk.lastView';
let dir: string;
let store: Store;
let server: HealthServer;
let base: string;
let browser: Browser | Error;
/** While set, the boot call waits for it before the API answers (hold() sets it, the function it returns releases it). */
let gate: Promise<void> | undefined;
function hold(): () => void {
  let release = () => {};
  gate = new Promise<void>((r) => (release = r));
  return () => {
    gate = undefined;
    release();
  };
}
const served: { path: string; status: number }[] = [];
const cspViolations: string[] = [];

const initData = (userId: number, token = TOKEN) =>
  signInitData({ auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: userId, language_code: 'en' }) }, token);
const open = (data: string) => `${base}?screen=ledger#tgWebAppData=${encodeURIComponent(data)}`;
const arb = (id: string, event: string) =>
  positionSchema.parse({
    id, kind: 'arbs', service: 'prematch', itemId: `i${id}`, eventId: `e${id}`, sport: 'Football', event, placedAt: Date.now() - 3_600_000,
    legs: [makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'P1', odds: 2.1, stake: 100 }), makeLeg({ outcome: 1, bookmaker: 'Bet365', market: 'X2', odds: 2.1, stake: 100 })],
  });
// Evaluated as text: the test's TypeScript has no DOM types.
const kept = (page: Page) => page.evaluate(`localStorage.getItem(${JSON.stringify(KEPT)})`) as Promise<string | null>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'miniapp-page-load-'));
  store = await openStore({ dataDir: dir, logger: silentLogger });
  const api = createMiniAppApi({
    reports: testReports(systemClock),
    store, clock: systemClock, logger: silentLogger, botToken: TOKEN, maxAgeSeconds: 3600,
    bookmakers: () => ({}), sports: () => ({}), filters: { save: () => Promise.resolve({ kind: 'saved' }), coverage: () => ({}) },
  });
  const held: MiniAppApi = (req, res, path, query) => (path.endsWith('/boot') && gate ? void gate.then(() => api(req, res, path, query)) : api(req, res, path, query));
  const routes = createMiniAppRoutes(held, await buildAssetProvider());
  const logged = (req: IncomingMessage, res: ServerResponse) => {
    res.on('finish', () => served.push({ path: req.url ?? '', status: res.statusCode }));
    return routes(req, res);
  };
  server = await startHealthServer({ port: 0, checks: [], metrics: { render: async () => '', contentType: 'text/plain' }, miniApp: logged });
  base = `http://127.0.0.1:${server.port}/app/`;
  browser = await launchOrReason();
  if (!(browser instanceof Error)) browser.context.on('console', (m) => void (/Content.Security.Policy/i.test(m.text()) && cspViolations.push(m.text())));
}, 40_000);

afterAll(async () => {
  if (browser && !(browser instanceof Error)) await browser.close();
  await server?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  gate = undefined;
  for (const id of [ME, OTHER]) for (const p of (await store.ledger.book(id)).positions) await store.ledger.remove(id, p.id);
  await store.ledger.put(ME, arb('1', 'Mine vs Theirs'));
  await store.ledger.put(OTHER, arb('7', 'Other user event'));
  if (browser instanceof Error) return;
  const page = await browser.context.newPage();
  await (await browser.context.newCDPSession(page)).send('Network.clearBrowserCache');
  await page.goto(base);
  await page.evaluate('localStorage.clear()');
  await page.close();
  served.length = 0;
});

describe('the page as served', () => {
  it('is one HTML with its script and style inline, under a CSP that names each block by hash (no unsafe-inline); a second fetch is a 304', async () => {
    const res = await fetch(base);
    const html = await res.text();
    const csp = res.headers.get('content-security-policy')!;
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/);
    const scripts = inlineBlocks(html, 'script');
    const styles = inlineBlocks(html, 'style');
    expect(scripts).toHaveLength(2);
    expect(styles).toHaveLength(1);
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    expect(/script-src ([^;]+)/.exec(csp)![1]).toBe(["'self'", ...scripts.map(hash)].join(' '));
    expect(/style-src ([^;]+)/.exec(csp)![1]).toBe(["'self'", ...styles.map(hash)].join(' '));
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce/);
    expect(res.headers.get('cache-control')).toBe(`max-age=${PAGE_MAX_AGE_SECONDS}`);
    const etag = res.headers.get('etag')!;
    const again = await fetch(base, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-security-policy')).toBe(csp);
    expect(await again.text()).toBe('');
    const plain = await fetch(base, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('etag')).not.toBe(etag);
    expect((await fetch(base, { headers: { 'if-none-match': '"something-else"' } })).status).toBe(200);
  });

  it('reads back from what `npm run build` writes as the same page, with the same CSP and validator', async () => {
    const out = join(dir, 'built');
    await writeAssets(out);
    const fromDisk = assetsFromFiles(out).get('index.html')!;
    const inMemory = (await buildAssetProvider()).get('index.html')!;
    expect(fromDisk.body.equals(inMemory.body)).toBe(true);
    expect(fromDisk.csp).toBe(inMemory.csp);
    expect(fromDisk.csp).toMatch(/script-src 'self' 'sha256-[^']+' 'sha256-[^']+';/);
    expect(fromDisk.etag).toBe(inMemory.etag);
    expect(gunzipSync(fromDisk.gzip!).equals(fromDisk.body)).toBe(true);
  });
});

describe('opening the page in Chromium', () => {
  it('asks for the page and one boot call (no favicon, no asset), started from <head> before the bundle runs, and runs under its CSP', async () => {
    await withPage(browser, 'page-load-cold', async (page) => {
      await page.goto(open(initData(ME)));
      await page.locator('[data-position="1"] footer button').first().waitFor();
      expect(served.map((s) => s.path.split('#')[0])).toEqual(['/app/?screen=ledger', '/app/api/boot?screen=ledger']);
      const [boot, bundle] = await page.evaluate(() => [
        performance.getEntriesByType('resource').find((e) => e.name.includes('/api/boot'))!.startTime,
        performance.getEntriesByName('desk-bundle')[0]!.startTime,
      ]);
      expect(boot).toBeLessThan(bundle!);
      expect(JSON.parse((await kept(page))!)).toMatchObject({ userId: ME, ledger: { openTotal: 1 } });
    });
    expect(cspViolations).toEqual([]);
  });

  it('on a second open shows the kept ledger at once, marked as refreshing, then the fresh one; the page comes from the cache, then a 304', async () => {
    await withPage(browser, 'page-load-warm', async (page) => {
      await page.goto(open(initData(ME)));
      await page.locator('[data-position="1"]').waitFor();
    });
    // Settled in the chat meanwhile: the kept view still has #1 open, the server does not.
    const p = (await store.ledger.book(ME)).positions[0]!;
    await store.ledger.put(ME, settle(p, 'void', Date.now())!);
    const release = hold();
    served.length = 0;
    await withPage(browser, 'page-load-warm-second', async (page) => {
      await page.goto(open(initData(ME)));
      // Drawn while the boot call is still held: the kept view, not an answer.
      await page.locator('.refreshing').waitFor();
      await page.locator('[data-position="1"] footer button').first().waitFor();
      release();
      await page.getByText('No open positions.').waitFor();
      expect(await page.locator('.refreshing').count()).toBe(0);
      expect(await page.locator('[data-position]').count()).toBe(0);
      expect(JSON.parse((await kept(page))!)).toMatchObject({ userId: ME, ledger: { openTotal: 0 } });
      // Within its max-age the device did not ask for the page; past it (a reload asks as an expired page would), a 304.
      expect(served.map((s) => s.path)).toEqual(['/app/api/boot?screen=ledger']);
      await page.reload();
      await page.getByText('No open positions.').waitFor();
      expect(served.find((s) => s.path.startsWith('/app/?'))?.status).toBe(304);
    });
  });

  it("never shows one user's kept ledger to another user on the same device, and drops it", async () => {
    await withPage(browser, 'page-load-user-a', async (page) => {
      await page.goto(open(initData(ME)));
      await page.locator('[data-position="1"]').waitFor();
    });
    const release = hold();
    await withPage(browser, 'page-load-user-b', async (page) => {
      await page.goto(open(initData(OTHER)));
      await page.getByText('Loading…').waitFor();
      expect(await page.getByText('Mine vs Theirs').count()).toBe(0);
      expect(await kept(page)).toBeNull();
      release();
      await page.locator('[data-position="7"]').waitFor();
      expect(await page.getByText('Mine vs Theirs').count()).toBe(0);
      expect(JSON.parse((await kept(page))!)).toMatchObject({ userId: OTHER });
    });
  });

  it('wipes the kept ledger, from the screen and the device, when the server refuses the launch', async () => {
    await withPage(browser, 'page-load-kept', async (page) => {
      await page.goto(open(initData(ME)));
      await page.locator('[data-position="1"]').waitFor();
    });
    await withPage(browser, 'page-load-forged', async (page) => {
      await page.goto(open(initData(ME, '999:not-the-token')));
      await page.getByRole('alert').getByText(/open it again/i).waitFor();
      expect(await page.locator('[data-position]').count()).toBe(0);
      expect(await kept(page)).toBeNull();
    });
  });
});
