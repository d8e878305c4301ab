/**
 * Telegram's Mini App signature (core.telegram.org/bots/webapps, "Validating data received via the
 * Mini App"): secret = HMAC-SHA-256(key "WebAppData", data = bot token); hash = hex HMAC-SHA-256
 * (key secret) of every field but `hash`, as sorted `key=value` lines joined by \n. The only proof
 * of who calls the API: there is no cookie and no token of the app's own.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** A clock slower than Telegram's may see a fresh auth_date a little ahead: this much is allowed. */
export const FUTURE_SKEW_SECONDS = 60;
/** initData longer than this is no Telegram's (a full one is well under 2 KB). */
export const MAX_INIT_DATA_CHARS = 4096;

const userSchema = z.object({
  id: z.number().int().positive(),
  language_code: z.string().max(35).optional(),
  first_name: z.string().max(256).optional(),
  username: z.string().max(64).optional(),
});

export interface InitDataUser {
  id: number;
  languageCode: string | undefined;
}

export type InitDataCheck = { ok: true; user: InitDataUser; authDate: number } | { ok: false; reason: 'missing' | 'malformed' | 'bad_hash' | 'expired' | 'future' };

const secretOf = (botToken: string): Buffer => createHmac('sha256', 'WebAppData').update(botToken).digest();

/** The data-check string: every field but `hash`, `key=value` sorted by key, joined by \n. */
export function dataCheckString(params: URLSearchParams): string {
  return [...params.entries()]
    .filter(([k]) => k !== 'hash')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

/** Signs `fields` as Telegram would (the playground and tests; the bot never needs to). */
export function signInitData(fields: Record<string, string>, botToken: string): string {
  const params = new URLSearchParams(fields);
  params.delete('hash');
  const hash = createHmac('sha256', secretOf(botToken)).update(dataCheckString(params)).digest('hex');
  params.set('hash', hash);
  return params.toString();
}

/**
 * Checks `raw` (the initData as the page got it) against `botToken`: signature first, in constant
 * time, then age (older than `maxAgeSeconds` or more than FUTURE_SKEW_SECONDS ahead of `nowMs` is
 * refused), then the user.
 */
export function checkInitData(raw: string | undefined, botToken: string, maxAgeSeconds: number, nowMs: number): InitDataCheck {
  if (raw === undefined || raw === '') return { ok: false, reason: 'missing' };
  if (raw.length > MAX_INIT_DATA_CHARS) return { ok: false, reason: 'malformed' };
  const params = new URLSearchParams(raw);
  const hashes = params.getAll('hash');
  if (hashes.length !== 1 || !/^[0-9a-f]{64}$/.test(hashes[0]!)) return { ok: false, reason: 'malformed' };
  // A repeated key would make "the" value ambiguous between the check string and what we read.
  const keys = [...params.keys()];
  if (new Set(keys).size !== keys.length) return { ok: false, reason: 'malformed' };
  const expected = createHmac('sha256', secretOf(botToken)).update(dataCheckString(params)).digest();
  const given = Buffer.from(hashes[0]!, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_hash' };
  const authDate = Number(params.get('auth_date'));
  if (!Number.isSafeInteger(authDate) || authDate <= 0) return { ok: false, reason: 'malformed' };
  const nowSeconds = Math.floor(nowMs / 1000);
  if (authDate > nowSeconds + FUTURE_SKEW_SECONDS) return { ok: false, reason: 'future' };
  if (nowSeconds - authDate > maxAgeSeconds) return { ok: false, reason: 'expired' };
  let user: z.infer<typeof userSchema>;
  try {
    const parsed = userSchema.safeParse(JSON.parse(params.get('user') ?? ''));
    if (!parsed.success) return { ok: false, reason: 'malformed' };
    user = parsed.data;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  return { ok: true, user: { id: user.id, languageCode: user.language_code }, authDate };
}

/** The initData of `Authorization: tma <initData>`; undefined for any other header. */
export function initDataOf(header: string | undefined): string | undefined {
  const m = /^tma (.+)$/.exec(header ?? '');
  return m?.[1];
}
