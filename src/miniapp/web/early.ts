/**
 * Inlined in the page's <head>, before the stylesheet and the bundle: starts the boot call (`me` and
 * the first screen's data) the moment the HTML's first bytes are parsed, so the request travels
 * while the bundle downloads, parses and runs. main.ts takes the answer (early-boot.ts).
 */
import { bootPath, EARLY_KEY, launchData, startScreen, type EarlyBoot } from './early-boot.js';

const initData = launchData(location.hash);
if (initData) {
  const screen = startScreen(location.search);
  const answer = fetch(bootPath(screen), { headers: { authorization: `tma ${initData}` } });
  // Handled here as well: a failure before the bundle awaits it is then no unhandled rejection.
  answer.catch(() => undefined);
  const early: EarlyBoot = { initData, screen, answer };
  (window as unknown as Record<string, EarlyBoot>)[EARLY_KEY] = early;
}
