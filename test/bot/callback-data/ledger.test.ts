import { describe, expect, it } from 'vitest';
import { decodeLedgerAction, encodeLedgerAction, type LedgerAction } from '../../../src/bot/callback-data/index.js';
import { decodeAlertAction, encodeAlertAction } from '../../../src/alerts/callbacks.js';

describe('ledger callback data', () => {
  it('round-trips every form', () => {
    const actions: LedgerAction[] = [
      { type: 'keep', positionId: 'a1', leg: 0 },
      { type: 'refuse', positionId: 'zz', leg: 15 },
      { type: 'edit', positionId: '1', leg: 2 },
      { type: 'giveUp', positionId: 'k9' },
      { type: 'settle', positionId: '3', result: 'hw' },
      { type: 'settle', positionId: '3', result: 'o12' },
      { type: 'settle', positionId: '3', result: 'h' },
      { type: 'page', page: 40 },
      { type: 'devig', method: 'shin' },
      { type: 'devig', method: 'power' },
    ];
    for (const a of actions) expect(decodeLedgerAction(encodeLedgerAction(a))).toEqual(a);
  });

  it('refuses forged and malformed data', () => {
    for (const bad of ['l:', 'l:k:1', 'l:k:1:16', 'l:k:A:1', 'l:s:1:o16', 'l:s:1:win', 'l:s:1:w:', 'l:p:-1', 'l:d:x', 'l:d:', 'l:p:99999', 'l:g:', 'l:g:12345678901', 'l:r:1:1 ', 'l:x:1', 'l:s:../1:w', `l:p:${'1'.repeat(70)}`, 42, null])
      expect(decodeLedgerAction(bad), String(bad)).toBeUndefined();
  });

  it('the alert’s placed buttons round-trip and refuse junk', () => {
    const placed = encodeAlertAction({ type: 'placed', service: 'arbs_live', itemId: 'it:1' })!;
    expect(decodeAlertAction(placed)).toEqual({ type: 'placed', service: 'arbs_live', itemId: 'it:1' });
    const diff = encodeAlertAction({ type: 'placedDifferently', service: 'valuebets_prematch', itemId: 'x' })!;
    expect(decodeAlertAction(diff)).toEqual({ type: 'placedDifferently', service: 'valuebets_prematch', itemId: 'x' });
    for (const bad of ['a:pl:0', 'a:pl:0:', 'a:pl:9:x', 'a:pd:0:a b', 'a:pl:x:1']) expect(decodeAlertAction(bad), bad).toBeUndefined();
  });
});
