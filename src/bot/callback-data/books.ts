/**
 * The callback data of /books' buttons: `bk:s:<bookmaker id>:<o|l|c>` sets a bookmaker's status
 * (ok, limited, closed) and `bk:r:<bookmaker id>` resets its settings. The decoder accepts only
 * these exact forms; whether the id is a bookmaker the dictionaries know is the feature's check.
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import type { BookStatus } from '../../store/book-settings.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type BooksAction = { type: 'status'; bookmakerId: number; status: BookStatus } | { type: 'reset'; bookmakerId: number };

const PREFIX = CALLBACK_PREFIXES.books;
const FORM = new RegExp(`^${PREFIX}(?:s:(\\d{1,9}):([olc])|r:(\\d{1,9}))$`);
const STATUS_CODE: Record<BookStatus, string> = { ok: 'o', limited: 'l', closed: 'c' };
const CODE_STATUS: Record<string, BookStatus> = { o: 'ok', l: 'limited', c: 'closed' };

export function encodeBooksAction(action: BooksAction): string {
  if (!Number.isInteger(action.bookmakerId) || action.bookmakerId < 0 || action.bookmakerId > 999_999_999) {
    throw new RangeError('books: a bookmaker id is a whole number of at most 9 digits');
  }
  return action.type === 'reset' ? `${PREFIX}r:${action.bookmakerId}` : `${PREFIX}s:${action.bookmakerId}:${STATUS_CODE[action.status]}`;
}

export function decodeBooksAction(raw: unknown): BooksAction | undefined {
  const data = withinCallbackLimit(raw);
  const m = data === undefined ? null : FORM.exec(data);
  if (!m) return undefined;
  if (m[3] !== undefined) return { type: 'reset', bookmakerId: Number(m[3]) };
  const status = CODE_STATUS[m[2] ?? ''];
  return status === undefined ? undefined : { type: 'status', bookmakerId: Number(m[1]), status };
}
