/**
 * A guided flow answers its 20th step as fast as its first. The conversations plugin replays a
 * flow from the start on every update; no call it already made may be paced, sent or counted
 * again. Replies go through the outbox's per-chat budget (pacing on) to a Bot API that enforces
 * Telegram's flood control, on a manual clock: the user "thinks" 3 s between steps (the chat's
 * burst is whole again); during a step the clock runs with real time, and a step gets 2 s. A
 * replayed call that waited again for a chat slot would make step N about N seconds slow.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { ALICE, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ outbox: true, floodControl: true });
  await h.connect();
  steps.length = 0;
  callsPerStep.length = 0;
});
afterEach(async () => {
  await h.close();
});

/** A person's pause before the next tap. */
const THINK_MS = 3000;
/** Real time a step may take before it counts as stuck. */
const STEP_DEADLINE_MS = 2000;
/**
 * A flow that paced its replayed calls again grows by about a second (a chat slot) per step, so
 * two checks, neither of which a busy machine's passing hiccup can fail: the last steps' median
 * no slower than the first steps' by more than TREND_SLACK_MS, and no single step slower than the
 * first by half a chat slot (a hiccup under a load of 6 on 2 cores measured 280 ms).
 */
const TREND_SLACK_MS = 150;
const STEP_SLACK_MS = 500;
/** Steps at each end whose median is compared. */
const ENDS = 5;
/** The step of the clock that runs along with real time during a step. */
const TICK_MS = 5;

const steps: number[] = [];
/** Calls Telegram saw during each step. */
const callsPerStep: number[] = [];

async function step(run: () => Promise<void>): Promise<void> {
  await h.clock.advance(THINK_MS);
  const callsBefore = h.fake.calls().length;
  const started = performance.now();
  let finished = false;
  let failure: unknown;
  const work = run().then(
    () => (finished = true),
    (err: unknown) => {
      failure = err;
      finished = true;
    },
  );
  // Within a step the clock runs as real time does, so the step's own waits (a chat slot) pass.
  while (!finished && performance.now() - started < STEP_DEADLINE_MS) {
    await h.clock.advance(TICK_MS);
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  if (!finished) throw new Error(`step ${steps.length + 1} did not answer within ${STEP_DEADLINE_MS} ms`);
  await work;
  if (failure !== undefined) throw failure;
  steps.push(performance.now() - started);
  callsPerStep.push(h.fake.calls().length - callsBefore);
}

const say = (text: string) => step(() => h.say(ALICE, text));
const press = (label: string) =>
  step(async () => {
    // The open question: after a refused value the bot's last message is the refusal.
    const message = h.sent(ALICE.id).findLast((m) => h.labels(m).some((l) => l.includes(label)));
    if (!message) throw new Error(`no button "${label}" in the chat`);
    await h.press(ALICE, message, h.button(message, label));
  });

/** The option buttons of the open picker (not its paging, "All" or "Done" rows, nor options already ticked). */
function options(): string[] {
  const picker = h.sent(ALICE.id).findLast((m) => h.labels(m).some((l) => l.startsWith('Done')));
  return (picker ? h.labels(picker) : []).filter((l) => !/^(‹|›|\d+\/\d+|All|Done|Clear|✅)/.test(l));
}

/** A step makes its own few calls (a toast, closing the old prompt, an answer, the next prompt), never an earlier step's again. */
function expectFewCallsPerStep(): void {
  expect(Math.max(...callsPerStep)).toBeLessThanOrEqual(4);
}

/** Every call Telegram saw, each (method, payload) once: a replayed call would show up twice. */
function expectNoCallTwice(): void {
  const seen = new Map<string, number>();
  for (const call of h.fake.calls()) {
    const key = `${call.method} ${JSON.stringify(call.payload)}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1).map(([key]) => key);
  expect(twice).toEqual([]);
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

function expectFlat(): void {
  const first = steps[0] ?? 0;
  const slow = steps.map((ms, i) => ({ step: i + 1, ms: Math.round(ms) })).filter((s) => s.ms > first + STEP_SLACK_MS);
  expect(slow, `first step ${Math.round(first)} ms`).toEqual([]);
  const [early, late] = [median(steps.slice(0, ENDS)), median(steps.slice(-ENDS))];
  expect(late, `median of the first ${ENDS} steps ${Math.round(early)} ms, of the last ${ENDS}`).toBeLessThanOrEqual(early + TREND_SLACK_MS);
  expect(h.fake.calls().filter((c) => c.error_code === 429)).toEqual([]);
}

describe('a long guided flow with pacing on', () => {
  it('/filter: 28 taps and typed values, each step as fast as the first, no call made twice', async () => {

    await say('/filter');
    await press('Arbs · prematch');
    // Every press leaves a selection not seen before, so no edit repeats an earlier one by right.
    const firstPage = options();
    for (const sport of firstPage.slice(0, 6)) await press(sport);
    await press('›');
    for (const sport of options().slice(0, 2)) await press(sport);
    await press('‹');
    await press(firstPage[0] ?? '');
    await press('Done');
    await say('pinn');
    await press('Pinnacle');
    await say('bet');
    const betLabels = h.labels(h.last(ALICE.id)).filter((l) => !/Clear|All|Done|‹|›|\d+\/\d+/.test(l));
    for (const label of betLabels.slice(0, 2)) await press(label);
    await press('Done');
    await say('abc');
    await say('5-2');
    await say('1.5-10');
    await say('x');
    await press('Any odds');
    await say('twelve');
    await say('12');
    await press('Save');

    expect(h.last(ALICE.id).text).toContain('saved');
    expect(steps.length).toBeGreaterThanOrEqual(20);
    expectFlat();
    expectFewCallsPerStep();
    expectNoCallTwice();
  });

  it('/settings: 26 steps in one sitting, each as fast as the first, each round making the calls of the first', async () => {

    await say('/settings');
    for (let round = 0; round < 3; round++) {
      await press('Bankroll');
      await say('lots');
      await say(String(500 + round));
      await press('Rounding');
      await press('5');
      await press('Time zone');
      await say('Mars/Olympus');
      await press('Europe/London');
    }
    await press('Done');

    expect(h.last(ALICE.id).text).toContain('Settings saved');
    expect(steps.length).toBeGreaterThanOrEqual(20);
    expect(h.store.getUser(ALICE.id)?.bankroll).toBe(502);
    expect(h.store.getUser(ALICE.id)?.timeZone).toBe('Europe/London');
    expectFlat();
    expectFewCallsPerStep();
    // The three rounds are the same taps: each makes the same calls as the first, however late.
    const round = callsPerStep.slice(1, 9);
    expect(callsPerStep.slice(9, 17)).toEqual(round);
    expect(callsPerStep.slice(17, 25)).toEqual(round);
  });
});
