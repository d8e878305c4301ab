/**
 * Fitting HTML text into Telegram's 4096-character messages. Text is split between lines (the
 * alert formatter keeps every tag within one line); a single line longer than a message is cut at
 * a space outside any tag or entity, closing the tags still open and reopening them in the next
 * part, so every part stays valid HTML.
 */

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** Room kept at the end of a cut line for the closing tags it needs. */
const TAG_RESERVE = 256;

/** Splits `text` into parts of at most `limit` characters, on line boundaries where possible. */
export function splitMessage(text: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  if (text.length <= limit) return text.trim() === '' ? [] : [text];
  const parts: string[] = [];
  let current: string[] = [];
  let currentLength = -1;
  const flush = () => {
    const part = current.join('\n').replace(/^\n+|\n+$/g, '');
    if (part.trim() !== '') parts.push(part);
    current = [];
    currentLength = -1;
  };
  for (const line of text.split('\n')) {
    for (const piece of line.length > limit ? splitLongLine(line, limit) : [line]) {
      if (currentLength + 1 + piece.length > limit) flush();
      current.push(piece);
      currentLength += 1 + piece.length;
    }
  }
  flush();
  return parts;
}

/** Shortens `text` to at most `limit` characters on a line boundary, marking the cut with "…". */
export function truncateMessage(text: string, limit = TELEGRAM_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const marker = '\n…';
  const first = splitMessage(text, limit - marker.length)[0] ?? '';
  return `${first}${marker}`;
}

interface OpenTag {
  name: string;
  raw: string;
}

/** Cuts one over-long line into pieces of at most `limit`, keeping each piece's tags balanced. */
export function splitLongLine(line: string, limit: number): string[] {
  const budget = Math.max(1, limit - Math.min(TAG_RESERVE, Math.floor(limit / 4)));
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > limit) {
    const cut = findCut(rest, budget);
    const head = rest.slice(0, cut);
    const open = openTagsAfter(head);
    pieces.push(head + open.map((t) => `</${t.name}>`).reverse().join(''));
    let reopen = open.map((t) => t.raw).join('');
    // Guarantee progress even for a pathological nest of tags.
    if (reopen.length >= budget) reopen = '';
    rest = reopen + rest.slice(cut).replace(/^ /, '');
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** The last safe cut at or before `budget`: a space if one is reasonably far in, else any spot outside a tag or entity. */
function findCut(text: string, budget: number): number {
  let inTag = false;
  let entityStart = -1;
  let lastSafe = 0;
  let lastSpace = 0;
  for (let i = 0; i <= Math.min(budget, text.length); i++) {
    const safe = !inTag && entityStart < 0 && !isLowSurrogate(text.charCodeAt(i));
    if (safe && i > 0) {
      lastSafe = i;
      if (text[i] === ' ') lastSpace = i;
    }
    const ch = text[i];
    if (ch === '<') inTag = true;
    else if (ch === '>' && inTag) inTag = false;
    else if (ch === '&' && !inTag) entityStart = i;
    else if (entityStart >= 0 && (ch === ';' || i - entityStart > 10 || ch === ' ')) entityStart = -1;
  }
  if (lastSpace > budget / 2) return lastSpace;
  return lastSafe > 0 ? lastSafe : Math.min(budget, text.length);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The tags opened and not closed in `html`, outermost first. */
function openTagsAfter(html: string): OpenTag[] {
  const stack: OpenTag[] = [];
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*>/g)) {
    const name = (match[2] ?? '').toLowerCase();
    if (match[1] === '/') {
      const at = stack.map((t) => t.name).lastIndexOf(name);
      if (at >= 0) stack.splice(at, 1);
    } else {
      stack.push({ name, raw: match[0] });
    }
  }
  return stack;
}
