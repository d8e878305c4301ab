/**
 * The codecs of the buttons this branch added: under "✏️ Leg limited"'s question (`ll:`) and
 * /books' value buttons (`bk:e:`, `bk:v:`). Each decoder takes back exactly what its encoder
 * makes and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { decodeBooksAction, decodeLegLimitAction, encodeBooksAction, encodeLegLimitAction } from '../../../src/bot/callback-data/index.js';

describe('ll: leg limited buttons', () => {
  it('round-trips every form, short', () => {
    for (const action of [{ type: 'max', leg: 0 }, { type: 'max', leg: 9 }, { type: 'profit', leg: 1 }, { type: 'equal' }] as const) {
      const data = encodeLegLimitAction(action);
      expect(data.length).toBeLessThanOrEqual(6);
      expect(decodeLegLimitAction(data)).toEqual(action);
    }
    expect(encodeLegLimitAction({ type: 'max', leg: 1 })).toBe('ll:m:1');
  });

  it('refuses anything else', () => {
    for (const data of ['ll:', 'll:m', 'll:m:', 'll:m:10', 'll:m:-1', 'll:x:1', 'll:e:1', 'll:p:1 ', 'LL:e', 'll:m:1\n', 'll:m:١', 42, undefined, 'x'.repeat(65)]) {
      expect(decodeLegLimitAction(data), String(data)).toBeUndefined();
    }
    expect(() => encodeLegLimitAction({ type: 'max', leg: 10 })).toThrow(RangeError);
    expect(() => encodeLegLimitAction({ type: 'profit', leg: 0.5 })).toThrow(RangeError);
  });
});

describe('bk: /books value buttons', () => {
  it('round-trips edit and each value option', () => {
    expect(decodeBooksAction(encodeBooksAction({ type: 'edit', bookmakerId: 999_999_999 }))).toEqual({ type: 'edit', bookmakerId: 999_999_999 });
    for (const option of ['commission', 'max', 'min', 'step'] as const) {
      const data = encodeBooksAction({ type: 'value', bookmakerId: 7, option });
      expect(decodeBooksAction(data)).toEqual({ type: 'value', bookmakerId: 7, option });
    }
    expect(encodeBooksAction({ type: 'value', bookmakerId: 7, option: 'max' })).toBe('bk:v:7:x');
  });

  it('refuses forged forms', () => {
    for (const data of ['bk:e:', 'bk:e:1234567890', 'bk:v:7', 'bk:v:7:', 'bk:v:7:z', 'bk:v:7:xx', 'bk:e:7:x', 'bk:v:a:x', 'bk:v:7:c ']) {
      expect(decodeBooksAction(data), data).toBeUndefined();
    }
  });
});
