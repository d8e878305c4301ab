import { describe, expect, it } from 'vitest';
import { checkInitData, initDataOf, signInitData } from '../../src/miniapp/init-data.js';

// Computed apart from the code, with openssl:
//   SECRET=$(printf '%s' "$TOKEN" | openssl dgst -sha256 -hmac WebAppData -binary | xxd -p -c 256)
//   printf 'auth_date=…\nquery_id=…\nuser=…' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$SECRET
const TOKEN = '123456:TEST-token-for-vector';
const USER = '{"id":42,"first_name":"Ann","language_code":"ru"}';
const VECTOR =
  `query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=${encodeURIComponent(USER)}&auth_date=1700000000` +
  '&hash=b22f831772f590f4b0a867795d86b261ccf876dbb503b85390aea8acc59158bc';
const AT = 1_700_000_000_000;

describe('checkInitData', () => {
  it('accepts the vector signed apart from the code, and reads the user', () => {
    expect(checkInitData(VECTOR, TOKEN, 3600, AT + 10_000)).toEqual({ ok: true, user: { id: 42, languageCode: 'ru' }, authDate: 1_700_000_000 });
  });

  it('refuses a forged hash, another token, and a changed field', () => {
    expect(checkInitData(VECTOR.replace(/hash=b2/, 'hash=b3'), TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkInitData(VECTOR, '123456:another', 3600, AT)).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkInitData(VECTOR.replace('%22id%22%3A42', '%22id%22%3A43'), TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('refuses data older than the max age and from the future beyond the skew', () => {
    expect(checkInitData(VECTOR, TOKEN, 3600, AT + 3601_000)).toEqual({ ok: false, reason: 'expired' });
    expect(checkInitData(VECTOR, TOKEN, 3600, AT + 3600_000).ok).toBe(true);
    expect(checkInitData(VECTOR, TOKEN, 3600, AT - 61_000)).toEqual({ ok: false, reason: 'future' });
    expect(checkInitData(VECTOR, TOKEN, 3600, AT - 30_000).ok).toBe(true);
  });

  it('refuses a missing hash, a doubled key, no user and oversized data', () => {
    expect(checkInitData(undefined, TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'missing' });
    expect(checkInitData(VECTOR.replace(/&hash=.*/, ''), TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'malformed' });
    expect(checkInitData(`${VECTOR}&auth_date=1700000000`, TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'malformed' });
    const noUser = signInitData({ auth_date: '1700000000' }, TOKEN);
    expect(checkInitData(noUser, TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'malformed' });
    const big = signInitData({ auth_date: '1700000000', user: USER, pad: 'x'.repeat(5000) }, TOKEN);
    expect(checkInitData(big, TOKEN, 3600, AT)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('signs as Telegram does (the same vector)', () => {
    const signed = signInitData({ query_id: 'AAHdF6IQAAAAAN0XohDhrOrc', user: USER, auth_date: '1700000000' }, TOKEN);
    expect(new URLSearchParams(signed).get('hash')).toBe('b22f831772f590f4b0a867795d86b261ccf876dbb503b85390aea8acc59158bc');
  });

  it('reads only "tma <initData>" from Authorization', () => {
    expect(initDataOf('tma abc')).toBe('abc');
    expect(initDataOf('Bearer abc')).toBeUndefined();
    expect(initDataOf(undefined)).toBeUndefined();
  });
});
