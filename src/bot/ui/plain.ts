/** Turns the bot's HTML into plain text (inline result titles and descriptions cannot carry markup). */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Telegram's limit on a message's text, counted after the markup is parsed. */
export const MESSAGE_MAX = 4096;

/** The length Telegram counts for our HTML (tags removed, entities one character, UTF-16 units). */
export function plainLength(html: string): number {
  return html.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|quot|amp|#39|#x27);/g, '&').length;
}

/** A name from the service's dictionaries at most this long where the bot lists names. */
export const NAME_MAX = 40;

/** Cuts text to `max` characters (code points, so no emoji is split in half) with an ellipsis. */
export function clipName(text: string, max = NAME_MAX): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Cuts text to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
