import { describe, expect, it } from 'vitest';
import { ItemInterner } from '../../src/scheduler/item-interner.js';
import { opp } from './fixtures.js';

describe('ItemInterner', () => {
  it('shares one object per item version between subscriptions', () => {
    const interner = new ItemInterner();
    const a1 = interner.intern(opp('a'));
    const a2 = interner.intern(opp('a'));
    expect(a2).toBe(a1);
    expect(interner.size).toBe(1);
    // Any shown difference is a new version: odds, profit, another service, a renamed team.
    const moved = interner.intern(opp('a', [2.2, 2.05]));
    expect(moved).not.toBe(a1);
    expect(interner.intern(opp('a', [2.1, 2.05], 2.4))).not.toBe(a1);
    expect(interner.intern(opp('a', [2.1, 2.05], 2.35, 'arbs_live'))).not.toBe(a1);
    const renamed = opp('a');
    renamed.event.team2 = 'Player C';
    expect(interner.intern(renamed)).not.toBe(a1);
    const masked = opp('a', [null, null]);
    expect(interner.intern(masked)).toBe(masked);
    expect(interner.size).toBe(6);
  });
});
