/**
 * The busy world's reading of an arb after commission (bench/lib/busy-commission.ts), checked
 * against the worked examples of the stake maths (docs/maths.md; stake-maths.md §2, outputs 2.3 and 2.6): what it counts as "lost after commission" is what
 * a user's min_profit=0 filter leaves out.
 */
import { describe, expect, it } from 'vitest';
import { worstCaseAfterCommission } from '../../bench/lib/busy-commission.js';
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
