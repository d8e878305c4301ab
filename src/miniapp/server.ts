/**
 * The Mini App's routes on the bot's HTTP server (src/health/server.ts): `/app/` the page,
 * `/app/assets/<name>` its built files from the provider it is given (hashed names, immutable),
 * `/app/api/*` the API (api.ts). Every answer carries the strict CSP (the page's own names its
 * inline script and style by hash, page-csp.ts) and nosniff; none sets a cookie. The page holds
 * no user data: a device reuses it for PAGE_MAX_AGE_SECONDS without asking (a second open then
 * waits for no request before drawing), then revalidates it (ETag, 304: a round trip, no bytes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MiniAppApi } from './api.js';
import { API_PREFIX } from './contract.js';
import { CSP } from './page-csp.js';

export { CSP };

export interface Asset {
  body: Buffer;
  type: string;
  gzip?: Buffer;
  /** The policy this file needs when it is not CSP (a page with inline blocks: their hashes). */
  csp?: string;
  /** A strong validator of `body` (quoted), for If-None-Match. */
  etag?: string;
}
/** Where the page's files come from (the build's output, kept in memory). `index.html` is the page. */
export interface AssetProvider {
  get(name: string): Asset | undefined;
}

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * How long a device may reuse the page without asking. Chromium revalidates a navigation that is
 * past its max-age even under stale-while-revalidate, so only max-age spares a second open its
 * round trip; the price is that a new version reaches a device up to this long after a restart.
 */
export const PAGE_MAX_AGE_SECONDS = 300;

/** An asset name as the build writes them: one path segment of safe characters, no dot-dot, no slash. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;

export function serveAsset(req: IncomingMessage, res: ServerResponse, assets: AssetProvider, name: string, immutable: boolean): void {
  const asset = ASSET_NAME.test(name) ? assets.get(name) : undefined;
  if (!asset) {
    res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  const gz = asset.gzip !== undefined && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  // One tag per representation: the gzip bytes are not the plain ones.
  const etag = asset.etag === undefined ? undefined : gz ? `${asset.etag.slice(0, -1)}-gz"` : asset.etag;
  const headers = {
    ...SECURITY_HEADERS,
    'content-security-policy': asset.csp ?? CSP,
    // Kept only what can be revalidated: a page without a validator (the "not built" one) is asked for each time.
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : etag ? `max-age=${PAGE_MAX_AGE_SECONDS}` : 'no-cache',
    vary: 'accept-encoding',
    ...(etag ? { etag } : {}),
  };
  if (etag !== undefined && matches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  const body = gz ? asset.gzip! : asset.body;
  res.writeHead(200, { ...headers, 'content-type': asset.type, 'content-length': String(body.length), ...(gz ? { 'content-encoding': 'gzip' } : {}) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** If-None-Match against our strong tag: a list of tags, each maybe weak (W/), or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/** Handles `/app` and below; false for any other path (the caller's routes). */
export function createMiniAppRoutes(api: MiniAppApi, assets: AssetProvider): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (path !== '/app' && !path.startsWith('/app/')) return false;
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
      api(req, res, path, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return true;
    }
    if (path === '/app' || path === '/app/') serveAsset(req, res, assets, 'index.html', false);
    else if (path.startsWith('/app/assets/')) serveAsset(req, res, assets, path.slice('/app/assets/'.length), true);
    else res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return true;
  };
}
