/**
 * What the inline script in the page's <head> (early.ts) and the bundle (main.ts) agree on: the
 * launch's initData, the first screen, and where the early boot call waits for the bundle.
 */
export const SCREENS = ['ledger', 'filters', 'books'] as const;
export type Screen = (typeof SCREENS)[number];

/** The initData Telegram put in the URL's hash (`tgWebAppData`), '' when there is none. */
export function launchData(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('tgWebAppData') ?? '';
}

/** `?screen=` of the launch URL (the chat's 📊 ⚙️ 📚 buttons); anything else opens the ledger. */
export function startScreen(search: string): Screen {
  const s = new URLSearchParams(search).get('screen');
  return SCREENS.includes(s as Screen) ? (s as Screen) : 'ledger';
}

export const bootPath = (screen: Screen): string => `api/boot?screen=${screen}`;

/** The global the early script leaves its call under, for the bundle to take once. */
export const EARLY_KEY = '__deskBoot';
export interface EarlyBoot {
  initData: string;
  screen: Screen;
  answer: Promise<Response>;
}

/** The call the early script started for this initData and screen, once; undefined when there is none. */
export function takeEarlyBoot(initData: string, screen: Screen): Promise<Response> | undefined {
  const slot = window as unknown as Record<string, EarlyBoot | undefined>;
  const early = slot[EARLY_KEY];
  slot[EARLY_KEY] = undefined;
  return early && early.initData === initData && early.screen === screen ? early.answer : undefined;
}
