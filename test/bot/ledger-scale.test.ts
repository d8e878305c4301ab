/**
 * One user at the ledger's bound (20,000 positions, LEDGER_MAX_POSITIONS' default) cannot make
 * the process stop for more than 200 ms with the bot's own commands and buttons (security-audit-3
 * M2): /pnl with its chart, /export all (an 8 MB CSV, made a few ms of work at a time and encoded slice by slice), /open, ✅ Placed and a
 * settle, /archive. The event loop's delay is measured with perf_hooks' monitor over the whole run;
 * the fake Bot API and the store share the process, so their work counts too.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { makeLeg, positionSchema, type Position } from '../../src/ledger/model.js';
import { makeItem } from './fakes.js';
import { ALICE, createHarness, type Harness } from './harness.js';

const POSITIONS = 20_000;
const BOUND_MS = 200;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

function position(n: number, now: number): Position {
  const placedAt = now - (POSITIONS - n) * 600_000;
  return positionSchema.parse({
    id: n.toString(36),
    kind: 'arbs',
    service: 'arbs_prematch',
    itemId: `old-${n}`,
    eventId: `e-${n}`,
    sport: 'Tennis',
    league: 'ATP Doha',
    event: 'Alpha – Beta',
    eventStart: placedAt + 3_600_000,
    placedAt,
    settledAt: placedAt + 7_200_000,
    legs: [
      { ...makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: '1', odds: 2.1, stake: 495 }), result: n % 2 === 0 ? 'won' : 'lost' },
      { ...makeLeg({ outcome: 1, bookmaker: 'Bwin', market: '2', odds: 2.05, stake: 505 }), result: n % 2 === 0 ? 'lost' : 'won' },
    ],
  });
}

/** One run of the scenario on a fresh harness: the longest event-loop stop of each step, in ms. */
async function runSteps(): Promise<Record<string, number>> {
  await h?.close();
  h = await createHarness({ env: { LEDGER_MAX_POSITIONS: String(POSITIONS + 1) } });
  await h.connect();
  h.store.updateUser(ALICE.id, (u) => {
    u.bankroll = 1000;
    u.roundingStep = 5;
  });
  const now = h.clock.now();
  for (let n = 1; n <= POSITIONS; n++) await h.store.ledger.put(ALICE.id, position(n, now));
  await h.store.ledger.updateSettings(ALICE.id, { nextId: POSITIONS + 1 });
  await h.store.flush();
  h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' })]);

  const monitor = monitorEventLoopDelay({ resolution: 10 });
  monitor.enable();
  const steps: Record<string, number> = {};
  const step = (name: string) => {
    steps[name] = Math.round(monitor.max / 1e6);
    monitor.reset();
  };
  await h.say(ALICE, '/pnl all');
  step('pnl');
  await h.say(ALICE, '/pnl all');
  step('pnl2');
  await h.say(ALICE, '/export all');
  step('export');
  const file = h.last(ALICE.id);
  const placed = encodeAlertAction({ type: 'placed', service: 'arbs_prematch', itemId: 'a1' })!;
  const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed]]);
  await h.press(ALICE, alert, placed);
  step('placed');
  await h.say(ALICE, '/open');
  step('open');
  const list = h.last(ALICE.id);
  await h.press(ALICE, list, h.button(list, '1) won'));
  step('settle');
  await h.say(ALICE, '/archive 2026-01');
  step('archive');
  await h.store.flush();
  step('flush');
  monitor.disable();

  expect(file.media?.fileName).toBe('ledger-all.csv');
  expect(file.media!.bytes.length).toBeGreaterThan(5_000_000);
  expect(h.sent(ALICE.id).some((m) => m.media?.kind === 'photo')).toBe(true);
  expect((await h.store.ledger.book(ALICE.id)).positions.length).toBeLessThan(POSITIONS);
  return steps;
}

describe('a ledger at its bound', () => {
  it(`keeps every command and button under ${BOUND_MS} ms of event-loop blocking`, async () => {
    // The monitor reads wall time, so a core taken by another test file's process for a moment
    // reads as a stop (CI once saw 201 ms for a step that stops ~30 ms alone). Such a stop does
    // not come back; work the bot does at once for the whole ledger does, in every run. So a step
    // over the bound is run again, up to three runs, and its lowest stop counts. (The chart's
    // first load is once a process: chart-drawer.test.ts measures it from fresh threads.)
    let best: Record<string, number> = {};
    for (let run = 1; run <= 3; run++) {
      const steps = await runSteps();
      best = Object.fromEntries(Object.entries(steps).map(([name, ms]) => [name, Math.min(ms, best[name] ?? ms)]));
      console.warn(`the longest event-loop stop of each step at ${POSITIONS} positions, run ${run}, ms: ${JSON.stringify(steps)}`);
      if (Object.values(best).every((ms) => ms < BOUND_MS)) break;
    }
    for (const [name, ms] of Object.entries(best)) expect(ms, name).toBeLessThan(BOUND_MS);
  }, 120_000);
});
