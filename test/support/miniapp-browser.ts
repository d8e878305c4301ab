/**
 * Headless Chromium for the Mini App's browser tests and bench: Debian's /usr/bin/chromium
 * (CHROMIUM_PATH overrides) driven by playwright-core, never a downloaded browser. A missing
 * browser throws, so the tests fail rather than skip; `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** One persistent context on a fresh --user-data-dir; phone-sized (360 × 740) unless told. */
export async function launchChromium(opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: install it (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'miniapp-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: opts.width ?? 360, height: opts.height ?? 740 },
    deviceScaleFactor: 2,
    colorScheme: opts.colorScheme ?? 'light',
    locale: 'en-US',
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Where failure screenshots go: test-output/miniapp (gitignored), or TEST_OUTPUT_DIR. */
export const SCREENSHOT_DIR = join(process.env.TEST_OUTPUT_DIR ?? join(process.cwd(), 'test-output'), 'miniapp');

/** The browser, or why it could not start: kept so every test fails with the reason instead of being skipped. */
export function launchOrReason(): Promise<Browser | Error> {
  return launchChromium().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

/** Runs `body` on a fresh page; on failure saves a full-page screenshot named for the test, then rethrows. */
export async function withPage(browser: Browser | Error, name: string, body: (page: Page) => Promise<void>): Promise<void> {
  if (browser instanceof Error) throw browser;
  const page = await browser.context.newPage();
  // Shorter than the test's own timeout, so a stuck step fails here and leaves its screenshot.
  page.setDefaultTimeout(8_000);
  try {
    await body(page);
  } catch (err) {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const file = join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '_')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw Object.assign(err instanceof Error ? err : new Error(String(err)), { screenshot: file });
  } finally {
    await page.close();
  }
}
