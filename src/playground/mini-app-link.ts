/**
 * The playground's Mini App link: the page on the bot's own HTTP port, opened as Telegram would
 * open it, with initData in the URL's hash signed by the playground's (fake) bot token. A person
 * opens it in any browser; it works for MINI_APP_MAX_AGE_SECONDS, and `/app` prints a fresh one.
 */
import { createServer } from 'node:http';
import { listen } from '../lib/listen.js';
import { signInitData } from '../miniapp/init-data.js';

/** A port on 127.0.0.1 nothing listens on now (bound to learn it, then released) for the bot's HTTP server. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server, 0, '127.0.0.1');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PlaygroundUser {
  id: number;
  first_name: string;
  language_code?: string;
}

/** `appUrl` (MINI_APP_URL) with the user's initData, signed at `nowMs`, where Telegram puts it: `#tgWebAppData=…`. */
export function signedAppUrl(appUrl: string, user: PlaygroundUser, botToken: string, nowMs: number): string {
  const initData = signInitData({ auth_date: String(Math.floor(nowMs / 1000)), query_id: `playground-${nowMs}`, user: JSON.stringify(user) }, botToken);
  const url = new URL(appUrl);
  url.hash = new URLSearchParams({ tgWebAppData: initData, tgWebAppVersion: '8.0', tgWebAppPlatform: 'playground' }).toString();
  return url.toString();
}

/** The buttons of a message that open the Mini App at `appUrl` (a url or web_app button), with where each opens. */
export function appButtons(replyMarkup: unknown, appUrl: string): { text: string; url: string }[] {
  const rows = (replyMarkup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return [];
  return rows.flat().flatMap((button: unknown) => {
    const b = button as { text?: unknown; url?: unknown; web_app?: { url?: unknown } };
    const url = b.web_app?.url ?? b.url;
    return typeof b.text === 'string' && typeof url === 'string' && url.startsWith(appUrl) ? [{ text: b.text, url }] : [];
  });
}
