/**
 * The alert stream's wire format: what a worker's RemoteOutbox writes is what the front's consumer
 * accepts, field for field (a field the wire forgot would be dropped on the way, or the whole batch
 * refused by the strict schema).
 */
import { describe, expect, it } from 'vitest';
import { alertBatchSchema, editPayload, sendPayload, WIRE_VERSION, type AlertPayload } from '../../src/cluster/alert-jobs.js';

/** The payload in a batch as it crosses the stream, and back. */
const across = (payload: AlertPayload) => {
  const batch = { v: WIRE_VERSION, from: 'worker-outbox-1', at: 1_767_436_150_000, nonce: 'n'.repeat(22), items: [{ ...payload, i: 7 }] };
  const { i, ...back } = alertBatchSchema.parse(JSON.parse(JSON.stringify(batch))).items[0]!;
  expect(i).toBe(7);
  return back;
};

describe('the alert stream’s wire format', () => {
  it('carries every send option across, a late alert’s mark included, and leaves out what is unset', () => {
    const payload = sendPayload(501, '<b>Arb</b>', {
      kind: 'alert',
      buttons: [[{ text: 'Stakes', callbackData: 'a:stk:1' }]],
      digestLine: '• arb',
      holdUntil: 1_767_436_153_000,
      lang: 'ru',
      late: true,
      idempotencyKey: '501:arbs:a:new:1',
      heldItem: { id: 'a', userId: 501, service: 'arbs_prematch', openData: 'a:op:0:a' },
      silent: true,
      foundAt: 1_767_436_150_000,
    });
    const parsed = across(payload);
    expect(parsed).toEqual(payload);
    expect(parsed.type === 'send' && parsed.opts.late).toBe(true);
    // How it sounds and when its item was read reach the front, which sends it.
    expect(parsed.type === 'send' && [parsed.opts.silent, parsed.opts.foundAt]).toEqual([true, 1_767_436_150_000]);
    const reAlert = sendPayload(501, '▲ Arb now +4.10% (was +2.05%)', { kind: 'info', replyTo: 77, idempotencyKey: 'k2', expiresAt: 1_767_436_180_000 });
    expect(across(reAlert)).toEqual(reAlert);
    // A re-alert's freshness reaches the front, whose outbox drops it once past.
    expect(reAlert.type === 'send' && [reAlert.opts.replyTo, reAlert.opts.expiresAt]).toEqual([77, 1_767_436_180_000]);
    expect(sendPayload(501, 'fresh', { kind: 'alert', late: undefined }).opts).toEqual({ kind: 'alert' });
    const edit = editPayload(501, 7, 'gone', { gone: true, idempotencyKey: 'k' });
    expect(across(edit)).toEqual(edit);
  });

  it('refuses a payload with a field it does not know', () => {
    const batch = (item: unknown, extra: object = {}) => ({ v: WIRE_VERSION, from: 'worker-outbox-1', at: 1, nonce: 'n'.repeat(22), items: [item], ...extra });
    expect(alertBatchSchema.safeParse(batch({ ...sendPayload(501, 'x', {}), i: 1 })).success).toBe(true);
    expect(alertBatchSchema.safeParse(batch({ ...sendPayload(501, 'x', {}), i: 1, opts: { urgent: true } })).success).toBe(false);
    expect(alertBatchSchema.safeParse(batch({ ...sendPayload(501, 'x', {}), i: 1 }, { urgent: true })).success).toBe(false);
  });
});
