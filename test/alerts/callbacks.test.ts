import { describe, expect, it } from 'vitest';
import {
  ALERT_CALLBACK_PATTERN,
  decodeAlertAction,
  encodeAlertAction,
  type AlertAction,
} from '../../src/alerts/callbacks.js';
import { CALLBACK_DATA_MAX_BYTES } from '../../src/lib/callback-data.js';
import { SERVICES } from '../../src/service/services.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('alert callback data', () => {
  it('encodes the four exact formats with the service index', () => {
    expect(encodeAlertAction({ type: 'event', service: 'arbs_prematch', eventId: 'e1' })).toBe('a:ev:0:e1');
    expect(encodeAlertAction({ type: 'stakes', service: 'middles_live', itemId: 'a1' })).toBe('a:stk:3:a1');
    expect(encodeAlertAction({ type: 'mute', service: 'valuebets_live', eventId: '987654' })).toBe('a:mute:5:987654');
    expect(encodeAlertAction({ type: 'snooze', service: 'arbs_live' })).toBe('a:snz:1');
  });

  it('round trips every action for every service, each within 64 bytes', () => {
    for (const service of SERVICES) {
      const actions: AlertAction[] = [
        { type: 'event', service, eventId: 'ev-123_ABC.9' },
        { type: 'stakes', service, itemId: 'NDk5ODM3NjQ2fDE2Nzc0MjE4fDE=' },
        { type: 'mute', service, eventId: 'x' },
        { type: 'snooze', service },
      ];
      for (const action of actions) {
        const data = encodeAlertAction(action);
        expect(data).toBeDefined();
        expect(bytes(data ?? '')).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
        expect(data).toMatch(ALERT_CALLBACK_PATTERN);
        expect(decodeAlertAction(data)).toEqual(action);
      }
    }
  });

  it('keeps ids that contain colons intact', () => {
    const action: AlertAction = { type: 'event', service: 'arbs_live', eventId: 'bk:7:e:42' };
    expect(decodeAlertAction(encodeAlertAction(action))).toEqual(action);
  });

  it('returns undefined when the data would exceed 64 bytes (the button is then left out)', () => {
    // "a:ev:0:" is 7 bytes: 57 id characters fit exactly, 58 do not
    const fits = 'x'.repeat(57);
    expect(encodeAlertAction({ type: 'event', service: 'arbs_prematch', eventId: fits })).toHaveLength(64);
    expect(encodeAlertAction({ type: 'event', service: 'arbs_prematch', eventId: `${fits}y` })).toBeUndefined();
    expect(encodeAlertAction({ type: 'stakes', service: 'arbs_prematch', itemId: 'i'.repeat(200) })).toBeUndefined();
  });

  it('refuses ids that are empty, have spaces or are not ASCII', () => {
    expect(encodeAlertAction({ type: 'event', service: 'arbs_prematch', eventId: '' })).toBeUndefined();
    expect(encodeAlertAction({ type: 'mute', service: 'arbs_prematch', eventId: 'a b' })).toBeUndefined();
    expect(encodeAlertAction({ type: 'stakes', service: 'arbs_prematch', itemId: 'матч' })).toBeUndefined();
  });

  it('rejects garbage and near misses', () => {
    const garbage: unknown[] = [
      '',
      'a:',
      'a:ev',
      'a:ev:0',
      'a:ev:0:',
      'a:ev:6:e1',
      'a:ev:9:e1',
      'a:ev:01:e1',
      'a:ev:-1:e1',
      'a:ev:x:e1',
      'a:snz:0:extra',
      'a:snz:',
      'a:snz',
      'a:stk:0:',
      'a:xx:0:e1',
      'A:ev:0:e1',
      'b:ev:0:e1',
      ' a:ev:0:e1',
      'a:ev:0:e 1',
      'a:ev:0:e1\n',
      'a:ev:0:é',
      `a:ev:0:${'x'.repeat(58)}`,
      'set:lang:en',
      null,
      undefined,
      42,
      { type: 'event' },
    ];
    for (const data of garbage) expect(decodeAlertAction(data), JSON.stringify(data)).toBeUndefined();
  });
});
