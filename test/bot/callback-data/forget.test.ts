import { describe, expect, it } from 'vitest';
import { decodeForgetAnswer, encodeForgetAnswer } from '../../../src/bot/callback-data/forget.js';

describe('/forget callback data', () => {
  it('keeps the wire forms: no, and yes with the time asked in base-36 seconds', () => {
    expect(encodeForgetAnswer({ type: 'no' })).toBe('fg:n');
    expect(encodeForgetAnswer({ type: 'yes', issuedAt: 36_000 })).toBe('fg:y:10');
    expect(encodeForgetAnswer({ type: 'yes', issuedAt: 1_700_000_000_999 })).toBe(`fg:y:${(1_700_000_000).toString(36)}`);
  });

  it('round trips, to the whole second', () => {
    expect(decodeForgetAnswer(encodeForgetAnswer({ type: 'no' }))).toEqual({ type: 'no' });
    for (const at of [0, 1_000, 1_700_000_000_000, 4_102_444_800_000]) {
      expect(decodeForgetAnswer(encodeForgetAnswer({ type: 'yes', issuedAt: at }))).toEqual({ type: 'yes', issuedAt: at });
    }
    expect(decodeForgetAnswer(encodeForgetAnswer({ type: 'yes', issuedAt: 1_999 }))).toEqual({ type: 'yes', issuedAt: 1_000 });
  });

  it('will not encode a time it could not read back', () => {
    expect(() => encodeForgetAnswer({ type: 'yes', issuedAt: -1_000 })).toThrow(RangeError);
    expect(() => encodeForgetAnswer({ type: 'yes', issuedAt: Number.NaN })).toThrow(RangeError);
  });

  it('refuses forged and oversized data', () => {
    const forged: unknown[] = [
      '', 'fg:', 'fg:y', 'fg:y:', 'fg:y:-1', 'fg:y:ZZ', 'fg:y:zzzzzzzzzzz', 'fg:y:1.5', 'fg:y:1 ', 'fg:n:x', 'fg:n:', 'fg:x', 'FG:n',
      ' fg:n', 'fg:nn', 'f:n', 'cv:n', `fg:y:${'1'.repeat(64)}`, null, undefined, 1, { type: 'no' },
    ];
    for (const data of forged) expect(decodeForgetAnswer(data), JSON.stringify(data)).toBeUndefined();
  });
});
