/**
 * The alert queue's wire format: what a worker's RemoteOutbox writes is what the front's consumer
 * accepts, field for field (a field the wire forgot would be dropped on the way, or the whole job
 * refused by the strict schema).
 */
import { describe, expect, it } from 'vitest';
import { alertJobSchema, editJob, sendJob } from '../../src/cluster/alert-jobs.js';

describe('the alert queue’s wire format', () => {
  it('carries every send option across, a late alert’s mark included, and leaves out what is unset', () => {
    const payload = sendJob(501, '<b>Arb</b>', {
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
    const parsed = alertJobSchema.parse(JSON.parse(JSON.stringify(payload)));
    expect(parsed).toEqual(payload);
    expect(parsed.type === 'send' && parsed.opts.late).toBe(true);
    // How it sounds and when its item was read reach the front, which sends it.
    expect(parsed.type === 'send' && [parsed.opts.silent, parsed.opts.foundAt]).toEqual([true, 1_767_436_150_000]);
    const reAlert = sendJob(501, '▲ Arb now +4.10% (was +2.05%)', { kind: 'info', replyTo: 77, idempotencyKey: 'k2' });
    expect(alertJobSchema.parse(JSON.parse(JSON.stringify(reAlert)))).toEqual(reAlert);
    expect(reAlert.type === 'send' && reAlert.opts.replyTo).toBe(77);
    expect(sendJob(501, 'fresh', { kind: 'alert', late: undefined }).opts).toEqual({ kind: 'alert' });
    const edit = editJob(501, 7, 'gone', { gone: true, idempotencyKey: 'k' });
    expect(alertJobSchema.parse(JSON.parse(JSON.stringify(edit)))).toEqual(edit);
  });

  it('refuses a payload with a field it does not know', () => {
    const forged = { ...sendJob(501, 'x', {}), opts: { urgent: true } };
    expect(alertJobSchema.safeParse(forged).success).toBe(false);
  });
});
