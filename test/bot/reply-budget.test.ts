/** Command replies share the outbox's per-chat budget: a 429 delays a reply, never fails it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALICE, createHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe('a command reply under a 429', () => {
  it('waits out a long retry_after and then answers (not "Something went wrong"), with no request to the chat meanwhile', async () => {
    h = await createHarness({ outbox: true });
    // Longer than auto-retry would ever wait: without the gate the handler fails at once.
    h.fake.failNext({ method: 'sendMessage', chatId: ALICE.id, count: 1, code: 429, retryAfter: 45 });
    let done = false;
    const handled = h.say(ALICE, '/start').then(() => (done = true));
    const toAlice = () => h.fake.calls().filter((c) => Number(c.payload.chat_id) === ALICE.id);
    // Once the bot has read the 429 (not merely once the server sent it): its pause starts then.
    await vi.waitFor(() => expect(h.outbox?.stats.rateLimited).toBe(1));
    void h.outbox?.send(ALICE.id, 'an alert queued during the pause', { digestLine: 'alert' });
    for (let s = 0; s < 44; s++) await h.clock.advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 44 s on: nothing more reached the chat, the reply is still waiting.
    expect(toAlice()).toHaveLength(1);
    expect(done).toBe(false);
    await h.clock.advance(1000);
    await handled;
    await h.clock.advance(1000);
    await vi.waitFor(() => expect(h.sent(ALICE.id)).toHaveLength(2));
    const [reply, alert] = h.sent(ALICE.id);
    expect(reply?.text).toContain('Betting opportunity alerts');
    expect(alert?.text).toBe('an alert queued during the pause');
    expect(h.fake.messages(ALICE.id).some((m) => m.text.includes('went wrong'))).toBe(false);
    expect(toAlice().map((c) => c.error_code ?? 'ok')).toEqual([429, 'ok', 'ok']);
  });

  it('inside a conversation too: the settings menu waits out a 429 longer than the conversation retry would', async () => {
    h = await createHarness({ outbox: true });
    h.fake.failNext({ method: 'sendMessage', chatId: ALICE.id, count: 1, code: 429, retryAfter: 12 });
    let done = false;
    const handled = h.say(ALICE, '/settings').then(() => (done = true));
    // Once the bot has read the 429 (not merely once the server sent it): its pause starts then.
    await vi.waitFor(() => expect(h.outbox?.stats.rateLimited).toBe(1));
    for (let s = 0; s < 11; s++) await h.clock.advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    await h.clock.advance(1000);
    await handled;
    expect(h.last(ALICE.id).text).toContain('Settings');
    expect(h.fake.messages(ALICE.id).some((m) => m.text.includes('went wrong'))).toBe(false);
  });
});
