/** Abandoned flows are dropped on a timer of the injected clock, a bounded number per tick; a flow in use is kept. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CONVERSATION_SWEEP_EVERY_MS, createConversationStore } from '../../src/bot/conversation-store.js';
import { FLOW_TIMEOUT_MS } from '../../src/bot/conversations/prompt.js';
import { ALICE, BORIS, CAROL, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.connect(ALICE);
  await h.connect(BORIS);
});
afterEach(async () => {
  await h.close();
});

describe('abandoned conversations', () => {
  it('a flow nobody finishes is dropped after the flow timeout; one in use stays', async () => {
    await h.say(ALICE, '/filter');
    await h.say(BORIS, '/settings');
    expect(h.conversations.size).toBe(2);

    // Boris keeps answering; Alice never comes back.
    await h.clock.advance(FLOW_TIMEOUT_MS - 60_000);
    await h.say(BORIS, 'hello');
    expect(h.conversations.size).toBe(2);
    await h.clock.advance(60_000 + CONVERSATION_SWEEP_EVERY_MS);
    expect(h.conversations.size).toBe(1);

    // Alice's next message is an ordinary one, and a new /filter starts afresh.
    await h.say(ALICE, 'arbs_live');
    expect(h.last(ALICE.id).text).toContain('not sure what you mean');
    await h.say(ALICE, '/filter');
    expect(h.last(ALICE.id).text).toContain('New filter');
    expect(h.conversations.size).toBe(2);

    await h.clock.advance(FLOW_TIMEOUT_MS + CONVERSATION_SWEEP_EVERY_MS);
    expect(h.conversations.size).toBe(0);
  });

  it('a finished flow leaves nothing behind', async () => {
    await h.say(CAROL, '/start');
    await h.say(ALICE, '/filter');
    await h.say(ALICE, '/cancel');
    expect(h.conversations.size).toBe(0);
  });
});

describe('the sweep', () => {
  const state = { version: [0, 0] as [0, number], state: { filter: [] } };

  it('drops at most its bound per tick, oldest first, on the clock it was given', async () => {
    const clock = new ManualClock();
    const store = createConversationStore({ clock, maxPerSweep: 3 });
    for (let i = 0; i < 5; i++) await store.adapter.write(`old${i}`, state);
    await clock.advance(FLOW_TIMEOUT_MS / 2);
    await store.adapter.write('fresh', state);
    // Written again: no longer among the oldest.
    await store.adapter.write('old0', state);
    await clock.advance(FLOW_TIMEOUT_MS / 2 + 1);
    store.start();
    await clock.advance(CONVERSATION_SWEEP_EVERY_MS);
    expect(store.size).toBe(3);
    expect(await store.adapter.read('old1')).toBeUndefined();
    expect(await store.adapter.read('old4')).toBeDefined();
    await clock.advance(CONVERSATION_SWEEP_EVERY_MS);
    expect(store.size).toBe(2);
    expect(await store.adapter.read('old0')).toBeDefined();
    expect(await store.adapter.read('fresh')).toBeDefined();
    store.stop();
    expect(clock.pending).toBe(0);
  });
});
