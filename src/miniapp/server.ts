/**
 * The Mini App's routes on the bot's HTTP server (src/health/server.ts): `/app/` the page,
 * `/app/assets/<name>` its built files from the provider it is given (hashed names, immutable),
 * `/app/api/*` the API (api.ts). Every answer carries the strict CSP and nosniff; none sets a cookie.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MiniAppApi } from './api.js';
import { API_PREFIX } from './contract.js';

export interface Asset {
  body: Buffer;
  type: string;
  gzip?: Buffer;
}
/** Where the page's files come from (the build's output, kept in memory). `index.html` is the page. */
export interface AssetProvider {
  get(name: string): Asset | undefined;
}

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors https://web.telegram.org https://*.telegram.org; base-uri 'none'; form-action 'none'; object-src 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** An asset name as the build writes them: one path segment of safe characters, no dot-dot, no slash. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;

export function serveAsset(req: IncomingMessage, res: ServerResponse, assets: AssetProvider, name: string, immutable: boolean): void {
  const asset = ASSET_NAME.test(name) ? assets.get(name) : undefined;
  if (!asset) {
    res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  const gz = asset.gzip !== undefined && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gz ? asset.gzip! : asset.body;
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': asset.type,
    'content-length': String(body.length),
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    ...(gz ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
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
