/**
 * Bounded state per user (issue 10, item 7): forged mute presses cannot grow the muted-event list
 * past its cap, the newest mutes are the ones kept, and the real mute still works.
 */
import { describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { MAX_FLOW_UPDATES, MAX_INVALID_ANSWERS } from '../../src/bot/conversations/prompt.js';
import { MAX_MUTED_EVENTS } from '../../src/store/muted-events.js';
import { ALICE, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));

describe('muted events', () => {
  it(`keeps at most ${MAX_MUTED_EVENTS} however many forged mute presses arrive, the latest ones`, async () => {
    const mute = (eventId: string) => encodeAlertAction({ type: 'mute', service: 'arbs_prematch', eventId })!;
    const alert = await h.plant(ALICE.id, 'alert', [['Mute', mute('ev0')]]);
    // A client may send any callback data under a real alert: the press carries a made-up event id.
    const forged = async (eventId: string) => {
      const update = h.fake.pressButton(ALICE, alert, mute('ev0'));
      update.callback_query!.data = mute(eventId);
      await h.handle(update);
    };
    for (let i = 0; i < MAX_MUTED_EVENTS + 20; i++) {
      await forged(`forged-${i}`);
      await h.clock.advance(1_000);
    }
    const muted = h.store.getUser(ALICE.id)!.mutedEvents;
    expect(Object.keys(muted)).toHaveLength(MAX_MUTED_EVENTS);
    expect(Object.hasOwn(muted, `forged-${MAX_MUTED_EVENTS + 19}`)).toBe(true);
    expect(Object.hasOwn(muted, 'forged-0')).toBe(false);
    expect(h.callbackText()).toContain('Muted for 24 h');
  });
});

describe('conversation length', () => {
  const prompt = () => h.last(ALICE.id);
  const press = async (label: string) => {
    const message = prompt();
    await h.press(ALICE, message, h.button(message, label));
  };

  it(`ends a question after ${MAX_INVALID_ANSWERS} answers it could not use, saying so; nothing was saved`, async () => {
    const writes = h.client.callsOf('writeFilter').length;
    await h.say(ALICE, '/filter');
    await press('Arbs · prematch');
    await press('Done');
    await press('Done');
    expect(prompt().text).toContain('Profit, %');
    for (let i = 1; i < MAX_INVALID_ANSWERS; i++) {
      await h.say(ALICE, `bad-${i}`);
      expect(prompt().text).toContain(`“bad-${i}” is not a range`);
    }
    await h.say(ALICE, 'bad-last');
    expect(prompt().text).toContain(`That was ${MAX_INVALID_ANSWERS} answers I could not use, so I closed this step`);
    // The conversation is over: the next text is not taken as its answer.
    await h.say(ALICE, '1.5-10');
    expect(prompt().text).not.toContain('Odds of every leg');
    expect(h.client.callsOf('writeFilter')).toHaveLength(writes);
  });

  it(`ends a flow after ${MAX_FLOW_UPDATES} updates, even when each one is a valid press`, async () => {
    const writes = h.client.callsOf('writeFilter').length;
    await h.say(ALICE, '/filter');
    await press('Arbs · prematch');
    expect(prompt().text).toContain('sports');
    const sports = prompt();
    const football = h.button(sports, 'Football');
    for (let i = 0; i < MAX_FLOW_UPDATES; i++) await h.press(ALICE, sports, football);
    expect(prompt().text).toContain('This step went on too long, so I closed it');
    expect(h.client.callsOf('writeFilter')).toHaveLength(writes);
  });
});
