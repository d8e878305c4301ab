/**
 * The Mini App's static files as the HTTP server asks for them (`get(name)`), read once from the
 * directory `npm run build` wrote (dist/miniapp-assets); the server does not care how they were built.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { pageCsp } from './page-csp.js';
import type { Asset, AssetProvider } from './server.js';

export type { Asset, AssetProvider };

const TYPES: Record<string, string | undefined> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', html: 'text/html; charset=utf-8' };

/** The content type the server sends for a built file, by its extension. */
export function assetType(name: string): string | undefined {
  return TYPES[name.split('.').pop() ?? ''];
}

/** A built file as the server sends it: its type, validator and, for a page, the policy naming its inline blocks. */
export function assetOf(name: string, body: Buffer, gzip: Buffer | undefined): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return {
    body,
    type: assetType(name) ?? 'application/octet-stream',
    etag,
    ...(gzip ? { gzip } : {}),
    ...(name.endsWith('.html') ? { csp: pageCsp(body.toString('utf8')) } : {}),
  };
}

export function assetsFromFiles(dir: string): AssetProvider {
  const assets = new Map<string, Asset>();
  const names = readdirSync(dir);
  for (const name of names) {
    if (!assetType(name)) continue;
    const gz = names.includes(name + '.gz') ? readFileSync(join(dir, name + '.gz')) : undefined;
    assets.set(name, assetOf(name, readFileSync(join(dir, name)), gz));
  }
  return { get: (name) => assets.get(name) };
}

/** What `npm run build` wrote beside dist/ (dist/miniapp-assets), when it did; the bot then serves it. */
export function builtMiniAppAssets(): AssetProvider | undefined {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'miniapp-assets');
  return existsSync(join(dir, 'index.html')) ? assetsFromFiles(dir) : undefined;
}
