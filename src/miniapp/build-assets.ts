/**
 * Bundles the Mini App page (src/miniapp/web) with esbuild into hashed, immutable assets plus an
 * index.html that names them, each with a gzip copy. Used by `npm run build` (written to
 * dist/miniapp-assets), the playground and the tests (in memory).
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { assetType, type Asset, type AssetProvider } from './asset-provider.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The page's sources: beside this file under src/, else up from dist/ or .bench-build/src/ to the repository's src/. */
function findWebDir(): string {
  for (let dir = here; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'web'), join(dir, 'src', 'miniapp', 'web')]) if (existsSync(join(candidate, 'main.ts'))) return candidate;
    if (dirname(dir) === dir) throw new Error('the Mini App sources (src/miniapp/web) are not beside the build');
  }
}
const webDir = findWebDir();

export async function buildAssets(opts: { minify?: boolean } = {}): Promise<Map<string, Buffer>> {
  const result = await build({
    entryPoints: [join(webDir, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    minify: opts.minify ?? true,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    outdir: 'out',
    metafile: false,
    logLevel: 'silent',
  });
  const files = new Map<string, Buffer>();
  for (const f of result.outputFiles) files.set(f.path.split(/[\\/]/).pop()!, Buffer.from(f.contents));
  const js = [...files.keys()].find((n) => n.endsWith('.js'));
  const css = [...files.keys()].find((n) => n.endsWith('.css'));
  if (!js) throw new Error('the Mini App bundle produced no JavaScript');
  files.set('index.html', Buffer.from(indexHtml(js, css)));
  return files;
}

function indexHtml(js: string, css: string | undefined): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>Desk</title>
${css ? `<link rel="stylesheet" href="assets/${css}">` : ''}
<script type="module" src="assets/${js}"></script>
</head><body><div id="app"></div></body></html>
`;
}

/** The built page as the server's asset provider (in memory, for the playground and the tests). */
export async function buildAssetProvider(): Promise<AssetProvider> {
  const files = await buildAssets();
  const assets = new Map<string, Asset>();
  for (const [name, body] of files) assets.set(name, toAsset(name, body));
  return { get: (name) => assets.get(name) };
}

export function toAsset(name: string, body: Buffer): Asset {
  return { body, type: assetType(name) ?? 'application/octet-stream', gzip: gzipSync(body, { level: 9 }) };
}

/** `npm run build`: writes the assets (and their .gz) to dist/miniapp-assets for assetsFromFiles. */
export async function writeAssets(outDir: string): Promise<string[]> {
  const files = await buildAssets();
  await mkdir(outDir, { recursive: true });
  for (const [name, body] of files) {
    await writeFile(join(outDir, name), body);
    await writeFile(join(outDir, name + '.gz'), gzipSync(body, { level: 9 }));
  }
  return [...files.keys()];
}
