/**
 * The callback data of /books' buttons: `bk:s:<bookmaker id>:<o|l|c>` sets a bookmaker's status
 * (ok, limited, closed), `bk:r:<bookmaker id>` resets its settings, `bk:e:<bookmaker id>` offers
 * the values to set, and `bk:v:<bookmaker id>:<c|x|n|t>` asks for one (commission, max, min,
 * step) as a typed answer. The decoder accepts only these exact forms; whether the id is a
 * bookmaker the dictionaries know is the feature's check.
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import type { BookStatus } from '../../store/book-settings.js';
import { CALLBACK_PREFIXES } from './registry.js';

/** The settings /books asks for by a button and a typed value. */
export const BOOK_VALUE_OPTIONS = ['commission', 'max', 'min', 'step'] as const;
export type BookValueOption = (typeof BOOK_VALUE_OPTIONS)[number];

export type BooksAction =
  | { type: 'status'; bookmakerId: number; status: BookStatus }
  | { type: 'reset'; bookmakerId: number }
  | { type: 'edit'; bookmakerId: number }
  | { type: 'value'; bookmakerId: number; option: BookValueOption };

const PREFIX = CALLBACK_PREFIXES.books;
const FORM = new RegExp(`^${PREFIX}(?:s:(\\d{1,9}):([olc])|r:(\\d{1,9})|e:(\\d{1,9})|v:(\\d{1,9}):([cxnt]))$`);
const STATUS_CODE: Record<BookStatus, string> = { ok: 'o', limited: 'l', closed: 'c' };
const CODE_STATUS: Record<string, BookStatus> = { o: 'ok', l: 'limited', c: 'closed' };
const OPTION_CODE: Record<BookValueOption, string> = { commission: 'c', max: 'x', min: 'n', step: 't' };
const CODE_OPTION: Record<string, BookValueOption> = { c: 'commission', x: 'max', n: 'min', t: 'step' };

export function encodeBooksAction(action: BooksAction): string {
  const id = action.bookmakerId;
  if (!Number.isInteger(id) || id < 0 || id > 999_999_999) throw new RangeError('books: a bookmaker id is a whole number of at most 9 digits');
  switch (action.type) {
    case 'reset':
      return `${PREFIX}r:${id}`;
    case 'edit':
      return `${PREFIX}e:${id}`;
    case 'value':
      return `${PREFIX}v:${id}:${OPTION_CODE[action.option]}`;
    case 'status':
      return `${PREFIX}s:${id}:${STATUS_CODE[action.status]}`;
  }
}

export function decodeBooksAction(raw: unknown): BooksAction | undefined {
  const data = withinCallbackLimit(raw);
  const m = data === undefined ? null : FORM.exec(data);
  if (!m) return undefined;
  if (m[3] !== undefined) return { type: 'reset', bookmakerId: Number(m[3]) };
  if (m[4] !== undefined) return { type: 'edit', bookmakerId: Number(m[4]) };
  if (m[5] !== undefined) {
    const option = CODE_OPTION[m[6] ?? ''];
    return option === undefined ? undefined : { type: 'value', bookmakerId: Number(m[5]), option };
  }
  const status = CODE_STATUS[m[2] ?? ''];
  return status === undefined ? undefined : { type: 'status', bookmakerId: Number(m[1]), status };
}
