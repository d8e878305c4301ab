/**
 * `beforeFirstSend`: a message's question, asked in its turn right before its first call (the
 * cluster's front claims an alert there). Embedded callers pass none and see no change.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { LAST_TOKEN_GUARD_MS as G } from '../../src/outbox/chat-bucket.js';
import { Outbox } from '../../src/outbox/outbox.js';
import type { OutboxOptions } from '../../src/outbox/options.js';
import { run, ScriptedApi, telegramError, times } from './helpers.js';
import { stopAfterEach } from '../support/teardown.js';

const stopAfter = stopAfterEach();

function setup(options: Partial<OutboxOptions> = {}) {
  const clock = new ManualClock();
  const api = new ScriptedApi(clock);
  const outbox = stopAfter(new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, ...options }));
  outbox.start();
  return { clock, api, outbox, t0: clock.now() };
}

/** A question that records when it was asked and how many calls Telegram had seen by then. */
function question(clock: ManualClock, api: ScriptedApi, answer: boolean | Error = true) {
  const asked: { at: number; callsBefore: number }[] = [];
  const ask = async () => {
    asked.push({ at: clock.now(), callsBefore: api.calls.length });
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { ask, asked };
}

describe('beforeFirstSend', () => {
  it('is asked in the message’s turn, right before its call, and never while it waits', async () => {
    const { clock, api, outbox, t0 } = setup();
    for (let i = 0; i < 3; i++) void outbox.send(1, `burst ${i}`);
    const q = question(clock, api);
    const id = outbox.send(1, 'waits a second', { digestLine: 'waits' }, q.ask);
    await run(clock, 999 + G);
    expect(q.asked).toEqual([]);
    await run(clock, 1);
    expect(q.asked).toEqual([{ at: t0 + 1000 + G, callsBefore: 3 }]);
    expect(await id).toBe(4);
    expect(api.sent(1).at(-1)).toMatchObject({ text: 'waits a second', at: t0 + 1000 + G });
  });

  it('told no, sends nothing, resolves undefined and spends no token; a question that throws counts as no', async () => {
    const { clock, api, outbox, t0 } = setup();
    const no = question(clock, api, false);
    const broken = question(clock, api, new Error('Redis is away'));
    const results = [outbox.send(2, 'claimed elsewhere', {}, no.ask), outbox.send(2, 'no claim possible', {}, broken.ask)];
    for (let i = 0; i < 3; i++) results.push(outbox.send(2, `next ${i}`));
    await run(clock, G);
    expect(await Promise.all(results)).toEqual([undefined, undefined, 1, 2, 3]);
    // The chat's whole burst was still there for the three that went (the last after its guard).
    expect(api.sent(2).map((c) => [c.text, c.at - t0])).toEqual([
      ['next 0', 0],
      ['next 1', 0],
      ['next 2', G],
    ]);
    expect([no.asked.length, broken.asked.length]).toEqual([1, 1]);
    expect(outbox.stats.dropped).toBe(2);
  });

  it('is asked once: a retry after a 5xx or a 429 goes on with the same yes', async () => {
    const { clock, api, outbox } = setup();
    api.failWhen(times(1, () => true, () => telegramError(500, 'Internal Server Error')));
    api.failWhen(times(1, () => true, () => telegramError(429, 'Too Many Requests: retry after 2', 2)));
    const q = question(clock, api);
    const id = outbox.send(3, 'retried', {}, q.ask);
    await run(clock, 10_000);
    expect(await id).toBe(1);
    expect(q.asked).toHaveLength(1);
    expect(api.calls.map((c) => c.ok)).toEqual([false, false, true]);
  });

  it('folded into a digest, an alert is asked in the digest’s turn; those told no are left out, and all settle with the digest', async () => {
    const { clock, api, outbox } = setup({ digestThreshold: 2 });
    const yes = question(clock, api, true);
    const no = question(clock, api, false);
    const settled: string[] = [];
    // The chat's burst is spent first, so the alerts wait (and fold) before their turn comes.
    for (let i = 0; i < 3; i++) void outbox.send(4, `notice ${i}`);
    const alerts = ['a', 'b', 'c', 'd', 'e'].map((n) =>
      outbox.send(4, `alert ${n}`, { digestLine: `line ${n}` }, n === 'c' ? no.ask : yes.ask).then((id) => {
        settled.push(n);
        return id;
      }),
    );
    await run(clock, 999 + G);
    // b–e wait in one digest behind 'a': nobody asked while the chat's turn has not come.
    expect(yes.asked.length + no.asked.length).toBe(0);
    await run(clock, 1);
    expect(api.sent(4).map((c) => c.text).at(-1)).toBe('alert a');
    expect(yes.asked.length).toBe(1);
    expect(settled).toEqual(['a']);
    await run(clock, 1000);
    expect(yes.asked.length + no.asked.length).toBe(5);
    expect(await Promise.all(alerts)).toEqual([4, undefined, undefined, undefined, undefined]);
    const digest = api.sent(4)[4]?.text ?? '';
    expect(digest).toContain('line b');
    expect(digest).not.toContain('line c');
    expect(digest.split('\n')).toEqual(['<b>+3 more:</b>', 'line b', 'line d', 'line e']);
    expect(settled.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('an alert held for quiet hours is asked when it is held, and left out of the summary when told no', async () => {
    const { clock, api, outbox, t0 } = setup();
    const yes = question(clock, api, true);
    const no = question(clock, api, false);
    const until = t0 + 60_000;
    const held = [
      outbox.send(5, 'held 1', { digestLine: '• held 1', holdUntil: until, lang: 'en' }, yes.ask),
      outbox.send(5, 'held 2', { digestLine: '• held 2', holdUntil: until, lang: 'en' }, no.ask),
    ];
    expect(await Promise.all(held)).toEqual([undefined, undefined]);
    expect([yes.asked.length, no.asked.length]).toEqual([1, 1]);
    await run(clock, 60_000);
    expect(api.sent(5).map((c) => c.text)).toEqual(['🌙 <b>While quiet hours were on: 1 alert</b>\n1. • held 1']);
  });
});
