/**
 * The Mini App's Content-Security-Policy. The page's script and stylesheet are inlined in index.html
 * (one request fewer on a slow network), so the page's policy names each inline block by its
 * SHA-256 hash: the browser runs exactly those bytes and nothing else inline — no 'unsafe-inline',
 * no nonce to keep secret, and the hashes are fixed at build time with the page.
 */
import { createHash } from 'node:crypto';

/** Every answer's policy: nothing inline, nothing from another origin, no framing but Telegram's. */
export const CSP = policy([], []);

function policy(scriptHashes: readonly string[], styleHashes: readonly string[]): string {
  const list = (hashes: readonly string[]) => ["'self'", ...hashes.map((h) => `'sha256-${h}'`)].join(' ');
  return (
    `default-src 'self'; script-src ${list(scriptHashes)}; style-src ${list(styleHashes)}; img-src 'self' data:; connect-src 'self'; ` +
    "frame-ancestors https://web.telegram.org https://*.telegram.org; base-uri 'none'; form-action 'none'; object-src 'none'"
  );
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

/** The text of every inline `<tag>` block (no attributes but `type` on scripts; the build writes them so). */
export function inlineBlocks(html: string, tag: 'script' | 'style'): string[] {
  const re = tag === 'script' ? /<script(?: type="module")?>([\s\S]*?)<\/script>/g : /<style>([\s\S]*?)<\/style>/g;
  return [...html.matchAll(re)].map((m) => m[1]!);
}

/** The policy for an HTML page: CSP plus the hash of each of its inline scripts and styles. */
export function pageCsp(html: string): string {
  return policy(inlineBlocks(html, 'script').map(sha256), inlineBlocks(html, 'style').map(sha256));
}
