import { describe, expect, it } from 'vitest';
import { createTokenGate, type GateKey, type GateSubscription } from '../../src/scheduler/token-gate.js';
import { TokenLedger } from '../../src/scheduler/token-ledger.js';
import { planTokens } from '../../src/scheduler/token-plan.js';
import { DEFAULT_TUNING } from '../../src/scheduler/tuning.js';
import type { BudgetView } from '../../src/service/client-types.js';
import { parseTokenResponse } from '../../src/service/tokens.js';

/**
 * The stretch at the end of each token that polling leaves unused is dark time for its service:
 * the plan's next token for it comes only at its next window, so an item born in that stretch
 * waits for that token or is missed (the busy-world benchmark saw prematch items missed so). With
 * the shipped defaults (the client's own renewal margin and the gate's safety) the stretch must
 * stay a few seconds.
 */
describe('token gate with the shipped defaults and the client’s real grant', () => {
  const T0 = 1_000_000;
  // The answer the service gives: a 5-minute token.
  const grant = parseTokenResponse({ status: 200, body: { access_token: 'tok', expires_in: 300 }, bodyIsJson: true }, T0, 'token');
  let now = T0;
  const client = {
    hasValidToken: () => now < grant.renewAt,
    budget: (): BudgetView => ({ tokensLeft: 10, readsLeft: 30, tokenExpiresInMs: Math.max(0, grant.expiresAt - now), pausedForMs: 0 }),
  };
  const gate = createTokenGate({
    client,
    ledger: new TokenLedger(),
    windowMs: DEFAULT_TUNING.tokenTtlMs,
    tokenSafetyMs: DEFAULT_TUNING.tokenSafetyMs,
    clientRenewMarginMs: DEFAULT_TUNING.clientRenewMarginMs,
  });
  const key: GateKey = { accessKey: 'key-a', offsetMs: T0 % DEFAULT_TUNING.tokenTtlMs, plan: planTokens({ services: ['arbs_live'], tokensPerHour: 20 }) };
  // It requested this window's token already: the held token is all it may read on until the next window.
  const sub: GateSubscription = {
    accessKey: 'key-a',
    service: 'arbs_live',
    phaseMs: 0,
    tokenWindow: Math.floor((T0 - key.offsetMs) / DEFAULT_TUNING.tokenTtlMs),
    grantWindow: undefined,
  };

  it('knows the renewal margin the client really uses', () => {
    expect(DEFAULT_TUNING.clientRenewMarginMs).toBe(grant.expiresAt - grant.renewAt);
  });

  it('reads on a held token until at most 10 s before it expires (it used to stop 23 s early)', () => {
    let lastOk = T0;
    for (now = T0; now < grant.expiresAt; now += 100) {
      const e = gate.eligibility(sub, key, now);
      if (e.ok) {
        expect(e.acquire).toBe(false);
        lastOk = now;
      }
    }
    const unused = grant.expiresAt - lastOk;
    expect(unused).toBeGreaterThan(0);
    expect(unused).toBeLessThanOrEqual(10_000);
  });
});
