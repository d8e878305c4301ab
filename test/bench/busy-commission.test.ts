/**
 * The busy world's reading of an arb after commission (bench/lib/busy-commission.ts), checked
 * against the worked examples of the stake maths (docs/maths.md; stake-maths.md §2, outputs 2.3 and 2.6): what it counts as "lost after commission" is what
 * a user's min_profit=0 filter leaves out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bestWorstCents, watchCommission, worstCaseAfterCommission } from '../../bench/lib/busy-commission.js';
import type { SandboxWorld, WireEnvelope } from '../../src/sandbox/index.js';
import type { WorldChange } from '../../src/sandbox/world-model.js';
import { solveStakes } from '../../src/alerts/stake-solver.js';
import { TYPE } from '../../src/sandbox/dictionaries.js';

const BET365 = 39;
const BETFAIR = 31;
const MATCHBOOK = 40;

describe('an arb after an exchange’s commission', () => {
  it('back 2.00 at a bookmaker, lay 2.00 at Betfair (5 %): −1.27 %', () => {
    const legs = [
      { bookmakerId: BET365, typeId: TYPE.home, odds: 2 },
      { bookmakerId: BETFAIR, typeId: TYPE.layHome, odds: 2 },
    ];
    expect(worstCaseAfterCommission(legs) * 100).toBeCloseTo(-1.27, 2);
  });

  it('back 2.50, lay 2.40 at Matchbook (2 %): +1.19 % of the money at risk; no exchange leg: no commission', () => {
    const legs = [
      { bookmakerId: BET365, typeId: TYPE.home, odds: 2.5 },
      { bookmakerId: MATCHBOOK, typeId: TYPE.layHome, odds: 2.4 },
    ];
    expect(worstCaseAfterCommission(legs) * 100).toBeCloseTo(1.19, 2);
    const plain = [
      { bookmakerId: BET365, typeId: TYPE.home, odds: 2.1 },
      { bookmakerId: 18, typeId: TYPE.away, odds: 2.05 },
    ];
    expect(worstCaseAfterCommission(plain)).toBeCloseTo(1 / (1 / 2.1 + 1 / 2.05) - 1, 10);
  });
});

describe('an arb on the busy world users’ grid (bankroll 100, whole units, lay stakes to the cent)', () => {
  it('1.50 / 3.02 (+0.22 %) has no whole-unit stakes within 100 that win both ways; 1.50 / 3.10 has', () => {
    // s1 · 1.5 > s1 + s2 and s2 · 3.02 > s1 + s2 need 2 s2 < s1 < 2.02 s2: s2 ≥ 51, s1 ≥ 103.
    const thin = [
      { bookmakerId: BET365, typeId: TYPE.home, odds: 1.5 },
      { bookmakerId: 18, typeId: TYPE.away, odds: 3.02 },
    ];
    expect(worstCaseAfterCommission(thin)).toBeGreaterThan(0);
    expect(bestWorstCents(thin)).toBeLessThanOrEqual(0);
    const wider = [thin[0]!, { ...thin[1]!, odds: 3.1 }];
    expect(bestWorstCents(wider)).toBeGreaterThan(0);
  });

  it('agrees with the bot’s exact solver on 400 random arbs of 2 and 3 legs, back and lay', () => {
    let state = 7;
    const rand = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    let disagreements = 0;
    let worth = 0;
    for (let n = 0; n < 400; n++) {
      const three = rand() < 0.4;
      const layAt = !three && rand() < 0.4 ? [BETFAIR, MATCHBOOK][Math.floor(rand() * 2)]! : undefined;
      const margin = 0.985 + rand() * 0.02;
      const probs = three ? [rand() + 0.2, rand() + 0.2, rand() + 0.2] : [rand() + 0.2, rand() + 0.2];
      const sum = probs.reduce((a, b) => a + b, 0);
      const odds = probs.map((p) => Math.max(1.01, Math.round((sum / p / margin) * 100) / 100));
      const legs =
        layAt !== undefined
          ? [
              { bookmakerId: BET365, typeId: TYPE.home, odds: odds[0]! },
              // The lay of the same selection, priced from the back's odds as the sandbox does.
              { bookmakerId: layAt, typeId: TYPE.layHome, odds: Math.max(1.01, Math.round((odds[0]! * (0.97 + rand() * 0.02)) * 100) / 100) },
            ]
          : odds.map((o, i) => ({ bookmakerId: [BET365, 18, BETFAIR][i]!, typeId: [TYPE.home, TYPE.away, TYPE.draw][i]!, odds: o }));
      const bench = bestWorstCents(legs) > 0;
      const bot = solveStakes(
        legs.map((l) => {
          const lay = l.typeId === TYPE.layHome;
          const commission = l.bookmakerId === BETFAIR ? 0.05 : l.bookmakerId === MATCHBOOK ? 0.02 : 0;
          return { bookmakerId: l.bookmakerId, bookmaker: String(l.bookmakerId), odds: l.odds, lay, commission, step: lay ? 0.01 : 1 };
        }),
        100,
      );
      if (bench) worth += 1;
      if (bench !== bot.ok) disagreements += 1;
    }
    expect(disagreements).toBe(0);
    // Both kinds were tried.
    expect(worth).toBeGreaterThan(40);
    expect(worth).toBeLessThan(360);
  });
});

describe('when an item counts from', () => {
  /** A world of one item whose home odds the test sets; `moves` is the world's log of its moves. */
  function fakeWorld() {
    const state = { home: 1.5, moves: [] as WorldChange[] };
    const envelope = () =>
      ({
        items: [
          {
            id: ID,
            odds: [
              { sub_event_id: 'a', type_id: TYPE.home, value: state.home },
              { sub_event_id: 'b', type_id: TYPE.away, value: 3.02 },
            ],
          },
        ],
        events: [{ sub_events: [{ id: 'a', bookmaker_id: BET365 }, { id: 'b', bookmaker_id: 18 }] }],
      }) as unknown as WireEnvelope;
    const sandbox = {
      currentEnvelope: envelope,
      world: { changes: (since: number) => state.moves.filter((c) => c.at >= since) } as unknown as SandboxWorld,
    };
    return { state, sandbox };
  }
  const ID = 'aaaaaaaaaaaaaaa1';

  afterEach(() => vi.useRealTimers());

  it('an arb for the user from its birth: from its appearance (no worthFrom), not from the sample that saw it', () => {
    vi.useFakeTimers({ now: 100_000 });
    const { state, sandbox } = fakeWorld();
    state.home = 1.6;
    const watch = watchCommission(sandbox, ['arbs_live']);
    vi.advanceTimersByTime(1_000);
    watch.stop();
    expect(watch.losing().size).toBe(0);
    expect(watch.worthFrom().size).toBe(0);
  });

  it('one made so by a move: from the move in the world’s log, not from the sample that found it', () => {
    vi.useFakeTimers({ now: 100_000 });
    const { state, sandbox } = fakeWorld();
    // 1.50 / 3.02: no whole-unit stakes within 100 win both ways (above).
    const watch = watchCommission(sandbox, ['arbs_live']);
    vi.advanceTimersByTime(1_000);
    expect(watch.losing()).toEqual(new Set([ID]));
    state.home = 1.6;
    state.moves.push({ at: 101_100, service: 'arbs_live', type: 'moved', id: ID });
    vi.advanceTimersByTime(1_000);
    watch.stop();
    expect(watch.losing().size).toBe(0);
    expect(watch.worthFrom().get(ID)).toBe(101_100);
  });
});
