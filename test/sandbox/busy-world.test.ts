import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_TEMPO, BUSY_WORLD, type Sandbox, type WorldChange } from '../../src/sandbox/index.js';
import { Harness, tokenFor } from './helpers.js';

const h = new Harness();
afterEach(() => h.closeAll());

const MINUTES = 30;

/** Runs a busy sandbox for half an hour of manual time and returns the arbs_live changes after the start. */
async function busyRun(seed: number, harness = h): Promise<{ sb: Sandbox; changes: WorldChange[]; start: number }> {
  const sb = await harness.start({ seed, world: BUSY_WORLD });
  const start = harness.clock.now();
  for (let m = 0; m < MINUTES * 6; m++) {
    await harness.clock.advance(10_000);
    sb.world.step();
  }
  return { sb, changes: sb.world.changes(start + 1, 'arbs_live'), start };
}

describe('sandbox busy world profile', () => {
  it('births every 4–9 s, about 15 % of items gone within 3–8 s, most moving every 15–40 s', async () => {
    const { changes } = await busyRun(11);
    const appeared = changes.filter((c) => c.type === 'appeared');
    const gaps = appeared.slice(1).map((c, i) => c.at - (appeared[i] as WorldChange).at);
    // Without the profile a dead item is replaced after a random pause: gaps of 0 and minutes.
    expect(appeared.length).toBeGreaterThan((MINUTES * 60) / 9.5);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(BUSY_TEMPO.birthGapMs.min);
      expect(gap).toBeLessThanOrEqual(BUSY_TEMPO.birthGapMs.max);
    }
    const born = new Map(appeared.map((c) => [c.id, c.at]));
    const lifetimes = changes.filter((c) => c.type === 'gone' && born.has(c.id)).map((c) => c.at - (born.get(c.id) as number));
    const short = lifetimes.filter((l) => l <= BUSY_TEMPO.shortLifetimeMs.max);
    // Only an event's end (the match is over) cuts an item shorter than the profile's shortest life.
    expect(lifetimes.filter((l) => l < BUSY_TEMPO.shortLifetimeMs.min).length).toBeLessThanOrEqual(lifetimes.length * 0.03);
    expect(short.length / appeared.length).toBeGreaterThan(0.07);
    expect(short.length / appeared.length).toBeLessThan(0.25);

    const movesOf = new Map<string, number[]>();
    for (const c of changes) if (c.type === 'moved' && born.has(c.id)) movesOf.set(c.id, [...(movesOf.get(c.id) ?? []), c.at]);
    const longLived = appeared.filter((c) => changes.some((g) => g.type === 'gone' && g.id === c.id && g.at - c.at > 60_000));
    const moving = longLived.filter((c) => movesOf.has(c.id));
    expect(moving.length / longLived.length).toBeGreaterThan(0.6);
    for (const [id, times] of movesOf) {
      const from = [born.get(id) as number, ...times];
      // A move may be skipped when both directions leave the item's value band, so a gap may be a multiple.
      for (let i = 1; i < from.length; i++) expect((from[i] as number) - (from[i - 1] as number)).toBeGreaterThanOrEqual(BUSY_TEMPO.moveGapMs.min);
    }
  });

  it('is the same world for the same seed', async () => {
    const a = await busyRun(5);
    const other = new Harness();
    const b = await busyRun(5, other).finally(() => other.closeAll());
    expect(b.changes.map((c) => `${c.at - b.start}|${c.type}|${c.id}`)).toEqual(a.changes.map((c) => `${c.at - a.start}|${c.type}|${c.id}`));
  });
});

describe('sandbox token log', () => {
  it('records every token it hands out with its key, service and lifetime', async () => {
    const sb = await h.start({ tokenTtlMs: 300_000 });
    const at = h.clock.now();
    await tokenFor(sb, 'arbs_live');
    await h.clock.advance(1_000);
    await tokenFor(sb, 'arbs_prematch');
    expect(sb.tokenGrants()).toEqual([
      { accessKey: sb.demoKey.accessKey, service: 'arbs_live', at, expiresAt: at + 300_000 },
      { accessKey: sb.demoKey.accessKey, service: 'arbs_prematch', at: at + 1_000, expiresAt: at + 301_000 },
    ]);
  });
});
