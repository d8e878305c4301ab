import { describe, expect, it } from 'vitest';
import {
  CALLBACK_PREFIXES,
  callbackKind,
  decodeAlertAction,
  decodeBooksAction,
  decodeFiltersAction,
  decodeFlowButton,
  decodeForgetAnswer,
  decodeLegLimitAction,
  decodeMuteAction,
  decodeLedgerAction,
  decodeLedgerEdit,
  encodeAlertAction,
  encodeBooksAction,
  encodeFiltersAction,
  encodeFlowButton,
  encodeForgetAnswer,
  encodeLegLimitAction,
  encodeMuteAction,
  encodeLedgerAction,
  encodeLedgerEdit,
  kindPattern,
  prefixCollisions,
  type CallbackKind,
} from '../../../src/bot/callback-data/index.js';

/** One sample of each kind's data, made by its own encoder. */
const samples: Record<CallbackKind, string[]> = {
  alert: [
    encodeAlertAction({ type: 'event', service: 'arbs_live', eventId: 'e1' })!,
    encodeAlertAction({ type: 'snooze', service: 'arbs_prematch' })!,
  ],
  filters: [encodeFiltersAction({ type: 'pause', service: 'arbs_live' }), encodeFiltersAction({ type: 'deleteNo', service: 'valuebets_live' })],
  forget: [encodeForgetAnswer({ type: 'no' }), encodeForgetAnswer({ type: 'yes', issuedAt: 1_700_000_000_000 })],
  flow: [encodeFlowButton({ type: 'field', field: 'lang' }), encodeFlowButton({ type: 'done' }), encodeFlowButton({ type: 'toggle', id: 7 })],
  books: [
    encodeBooksAction({ type: 'status', bookmakerId: 31, status: 'closed' }),
    encodeBooksAction({ type: 'reset', bookmakerId: 7 }),
    encodeBooksAction({ type: 'edit', bookmakerId: 7 }),
    encodeBooksAction({ type: 'value', bookmakerId: 7, option: 'step' }),
  ],
  legLimit: [encodeLegLimitAction({ type: 'max', leg: 0 }), encodeLegLimitAction({ type: 'profit', leg: 2 }), encodeLegLimitAction({ type: 'equal' })],
  mutes: [
    encodeMuteAction({ type: 'event', duration: 'hour', service: 'arbs_live', eventId: 'e1' })!,
    encodeMuteAction({ type: 'league', duration: 'forever', service: 'middles_prematch', itemId: 'a1' })!,
    encodeMuteAction({ type: 'bookmaker', duration: 'day', bookmakerId: 7 })!,
    encodeMuteAction({ type: 'lift', tag: '0a1b2c3d' })!,
    encodeMuteAction({ type: 'wake', service: 'valuebets_live' })!,
  ],
  ledger: [encodeLedgerAction({ type: 'settle', positionId: '1z', result: 'o1' }), encodeLedgerAction({ type: 'page', page: 3 })],
  ledgerEdit: [encodeLedgerEdit({ type: 'undo', positionId: '1z', n: 3 }), encodeLedgerEdit({ type: 'page', page: 2, period: '2026-11' })],
};

const decoders: Record<CallbackKind, (data: unknown) => unknown> = {
  alert: decodeAlertAction,
  filters: decodeFiltersAction,
  forget: decodeForgetAnswer,
  flow: decodeFlowButton,
  books: decodeBooksAction,
  mutes: decodeMuteAction,
  ledger: decodeLedgerAction,
  ledgerEdit: decodeLedgerEdit,
  legLimit: decodeLegLimitAction,
};

describe('callback data registry', () => {
  it('holds prefixes that never collide', () => {
    expect(prefixCollisions(CALLBACK_PREFIXES)).toEqual([]);
    expect(new Set(Object.values(CALLBACK_PREFIXES)).size).toBe(Object.keys(CALLBACK_PREFIXES).length);
  });

  it('finds a collision: a shared prefix, one starting another, or one without its closing colon', () => {
    expect(prefixCollisions({ a: 'x:', b: 'x:' })).toEqual([['a', 'b']]);
    expect(prefixCollisions({ a: 'f:', b: 'f:x:' })).toContainEqual(['a', 'b']);
    expect(prefixCollisions({ a: 'f', b: 'fg:' })).toContainEqual(['a', 'b']);
    expect(prefixCollisions({ a: 'f', b: 'g:' })).toEqual([['a', 'a']]);
    expect(prefixCollisions({ a: '', b: 'g:' })).toContainEqual(['a', 'a']);
    expect(prefixCollisions({ a: 'f:', b: 'fg:' })).toEqual([]);
  });

  it('routes every encoder\'s data to its own kind, and only its own decoder accepts it', () => {
    for (const kind of Object.keys(samples) as CallbackKind[]) {
      for (const data of samples[kind]) {
        expect(data.startsWith(CALLBACK_PREFIXES[kind]), data).toBe(true);
        expect(callbackKind(data), data).toBe(kind);
        expect(kindPattern(kind).test(data), data).toBe(true);
        for (const other of Object.keys(decoders) as CallbackKind[]) {
          expect(decoders[other](data) !== undefined, `${other} decoding ${data}`).toBe(other === kind);
          if (other !== kind) expect(kindPattern(other).test(data), `${other} pattern on ${data}`).toBe(false);
        }
      }
    }
  });

  it('names no kind for data of none', () => {
    for (const data of [undefined, '', 'x', 'cv', 'F:p:0', ' a:ev:0:e', 'fgx:n', 'set:lang']) expect(callbackKind(data), String(data)).toBeUndefined();
  });
});
