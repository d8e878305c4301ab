import { describe, expect, it } from 'vitest';
import { decodeFlowButton, encodeFlowButton, MAX_CHOICES, MAX_PAGES, type FlowButton } from '../../../src/bot/callback-data/flow.js';
import { SETTING_FIELDS } from '../../../src/bot/actions/settings.js';
import { CALLBACK_DATA_MAX_BYTES } from '../../../src/lib/callback-data.js';
import { SERVICES } from '../../../src/service/services.js';

describe('guided flow callback data', () => {
  it('keeps the wire forms prompts already sent carry', () => {
    expect(encodeFlowButton({ type: 'service', service: 'valuebets_live' })).toBe('cv:s:5');
    expect(encodeFlowButton({ type: 'choice', index: 1 })).toBe('cv:v:1');
    expect(encodeFlowButton({ type: 'field', field: 'bankroll' })).toBe('cv:f:bankroll');
    expect(encodeFlowButton({ type: 'toggle', id: 42 })).toBe('cv:t:42');
    expect(encodeFlowButton({ type: 'page', page: 3 })).toBe('cv:p:3');
    expect(['noop', 'all', 'done', 'clear', 'save', 'cancel'].map((type) => encodeFlowButton({ type } as FlowButton))).toEqual([
      'cv:nop', 'cv:all', 'cv:done', 'cv:clr', 'cv:save', 'cv:cancel',
    ]);
  });

  it('round trips every form, the largest numbers within 64 bytes', () => {
    const buttons: FlowButton[] = [
      ...SERVICES.map((service): FlowButton => ({ type: 'service', service })),
      ...SETTING_FIELDS.map((field): FlowButton => ({ type: 'field', field })),
      { type: 'choice', index: 0 },
      { type: 'choice', index: MAX_CHOICES - 1 },
      { type: 'toggle', id: 0 },
      { type: 'toggle', id: Number.MAX_SAFE_INTEGER - 1 },
      { type: 'page', page: 0 },
      { type: 'page', page: MAX_PAGES - 1 },
      { type: 'noop' }, { type: 'all' }, { type: 'done' }, { type: 'clear' }, { type: 'save' }, { type: 'cancel' },
    ];
    for (const button of buttons) {
      const data = encodeFlowButton(button);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
      expect(decodeFlowButton(data), data).toEqual(button);
    }
  });

  it('will not encode a number it could not read back', () => {
    expect(() => encodeFlowButton({ type: 'choice', index: MAX_CHOICES })).toThrow(RangeError);
    expect(() => encodeFlowButton({ type: 'choice', index: -1 })).toThrow(RangeError);
    expect(() => encodeFlowButton({ type: 'toggle', id: 1.5 })).toThrow(RangeError);
    expect(() => encodeFlowButton({ type: 'toggle', id: 1e20 })).toThrow(RangeError);
    expect(() => encodeFlowButton({ type: 'page', page: MAX_PAGES })).toThrow(RangeError);
  });

  it('refuses forged and oversized data, Object.prototype\'s names included', () => {
    const forged: unknown[] = [
      '', 'cv:', 'cv', 'cv:x', 'cv:s:', 'cv:s:6', 'cv:s:7', 'cv:s:01', 'cv:v:', 'cv:v:99x', `cv:v:${MAX_CHOICES}`, 'cv:v:-1', 'cv:v:01',
      'cv:v:1e1', 'cv:f:', 'cv:f:constructor', 'cv:f:__proto__', 'cv:f:toString', 'cv:f:LANG', 'cv:t:', 'cv:t:1e9', 'cv:t:-5', 'cv:t:0x10',
      'cv:t:1.5', 'cv:t:9007199254740993', 'cv:t:99999999999999999', 'cv:p:-5', `cv:p:${MAX_PAGES}`, 'cv:p: 1', 'cv:done:', 'cv:done ',
      'cv:DONE', 'cv:nop:1', 'cv:constructor', 'cv:__proto__', 'f:done', 'cv:t:1\n', `cv:t:${'1'.repeat(70)}`, null, undefined, 5, { type: 'done' },
    ];
    for (const data of forged) expect(decodeFlowButton(data), JSON.stringify(data)).toBeUndefined();
  });
});
