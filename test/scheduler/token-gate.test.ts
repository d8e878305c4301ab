import { describe, expect, it } from 'vitest';
import { AddressTokenTurns } from '../../src/scheduler/address-turns.js';
import { createTokenGate, type GateKey, type GateSubscription, type TurnCandidate } from '../../src/scheduler/token-gate.js';
import { TokenLedger } from '../../src/scheduler/token-ledger.js';
import { HOUR_MS, nextActiveWindow, planTokens } from '../../src/scheduler/token-plan.js';
import type { BudgetView } from '../../src/service/client-types.js';
import type { Service } from '../../src/service/services.js';
import { subscriptionKey } from '../../src/store/schema.js';

const W = 300_000;
const MARGIN = 20_000;
const SAFETY = 3_000;

/** What the client says of tokens: per service, whether one is held and how long it lives. */
function fakeClient(held: Partial<Record<Service, number>> = {}, tokensLeft = 10) {
  return {
    held,
    tokensLeft,
    hasValidToken(_accessKey: string, service: Service): boolean {
      return this.held[service] !== undefined;
    },
    budget(_accessKey: string, service: Service): BudgetView {
      return { tokensLeft: this.tokensLeft, readsLeft: 30, tokenExpiresInMs: this.held[service] ?? 0, pausedForMs: 0 };
    },
  };
}

const sub = (service: Service, over: Partial<GateSubscription> = {}): GateSubscription => ({
  accessKey: 'key-a',
  service,
  phaseMs: 0,
  tokenWindow: undefined,
  grantWindow: undefined,
  ...over,
});

/** Live and prematch arbs at 20 tokens an hour: live every window, prematch every other one. */
const key = (offsetMs = 0): GateKey => ({
  accessKey: 'key-a',
  offsetMs,
  plan: planTokens({ services: ['arbs_live', 'arbs_prematch'], tokensPerHour: 20, reserve: 2, windowMs: W }),
});

function gateOf(client = fakeClient(), ledger = new TokenLedger(), turns?: AddressTokenTurns) {
  return createTokenGate({ client, ledger, windowMs: W, tokenSafetyMs: SAFETY, clientRenewMarginMs: MARGIN, ...(turns ? { turns } : {}) });
}

describe('token gate, per key', () => {
  it('reads on a held token in any window, without a request', () => {
    const k = key();
    const inactive = [...Array(k.plan.windowsPerCycle).keys()].find((w) => !k.plan.windows[w]!.includes('arbs_prematch'))!;
    const gate = gateOf(fakeClient({ arbs_prematch: MARGIN + SAFETY }));
    expect(gate.eligibility(sub('arbs_prematch'), k, inactive * W + 10)).toEqual({ ok: true, acquire: false, window: inactive });
  });

  it('waits for a token about to be renewed to lapse, so that the renewal is a planned request', () => {
    const now = 5 * W + 100;
    expect(gateOf(fakeClient({ arbs_live: MARGIN + 1_000 })).eligibility(sub('arbs_live'), key(), now)).toEqual({ ok: false, at: now + 1_001 });
    // Already inside the renewal margin: look again shortly, not in the past.
    expect(gateOf(fakeClient({ arbs_live: MARGIN - 5_000 })).eligibility(sub('arbs_live'), key(), now)).toEqual({ ok: false, at: now + 250 });
  });

  it('requests a token in a window the plan gives the service, counted from the key’s offset', () => {
    const offset = 12_345;
    const now = 3 * W + offset + 7;
    expect(gateOf().eligibility(sub('arbs_live'), key(offset), now)).toEqual({ ok: true, acquire: true, window: 3 });
    // Just before the key's window 3 starts it is still window 2.
    expect(gateOf().eligibility(sub('arbs_live'), key(offset), 3 * W + offset - 1)).toEqual({ ok: true, acquire: true, window: 2 });
  });

  it('requests at most once per window: the next request waits for the service’s next window (plus its phase)', () => {
    const k = key();
    const now = 4 * W + 50;
    const next = nextActiveWindow(k.plan, 'arbs_live', 5)!;
    expect(gateOf().eligibility(sub('arbs_live', { tokenWindow: 4, phaseMs: 700 }), k, now)).toEqual({ ok: false, at: next * W + 700 });
  });

  it('skips a window the plan does not give the service', () => {
    const k = key();
    const off = [...Array(k.plan.windowsPerCycle).keys()].find((w) => !k.plan.windows[w]!.includes('arbs_prematch'))!;
    const next = nextActiveWindow(k.plan, 'arbs_prematch', off + 1)!;
    expect(gateOf().eligibility(sub('arbs_prematch'), k, off * W + 1)).toEqual({ ok: false, at: next * W });
  });

  it('holds a request back while the rolling hour is full, until its oldest request ages out', () => {
    const k = key();
    const now = 10 * W + 1_000;
    const ledger = new TokenLedger();
    // The hour is full; the oldest request leaves it during this window.
    const oldest = now - HOUR_MS + 2_000;
    for (let i = 0; i < k.plan.budget; i++) ledger.record('key-a', oldest + i);
    expect(gateOf(fakeClient(), ledger).eligibility(sub('arbs_live'), k, now)).toEqual({ ok: false, at: oldest + HOUR_MS + 1 });

    // The oldest leaves only after this window: wait for the service's next window instead.
    const late = new TokenLedger();
    for (let i = 0; i < k.plan.budget; i++) late.record('key-a', now - 1_000 + i);
    const next = nextActiveWindow(k.plan, 'arbs_live', 11)!;
    expect(gateOf(fakeClient(), late).eligibility(sub('arbs_live'), k, now)).toEqual({ ok: false, at: next * W });
  });

  it('leaves the rest of the window to the bot’s own requests when the client’s token limit has none left', () => {
    const k = key();
    const next = nextActiveWindow(k.plan, 'arbs_live', 3)!;
    expect(gateOf(fakeClient({}, 0)).eligibility(sub('arbs_live'), k, 2 * W + 5)).toEqual({ ok: false, at: next * W });
  });

  it('looks again in a window when the key is not polled, and in a cycle when the plan has no window at all', () => {
    expect(gateOf().eligibility(sub('arbs_live'), undefined, 1_000)).toEqual({ ok: false, at: 1_000 + W });
    const empty: GateKey = { accessKey: 'key-a', offsetMs: 0, plan: planTokens({ services: ['arbs_live'], tokensPerHour: 0, reserve: 0, windowMs: W }) };
    expect(empty.plan.budget).toBe(0);
    expect(gateOf().eligibility(sub('arbs_live'), empty, 1_000)).toEqual({ ok: false, at: 1_000 + empty.plan.cycleMs });
  });

  it('counts each key’s requests under its own name', () => {
    expect(gateOf().ledgerName('key-a')).toBe('key-a');
  });
});

describe('token gate, one budget per address', () => {
  const turnsOf = () => new AddressTokenTurns({ tokensPerHour: 20, reserve: 2, windowMs: W });

  it('requests a token only in the window of its turn, once', () => {
    const turns = turnsOf();
    const gate = gateOf(fakeClient(), new TokenLedger(), turns);
    const now = 7 * W + 10;
    expect(gate.eligibility(sub('arbs_live', { grantWindow: 7 }), undefined, now)).toEqual({ ok: true, acquire: true, window: 7 });
    expect(gate.eligibility(sub('arbs_live', { grantWindow: 6 }), undefined, now)).toEqual({ ok: false, at: now + turns.windowsPerCycle * W });
    expect(gate.eligibility(sub('arbs_live', { grantWindow: 7, tokenWindow: 7 }), undefined, now)).toEqual({ ok: false, at: now + turns.windowsPerCycle * W });
  });

  it('counts every key against one shared budget, and waits while it is full', () => {
    const turns = turnsOf();
    const ledger = new TokenLedger();
    const gate = gateOf(fakeClient(), ledger, turns);
    expect(gate.ledgerName('key-a')).toBe(gate.ledgerName('key-b'));
    expect(gate.ledgerName('key-a')).not.toBe('key-a');
    const now = 20 * W + 1_000;
    const oldest = now - HOUR_MS + 500;
    for (let i = 0; i < turns.budget; i++) ledger.record(gate.ledgerName(i % 2 ? 'key-a' : 'key-b'), oldest + i);
    expect(gate.eligibility(sub('arbs_live', { grantWindow: 20 }), undefined, now)).toEqual({ ok: false, at: oldest + HOUR_MS + 1 });
  });

  it('hands each window’s turns out once, passing over a subscription backing off past the window', () => {
    const turns = turnsOf();
    const gate = gateOf(fakeClient(), new TokenLedger(), turns);
    const cand = (userId: number, failures = 0): TurnCandidate => ({
      id: subscriptionKey(userId, 'arbs_live'),
      userId,
      service: 'arbs_live',
      failures,
      grantWindow: undefined,
    });
    const healthy = cand(1);
    const failingSoon = cand(2, 1);
    const failingLong = cand(3, 3);
    // Window 25 may hand out two of the 18 tokens an hour: enough for all but the one backing off.
    expect(turns.quota(25)).toBe(2);
    const due: Record<string, number> = { [failingSoon.id]: 25 * W + 10, [failingLong.id]: 26 * W };
    const granted = gate.grantTurns(25 * W + 5, [healthy, failingSoon, failingLong], (id) => due[id]);
    expect(granted.map((s) => s.userId).sort()).toEqual([1, 2]);
    expect(healthy.grantWindow).toBe(25);
    expect(failingLong.grantWindow).toBeUndefined();
    // Later in the same window nothing more is handed out; the next window hands out again.
    expect(gate.grantTurns(25 * W + 9_000, [healthy, failingSoon, failingLong], (id) => due[id])).toEqual([]);
    expect(gate.grantTurns(26 * W, [healthy], () => undefined)).toEqual([healthy]);
    expect(healthy.grantWindow).toBe(26);
  });

  it('hands out nothing per key', () => {
    expect(gateOf().grantTurns(0, [{ id: '1:arbs_live', userId: 1, service: 'arbs_live', failures: 0, grantWindow: undefined }], () => undefined)).toEqual([]);
  });
});
