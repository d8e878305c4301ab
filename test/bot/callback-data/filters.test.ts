import { describe, expect, it } from 'vitest';
import { decodeFiltersAction, encodeFiltersAction, type FiltersAction, type FiltersActionType } from '../../../src/bot/callback-data/filters.js';
import { SERVICES } from '../../../src/service/services.js';

const TYPES: FiltersActionType[] = ['pause', 'resume', 'edit', 'delete', 'deleteYes', 'deleteNo'];

describe('/filters callback data', () => {
  it('keeps the wire forms lists already sent carry', () => {
    expect(encodeFiltersAction({ type: 'pause', service: 'arbs_prematch' })).toBe('f:p:0');
    expect(encodeFiltersAction({ type: 'resume', service: 'arbs_live' })).toBe('f:r:1');
    expect(encodeFiltersAction({ type: 'edit', service: 'middles_prematch' })).toBe('f:e:2');
    expect(encodeFiltersAction({ type: 'delete', service: 'middles_live' })).toBe('f:d:3');
    expect(encodeFiltersAction({ type: 'deleteYes', service: 'valuebets_prematch' })).toBe('f:dy:4');
    expect(encodeFiltersAction({ type: 'deleteNo', service: 'valuebets_live' })).toBe('f:dn:5');
  });

  it('round trips every action for every service', () => {
    for (const service of SERVICES) {
      for (const type of TYPES) {
        const action: FiltersAction = { type, service };
        expect(decodeFiltersAction(encodeFiltersAction(action))).toEqual(action);
      }
    }
  });

  it('refuses forged and oversized data', () => {
    const forged: unknown[] = [
      '', 'f:', 'f:p', 'f:p:', 'f:p:6', 'f:p:9', 'f:p:01', 'f:p:-1', 'f:q:0', 'f:pp:0', 'f:dx:0', 'f:e:0 ', ' f:e:0', 'F:p:0',
      'f:p:0:', 'f:p:0\n', 'f:constructor:0', 'f:__proto__:0', 'fg:n', 'cv:done', `f:p:${'0'.repeat(70)}`, null, undefined, 0, ['f:p:0'],
    ];
    for (const data of forged) expect(decodeFiltersAction(data), JSON.stringify(data)).toBeUndefined();
  });
});
