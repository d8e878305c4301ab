/**
 * Telegram HTML parse mode helpers. Every value that comes from outside (team and league names,
 * bookmaker names from the dictionaries, ids) goes through `escapeHtml` before it is put into a
 * message, so a hostile name can never open a tag or break the message.
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
 * Shortens `value` to at most `max` characters (code points, so an emoji is never cut in half),
 * ending with "…" when it was cut. Applied before escaping so an entity is never cut either.
 */
export function truncate(value: string, max: number): string {
  const chars = Array.from(value);
  if (chars.length <= max) return value;
  if (max <= 1) return '…';
  return `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * The text a reader sees once the HTML is parsed: tags removed, the five entities above decoded.
 * Used for plain-text places (inline result titles) and for checking the visible length.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
