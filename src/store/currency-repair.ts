/**
 * A currency set before the user record had one. `/settings currency EUR` once wrote only the
 * ledger's settings; alerts, cards and inline results now print the user record's currency, so
 * those users' stakes came out bare until they sent the command again. Both stores copy the
 * ledger's code onto a user record that has none, once: the embedded store at every open (a file
 * repaired is written at once, so the next open finds nothing to do), the Redis store at opens
 * until one has done it (`{p}meta` remembers that).
 *
 * Only a record with no currency takes one, and only a valid code: a user who said `none` since
 * has none in the ledger either (the command writes both).
 */
import { CURRENCY_CODE } from '../ledger/model.js';
import type { Database, UserRecord } from './schema.js';

/** The field of `{p}meta` that says the Redis store's users were repaired. */
export const CURRENCY_REPAIRED_FIELD = 'currency-repaired';

/** User id → the ledger's code, for each user among `users` whose record has no currency and whose ledger has one. */
export function currenciesToRepair(
  users: Iterable<Pick<UserRecord, 'id' | 'currency'>>,
  ledgerCurrency: (userId: number) => unknown,
): Map<number, string> {
  const out = new Map<number, string>();
  for (const user of users) {
    if (user.currency !== null) continue;
    const code = ledgerCurrency(user.id);
    if (typeof code === 'string' && CURRENCY_CODE.test(code)) out.set(user.id, code);
  }
  return out;
}

/** The currency in a ledger's stored settings (the JSON of its `s` field), or undefined when it has none or is unreadable. */
export function currencyOfStoredSettings(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    const settings: unknown = JSON.parse(text);
    return typeof settings === 'object' && settings !== null && 'currency' in settings ? settings.currency : undefined;
  } catch {
    return undefined;
  }
}

/** The embedded store's repair, on the file's data before the store holds it; the ids repaired. */
export function repairFileCurrencies(data: Database): number[] {
  const repairs = currenciesToRepair(Object.values(data.users), (id) => data.ledger[String(id)]?.settings.currency);
  for (const [id, currency] of repairs) {
    const user = data.users[String(id)];
    if (user) data.users[String(id)] = { ...user, currency };
  }
  return [...repairs.keys()];
}
