/**
 * The bot's HTML seen as plain text: for inline result titles and descriptions (which cannot carry
 * markup), for measuring a message the way Telegram counts it, and for clipping dictionary names.
 * The decoding and clipping themselves are the shared ones in src/lib/html.ts.
 */
import { clipText, htmlToText } from '../../lib/html.js';

/** Turns the bot's HTML into one line of plain text (whitespace runs become one space). */
export function htmlToPlain(html: string): string {
  return htmlToText(html).replace(/\s+/g, ' ').trim();
}

/** Telegram's limit on a message's text, counted after the markup is parsed. */
export const MESSAGE_MAX = 4096;

/** The length Telegram counts for our HTML (tags removed, entities one character, UTF-16 units). */
export function plainLength(html: string): number {
  return htmlToText(html).length;
}

/** A name from the service's dictionaries at most this long where the bot lists names. */
export const NAME_MAX = 40;

/** Cuts a dictionary name to `max` characters (code points) with an ellipsis. */
export function clipName(text: string, max = NAME_MAX): string {
  return clipText(text, max);
}
