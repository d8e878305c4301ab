/**
 * Telegram's limit on a button's `callback_data`: 1 to 64 bytes of UTF-8. A platform fact, kept
 * here (below every layer) because both the alert formatter in `src/alerts/` and the bot's codecs
 * in `src/bot/callback-data/` encode and decode callback data, and neither may import the other's
 * side. Every decoder starts with `withinCallbackLimit`, so data that Telegram would never have sent
 * (not a string, empty, oversized) is refused before any parsing.
 */

/** Telegram's limit on `callback_data`, in bytes of UTF-8. */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** `data` when it is a string of 1–64 bytes of UTF-8, else `undefined`. */
export function withinCallbackLimit(data: unknown): string | undefined {
  if (typeof data !== 'string' || data.length === 0 || data.length > CALLBACK_DATA_MAX_BYTES) return undefined;
  return Buffer.byteLength(data, 'utf8') <= CALLBACK_DATA_MAX_BYTES ? data : undefined;
}
