/**
 * Bundles the Mini App page (src/miniapp/web) with esbuild into ONE file, index.html: the
 * stylesheet, a tiny script that starts the boot call (web/early.ts) and the bundle, all inline,
 * so a cold open waits for the HTML and then the boot call and nothing else (no third round trip
 * for hashed JS and CSS). The CSP names each inline block by hash (page-csp.ts). Used by
 * `npm run build` (written to dist/miniapp-assets, with a gzip copy), the playground and the tests
 * (in memory).
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { assetOf, type AssetProvider } from './asset-provider.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The page's sources: beside this file under src/, else up from dist/ or .bench-build/src/ to the repository's src/. */
function findWebDir(): string {
  for (let dir = here; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'web'), join(dir, 'src', 'miniapp', 'web')]) if (existsSync(join(candidate, 'main.ts'))) return candidate;
    if (dirname(dir) === dir) throw new Error('the Mini App sources (src/miniapp/web) are not beside the build');
  }
}
const webDir = findWebDir();

/** One entry bundled to a classic script (and its CSS, if it imports any), in memory. */
async function bundle(entry: string, minify: boolean): Promise<{ js: string; css: string }> {
  const result = await build({
    entryPoints: [join(webDir, entry)],
    bundle: true,
    write: false,
    // A classic script runs as soon as the parser reaches it; a module would wait for the whole document.
    format: 'iife',
    target: 'es2020',
    minify,
    legalComments: 'none',
    outdir: 'out',
    logLevel: 'silent',
  });
  const text = (ext: string) => result.outputFiles.filter((f) => f.path.endsWith(ext)).map((f) => f.text).join('');
  return { js: text('.js'), css: text('.css') };
}

/** Text that cannot close or confuse the inline element it goes in (esbuild escapes these; this checks it). */
function inlineSafe(text: string, tag: 'script' | 'style'): string {
  if (new RegExp(`</${tag}|<!--`, 'i').test(text)) throw new Error(`the Mini App's ${tag} cannot be inlined: it contains </${tag} or <!--`);
  return text;
}

export async function buildAssets(opts: { minify?: boolean } = {}): Promise<Map<string, Buffer>> {
  const minify = opts.minify ?? true;
  const [early, main] = await Promise.all([bundle('early.ts', minify), bundle('main.ts', minify)]);
  if (!main.js) throw new Error('the Mini App bundle produced no JavaScript');
  return new Map([['index.html', Buffer.from(indexHtml(early.js, main.js, main.css))]]);
}

function indexHtml(early: string, js: string, css: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>Desk</title>
<link rel="icon" href="data:,">
<script>${inlineSafe(early, 'script')}</script>
<style>${inlineSafe(css, 'style')}</style>
</head><body><div id="app"></div>
<script>${inlineSafe(js, 'script')}</script>
</body></html>
`;
}

/** The built page as the server's asset provider (in memory, for the playground and the tests). */
export async function buildAssetProvider(): Promise<AssetProvider> {
  const files = await buildAssets();
  const assets = new Map([...files].map(([name, body]) => [name, assetOf(name, body, gzipSync(body, { level: 9 }))]));
  return { get: (name) => assets.get(name) };
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
