/**
 * Bounded state per user (issue 10, item 7): forged mute presses cannot grow the muted-event list
 * past its cap, the newest mutes are the ones kept, and the real mute still works.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { MAX_MUTED_EVENTS } from '../../src/store/muted-events.js';
import { ALICE, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.connect();
  await h.say(ALICE, '/filter arbs_prematch');
});
afterEach(async () => {
  await h.close();
});

describe('muted events', () => {
  it(`keeps at most ${MAX_MUTED_EVENTS} however many forged mute presses arrive, the latest ones`, async () => {
    const mute = (eventId: string) => encodeAlertAction({ type: 'mute', service: 'arbs_prematch', eventId });
    const alert = await h.plant(ALICE.id, 'alert', [['Mute', mute('ev0')]]);
    // A client may send any callback data under a real alert: the press carries a made-up event id.
    const forged = async (eventId: string) => {
      const update = h.fake.pressButton(ALICE, alert, mute('ev0'));
      update.callback_query!.data = mute(eventId);
      await h.handle(update);
    };
    for (let i = 0; i < MAX_MUTED_EVENTS + 150; i++) {
      await forged(`forged-${i}`);
      await h.clock.advance(1_000);
    }
    const muted = h.store.getUser(ALICE.id)!.mutedEvents;
    expect(Object.keys(muted)).toHaveLength(MAX_MUTED_EVENTS);
    expect(Object.hasOwn(muted, `forged-${MAX_MUTED_EVENTS + 149}`)).toBe(true);
    expect(Object.hasOwn(muted, 'forged-0')).toBe(false);
    expect(h.callbackText()).toContain('muted for 24 h');
  });
});
