/**
 * A rough check of Telegram's HTML parse mode, strict enough to catch what the real Bot API
 * rejects most often (unknown tags, unbalanced or crossed tags, a bare `<`) and to measure the
 * text the way Telegram does: after the tags are removed and the entities decoded.
 */

/** Tags Telegram accepts in HTML parse mode. */
const ALLOWED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'tg-time',
  'code',
  'pre',
  'blockquote',
]);

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export type HtmlCheck = { ok: true; visibleLength: number } | { ok: false; error: string };

/** Checks `text` as Telegram HTML; `visibleLength` counts UTF-16 units of the parsed text, as Telegram's limits do. */
export function checkTelegramHtml(text: string): HtmlCheck {
  const stack: string[] = [];
  let visible = 0;
  let i = 0;
  const at = (pos: number) => Buffer.byteLength(text.slice(0, pos), 'utf8');
  const fail = (error: string): HtmlCheck => ({ ok: false, error: `Bad Request: can't parse entities: ${error}` });

  while (i < text.length) {
    const ch = text[i];
    if (ch === '<') {
      const close = text.indexOf('>', i);
      if (close < 0) return fail(`Unclosed start tag at byte offset ${at(i)}`);
      const inner = text.slice(i + 1, close);
      if (inner.startsWith('/')) {
        const name = inner.slice(1).trim().toLowerCase();
        const open = stack.pop();
        if (open === undefined) return fail(`Unexpected end tag at byte offset ${at(i)}`);
        if (open !== name) {
          return fail(`Unmatched end tag at byte offset ${at(i)}, expected "</${open}>", found "</${name}>"`);
        }
      } else {
        const match = /^([a-zA-Z][\w-]*)(\s[^]*)?$/.exec(inner);
        const name = match?.[1]?.toLowerCase();
        if (!name || !ALLOWED_TAGS.has(name)) {
          return fail(`Unsupported start tag "${name ?? inner.slice(0, 20)}" at byte offset ${at(i)}`);
        }
        const attrs = match?.[2] ?? '';
        if (name === 'span' && !/class\s*=\s*["']?tg-spoiler["']?/.test(attrs)) {
          return fail(`Tag "span" must have class "tg-spoiler" at byte offset ${at(i)}`);
        }
        if (name === 'a' && attrs.trim() !== '' && !/href\s*=/.test(attrs)) {
          return fail(`Tag "a" must have attribute href at byte offset ${at(i)}`);
        }
        stack.push(name);
      }
      i = close + 1;
      continue;
    }
    if (ch === '&') {
      const entity = /^&(#\d{1,7}|#x[0-9a-fA-F]{1,6}|[a-zA-Z]+);/.exec(text.slice(i, i + 12));
      if (entity?.[1]) {
        const decoded = decodeEntity(entity[1]);
        if (decoded !== undefined) {
          visible += decoded.length;
          i += entity[0].length;
          continue;
        }
      }
      // Telegram keeps an `&` that starts no known entity as a literal character.
      visible += 1;
      i += 1;
      continue;
    }
    visible += 1;
    i += 1;
  }
  const open = stack.pop();
  if (open !== undefined) return fail(`Can't find end tag corresponding to start tag "${open}"`);
  return { ok: true, visibleLength: visible };
}

function decodeEntity(body: string): string | undefined {
  if (body.startsWith('#x')) return fromCodePoint(Number.parseInt(body.slice(2), 16));
  if (body.startsWith('#')) return fromCodePoint(Number.parseInt(body.slice(1), 10));
  return NAMED_ENTITIES[body.toLowerCase()];
}

function fromCodePoint(cp: number): string | undefined {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
}
