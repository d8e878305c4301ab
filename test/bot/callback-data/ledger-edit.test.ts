/** The `le:` codec: every form round-trips within 64 bytes; anything else is refused; leg codes map to results and back. */
import { describe, expect, it } from 'vitest';
import { decodeLedgerAction, decodeLedgerEdit, encodeLedgerAction, encodeLedgerEdit, legCode, legOutcome, type LedgerEditAction } from '../../../src/bot/callback-data/index.js';

describe('ledger-edit callback data', () => {
  it('round-trips every form within the 64 bytes', () => {
    const actions: LedgerEditAction[] = [
      { type: 'edit', positionId: 'zzzzzzzzzz' },
      { type: 'back', positionId: '1' },
      { type: 'results', positionId: '1' },
      { type: 'reopen', positionId: 'a' },
      { type: 'delete', positionId: '9' },
      { type: 'deleteYes', positionId: '9' },
      { type: 'deleteNo', positionId: '9' },
      { type: 'legValues', positionId: '2', leg: 15 },
      { type: 'legResult', positionId: '2', leg: 3, code: 'q' },
      { type: 'legResult', positionId: '2', leg: 0, code: '4' },
      { type: 'undo', positionId: 'zzzzzzzzzz', n: 999_999_999 },
      { type: 'page', page: 9999, period: '2026-11' },
      { type: 'page', page: 0, period: '30d' },
      { type: 'side', lay: true },
    ];
    for (const a of actions) {
      const data = encodeLedgerEdit(a);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(decodeLedgerEdit(data)).toEqual(a);
    }
  });

  it('refuses forged and malformed data', () => {
    for (const bad of ['le:', 'le:e:', 'le:e:A', 'le:x:1', 'le:v:1:16', 'le:t:1:0:x', 'le:t:1:0:1', 'le:u:1:', 'le:u:1:-1', 'le:p:1:yesterday', 'le:s:x', 'le:y:1;', `le:u:1:${'9'.repeat(10)}`, 42, null])
      expect(decodeLedgerEdit(bad), String(bad)).toBeUndefined();
  });

  it('settles each leg with its own result (l:s:…:m…) and maps codes to results and back', () => {
    expect(decodeLedgerAction(encodeLedgerAction({ type: 'settle', positionId: '7', result: 'mq-h' }))).toEqual({ type: 'settle', positionId: '7', result: 'mq-h' });
    expect(decodeLedgerAction('l:s:7:mx')).toBeUndefined();
    expect(decodeLedgerAction(`l:s:7:m${'w'.repeat(17)}`)).toBeUndefined();
    expect(legOutcome('3')).toEqual({ result: 'dead_heat', deadHeat: 1 / 3 });
    expect(legOutcome('-')).toBeNull();
    expect(legOutcome('1')).toBeUndefined();
    for (const code of ['w', 'h', 'v', 'q', 'l', '2', '9', '-']) expect(legCode(legOutcome(code)!)).toBe(code);
    // More places than one: 3 tied for 2 places is ⅔, 4 tied for 3 places ¾; each code round-trips.
    expect(legOutcome('a')).toEqual({ result: 'dead_heat', deadHeat: 2 / 3 });
    expect(legOutcome('b')).toEqual({ result: 'dead_heat', deadHeat: 3 / 4 });
    for (const code of ['a', 'b', 'c', 'd', 'e']) expect(legCode(legOutcome(code)!)).toBe(code);
    expect(legOutcome('f')).toBeUndefined();
  });
});
