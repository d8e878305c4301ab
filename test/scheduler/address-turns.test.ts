import { describe, expect, it } from 'vitest';
import { AddressTokenTurns, type TurnMember } from '../../src/scheduler/address-turns.js';
import type { Service } from '../../src/service/services.js';

const members = (spec: Record<number, Service[]>): TurnMember[] =>
  Object.entries(spec).flatMap(([id, services]) => services.map((service) => ({ userId: Number(id), service })));

describe('AddressTokenTurns', () => {
  it('spreads the hour’s budget evenly over its windows', () => {
    const turns = new AddressTokenTurns({ tokensPerHour: 20 });
    expect(turns.budget).toBe(18);
    const quotas = Array.from({ length: 12 }, (_, k) => turns.quota(k));
    expect(quotas.reduce((a, b) => a + b, 0)).toBe(18);
    expect(Math.max(...quotas) - Math.min(...quotas)).toBeLessThanOrEqual(1);
    // Any 12 consecutive windows, negative indexes too, add up to the budget.
    for (let start = -30; start < 30; start++) {
      let sum = 0;
      for (let k = start; k < start + 12; k++) sum += turns.quota(k);
      expect(sum).toBe(18);
    }
    expect(new AddressTokenTurns({ tokensPerHour: 1 }).budget).toBe(1);
  });

  it('hands the tokens to users in turn, whoever subscribed first, and never twice to one subscription in a window', () => {
    const turns = new AddressTokenTurns({ tokensPerHour: 20 });
    const everyone = members(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [i + 1, ['arbs_prematch']])));
    const got = new Map<number, number>();
    for (let w = 0; w < 12 * 5; w++) {
      const granted = turns.grant(w, everyone);
      expect(granted).toHaveLength(turns.quota(w));
      expect(new Set(granted.map((g) => `${g.userId}:${g.service}`)).size).toBe(granted.length);
      for (const g of granted) got.set(g.userId, (got.get(g.userId) ?? 0) + 1);
    }
    // 5 hours × 18 tokens over 30 users: 3 each, exactly.
    expect([...got.values()]).toEqual(Array.from({ length: 30 }, () => 3));
  });

  it('lets a user’s services take turns, live first, and gives spare tokens to those who can use them', () => {
    const turns = new AddressTokenTurns({ tokensPerHour: 20 });
    const set = members({ 1: ['arbs_prematch', 'arbs_live'], 2: ['middles_prematch'] });
    const first = turns.grant(0, set);
    // One window, one or two tokens: user 1's live service goes first.
    expect(first[0]).toEqual({ userId: 1, service: 'arbs_live' });
    const counts = new Map<string, number>();
    for (let w = 1; w < 13; w++) {
      for (const g of turns.grant(w, set)) counts.set(`${g.userId}:${g.service}`, (counts.get(`${g.userId}:${g.service}`) ?? 0) + 1);
    }
    expect(counts.get('1:arbs_live')! + counts.get('1:arbs_prematch')!).toBe(9);
    expect(Math.abs(counts.get('1:arbs_live')! - counts.get('1:arbs_prematch')!)).toBeLessThanOrEqual(1);
    expect(counts.get('2:middles_prematch')).toBe(9);
    // A window with more tokens than subscriptions hands out only what can be used.
    const lonely = new AddressTokenTurns({ tokensPerHour: 200 });
    expect(lonely.grant(0, members({ 5: ['arbs_live'] }))).toEqual([{ userId: 5, service: 'arbs_live' }]);
    expect(lonely.grant(1, [])).toEqual([]);
  });

  it('predicts each member’s share: equal per user, max-min fair, capped at every window', () => {
    const turns = new AddressTokenTurns({ tokensPerHour: 20 });
    expect(turns.share(members({ 1: ['arbs_live'] }), 1, 'arbs_live')).toBe(1);
    const two = members({ 1: ['arbs_live'], 2: ['arbs_live', 'arbs_prematch'] });
    expect(turns.share(two, 1, 'arbs_live')).toBe(0.75);
    expect(turns.share(two, 2, 'arbs_prematch')).toBe(0.375);
    const many = members(Object.fromEntries(Array.from({ length: 36 }, (_, i) => [i + 1, ['arbs_live']])));
    expect(turns.share(many, 7, 'arbs_live')).toBeCloseTo(18 / 36 / 12, 10);
    expect(turns.share(many, 99, 'arbs_live')).toBe(0);
    const shares = turns.shares(many);
    expect([...shares.values()].reduce((a, b) => a + b, 0) * 12).toBeCloseTo(18, 10);
  });
});
