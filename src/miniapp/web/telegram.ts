/**
 * What Telegram hands the page in the URL's hash when it opens a Mini App: the signed initData and
 * the theme. Read from the hash so the page needs no script from telegram.org (CSP stays 'self').
 */
import { launchData } from './early-boot.js';
import type { Lang } from './types.js';

export interface Launch {
  initData: string;
  theme: Record<string, string>;
  lang: Lang;
}

export function readLaunch(hash: string, navigatorLang: string): Launch {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const initData = launchData(hash);
  let theme: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(params.get('tgWebAppThemeParams') ?? '{}');
    if (parsed && typeof parsed === 'object') {
      theme = Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string' && /^#[0-9a-f]{3,8}$/i.test(e[1])));
    }
  } catch {
    theme = {};
  }
  let userLang = '';
  try {
    const user: unknown = JSON.parse(new URLSearchParams(initData).get('user') ?? '{}');
    userLang = String((user as { language_code?: unknown }).language_code ?? '');
  } catch {
    userLang = '';
  }
  const lang: Lang = (userLang || navigatorLang).toLowerCase().startsWith('ru') ? 'ru' : 'en';
  return { initData, theme, lang };
}

/** themeParams → `--tg-<name>` custom properties; the stylesheet falls back to its own light/dark palette. */
export function applyTheme(root: HTMLElement, theme: Record<string, string>): void {
  for (const [key, value] of Object.entries(theme)) root.style.setProperty(`--tg-${key.replace(/_/g, '-')}`, value);
  const bg = theme.bg_color;
  if (bg) root.dataset.scheme = luminance(bg) < 0.5 ? 'dark' : 'light';
}

function luminance(hex: string): number {
  const h = hex.length === 4 ? hex.replace(/#(.)(.)(.)/, '#$1$1$2$2$3$3') : hex;
  const n = parseInt(h.slice(1, 7), 16);
  return (0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255)) / 255;
}

/**
 * Whether this client can save a downloaded file: Telegram's phone apps open the page in a webview
 * that drops a blob download, so there the CSV is only sent to the chat. A browser (no platform in
 * the hash, as in the playground) and the desktop apps can save it.
 */
export function canDownload(hash: string): boolean {
  const platform = new URLSearchParams(hash.replace(/^#/, '')).get('tgWebAppPlatform') ?? '';
  return !['ios', 'android', 'android_x'].includes(platform);
}
