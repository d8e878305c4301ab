/**
 * Telegram HTML parse mode helpers, the one copy the whole bot uses. Every value that comes from
 * outside (team and league names, bookmaker names from the dictionaries, ids, a user's own text)
 * goes through `escapeHtml` before it is put into a message, so a hostile name can never open a
 * tag or break the message; `htmlToText` is the reverse for places that cannot carry markup.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes `&`, `<`, `>`, `"` and `'` for Telegram's HTML parse mode (safe in text and in attributes). */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/**
 * The text a reader sees once the HTML is parsed: tags removed, the entities `escapeHtml` writes
 * decoded (`&#x27;` too, which other code may write for `'`). `&amp;` goes last, so `&amp;lt;`
 * reads as the `&lt;` that was escaped rather than as `<`.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * Shortens `text` to at most `max` characters, counted in code points so an emoji (a UTF-16
 * surrogate pair) is never cut in half, ending with "…" when it was cut. Apply it before
 * escaping, so an entity is never cut either.
 */
export function clipText(text: string, max: number): string {
  // A string no longer than `max` UTF-16 units has at most `max` code points: no need to split it.
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  if (max <= 1) return '…';
  return `${chars.slice(0, max - 1).join('')}…`;
}
